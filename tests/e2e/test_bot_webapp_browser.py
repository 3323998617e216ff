"""End to end in a browser: the Mini App's page in headless Chromium (Debian's, driven by
Playwright), over the real bot, with ``initData`` signed as Telegram signs it (issue 28). A Scala 40
turn is played by the seed's gestures, a Scopone capture is chosen on the table, and a move made in
the chat shows in the page. Screenshots of both games, light and dark, at a phone's size, go to
``docs/screens/`` (looked at, not compared)."""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from bot.service import Tavolo
from bot.webapp.auth import sign_init_data
from bot.webapp.server import WebApp
from engine.scala40 import Options
from engine.scopone import Options as ScoponeOptions
from testkit.bot_harness import (
    button_data,
    running_bot,
    seat_people,
    serving_page,
    settle,
    store_started_match,
)
from testkit.fake_telegram import FakeTelegramServer
from testkit.s40_helpers import position
from testkit.scopone_helpers import build_position

playwright = pytest.importorskip("playwright.async_api")

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
if not Path(CHROMIUM).exists():
    if os.environ.get("CI"):
        raise RuntimeError(
            "the Mini App's browser tests need Debian's chromium (.ci/run installs it)"
        )
    pytest.skip("no chromium: apt-get install chromium", allow_module_level=True)

GROUP = -100800
ANNA, BRUNO, CARLA, DARIO = 2001, 2002, 2003, 2004
PEOPLE = [
    (ANNA, "Anna", "it"),
    (BRUNO, "Bruno", "it"),
    (CARLA, "Carla", "it"),
    (DARIO, "Dario", "it"),
]
WEBAPP = WebApp("https://tavolo.test/app/")
SCREENS = Path(__file__).resolve().parents[2] / "docs" / "screens"
PHONE = {"width": 390, "height": 844}
THEMES = {
    "light": {"bg_color": "#ffffff", "text_color": "#000000", "hint_color": "#707579",
              "button_color": "#3390ec", "button_text_color": "#ffffff",
              "secondary_bg_color": "#e9f3e8", "accent_text_color": "#3390ec"},
    "dark": {"bg_color": "#212121", "text_color": "#ffffff", "hint_color": "#aaaaaa",
             "button_color": "#8774e1", "button_text_color": "#ffffff",
             "secondary_bg_color": "#1e3326", "accent_text_color": "#a695e7"},
}  # fmt: skip
FLAGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip
TELEGRAM_STUB = """
window.Telegram = {WebApp: {
  initData: %(data)s, initDataUnsafe: {}, colorScheme: %(scheme)s, themeParams: %(theme)s,
  ready() {}, expand() {},
}};
for (const [key, value] of Object.entries(%(theme)s)) {
  document.documentElement.style.setProperty("--tg-theme-" + key.replaceAll("_", "-"), value);
}
"""
"""Telegram's script as the page sees it inside Telegram: the signed data and the theme's colours
as CSS variables (Telegram's own script sets them so)."""


@pytest.fixture(autouse=True)
def _ptb_timedelta(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PTB_TIMEDELTA", "1")


@pytest_asyncio.fixture
async def browser() -> AsyncIterator[Any]:
    """Debian's Chromium, headless, as this machine allows it (no downloads, no sandbox)."""
    async with playwright.async_playwright() as driver:
        browser = await driver.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield browser
        await browser.close()


def init_data(token: str, user: int, name: str) -> str:
    """``initData`` as Telegram signs it when ``user`` opens the Mini App."""
    person = json.dumps({"id": user, "first_name": name, "language_code": "it"})
    fields = {"auth_date": str(int(time.time())), "query_id": "AAH", "user": person}
    return sign_init_data(fields, token)


async def open_page(browser: Any, base: str, match_id: int, data: str, theme: str = "light") -> Any:
    """The Mini App opened inside "Telegram" at a phone's size, on the match's page."""
    context = await browser.new_context(viewport=PHONE, device_scale_factor=1, bypass_csp=True)
    page = await context.new_page()
    stub = TELEGRAM_STUB % {
        "data": json.dumps(data), "scheme": json.dumps(theme), "theme": json.dumps(THEMES[theme])
    }  # fmt: skip

    async def telegram(route: Any) -> None:
        await route.fulfill(status=200, content_type="text/javascript", body=stub)

    await page.route("https://telegram.org/**", telegram)
    await page.goto(f"{base}?m={match_id}")
    await page.wait_for_selector("#hand .card")
    return page


async def toast(page: Any, text: str) -> None:
    """Wait until the page says ``text``."""
    await page.wait_for_function(
        "t => document.getElementById('toast').textContent === t && "
        "!document.getElementById('toast').hidden",
        arg=text,
    )


async def tap_card(page: Any, card: str, where: str = "#hand") -> None:
    """Tap a card (a lifted card shows lifted once the bot stored it)."""
    before = await page.locator(f"{where} .card[data-card='{card}']").first.get_attribute("class")
    await page.locator(f"{where} .card[data-card='{card}']").first.click()
    await page.wait_for_function(
        "([sel, before]) => document.querySelector(sel)?.getAttribute('class') !== before",
        arg=[f"{where} .card[data-card='{card}']", before],
    )


async def tap_action(page: Any, label: str) -> None:
    """Tap one of the hand's buttons, as the page shows them."""
    await page.get_by_role("button", name=label, exact=True).click()


async def shot(page: Any, name: str) -> None:
    SCREENS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(SCREENS / f"{name}.png"))


def s40_store(database: Path) -> int:
    """Anna (seat 0) to play; her hand opens with 7♠ 7♥ 🃏 and 10♠–K♠, then lays 3♣ 3♦ 3♥ and
    attaches 9♠ (the joker of the set is ambiguous: she declares it)."""
    match = position(
        ["JK 7S 7H 10S JS QS KS 9S 3C 3D 3H 2C 5D", "4S 4H 4D 3S 4C 5C 6C 8C 9C 9H 5H 2D 6D"],
        discard="KD", stock_top="AC AD 2H 3H", to_play=0,
    )  # fmt: skip
    people = PEOPLE[:2]
    return store_started_match(
        database, GROUP, "Circolo", people, "scala40", match.to_json(), Options().to_dict()
    )


async def test_a_scala40_turn_by_gestures(
    fake_telegram: FakeTelegramServer, tmp_path: Path, browser: Any
) -> None:
    server = fake_telegram
    bruno = seat_people(server, GROUP, "Circolo", PEOPLE[:2])[1]
    match_id = s40_store(tmp_path / "b.db")
    async with (
        running_bot(server, tmp_path / "b.db", webapp=WEBAPP) as service,
        serving_page(service, server.token, WEBAPP) as base,
    ):
        await settle(server, service)
        page = await open_page(browser, base, match_id, init_data(server.token, ANNA, "Anna"))
        assert (await page.locator("#turn").inner_text()).startswith("Tocca a te · ")
        assert await page.get_by_role("button", name="settebello").count() == 0
        # Draw: a tap on the stock.
        await page.locator("#stock").click()
        await toast(page, "Hai pescato A♣.")
        assert await page.locator("#hand .card.new").get_attribute("data-card") == "AC"
        # Lift three cards, stage them: the joker of 7♠ 7♥ 🃏 is asked for.
        for card in ("JK", "7S", "7H"):
            await tap_card(page, card)
        assert await page.locator("#hand .card.lifted").count() == 3
        await tap_action(page, "➕ Prepara")
        await page.get_by_role("button", name="7♦").click()  # the joker panel: 7♦ or 7♣
        await page.wait_for_selector("#staged .meld")
        for card in ("10S", "JS", "QS", "KS"):
            await tap_card(page, card)
        await tap_action(page, "➕ Prepara")
        await page.wait_for_function("document.querySelectorAll('#staged .meld').length === 2")
        await shot(page, "scala40-light")
        await tap_action(page, "✅ Apri 61")  # the staged total, against the threshold
        await page.wait_for_selector("#melds .meld[data-meld='2']")
        # Lay three cards as a meld; attach one by tapping the meld.
        for card in ("3C", "3D", "3H"):
            await tap_card(page, card)
        await tap_action(page, "⬇️ Cala")
        await page.wait_for_selector("#melds .meld[data-meld='3']")
        await tap_card(page, "9S")
        await page.locator("#melds .meld[data-meld='2']").click()
        await page.wait_for_function(
            "document.querySelectorAll(\"#melds .meld[data-meld='2'] .card\").length === 5"
        )
        # Reorder by a drag: 5♦ to the left end.
        cards = page.locator("#hand .card")
        first, last = cards.first, page.locator("#hand .card[data-card='5D']")
        box_first, box_last = await first.bounding_box(), await last.bounding_box()
        await page.mouse.move(box_last["x"] + 10, box_last["y"] + 20)
        await page.mouse.down()
        await page.mouse.move(box_last["x"] - 30, box_last["y"] + 20, steps=4)
        await page.mouse.move(box_first["x"] + 2, box_first["y"] + 20, steps=4)
        await page.mouse.up()
        await page.wait_for_function("document.querySelector('#hand .card').dataset.card === '5D'")
        order = await page.locator("#hand .card").evaluate_all("cs => cs.map(c => c.dataset.card)")
        assert order[0] == "5D" and sorted(order) == ["2C", "5D", "AC"]
        # Discard: lift it, tap the button that names it.
        await tap_card(page, "2C")
        await tap_action(page, "🗑 Scarta 2♣")
        await page.wait_for_function(
            "document.getElementById('turn').textContent === 'In attesa del tuo turno'"
        )
        await settle(server, service)
        moves = [m.action for m in service.store.moves(match_id)]
        assert moves == [
            "draw", "open 7S 7H JK=7D | 10S JS QS KS", "meld 3H 3D 3C", "attach 2 9S", "discard 2C"
        ]  # fmt: skip
        # The moves made in the page show in the chat: Bruno's hand and the group's table.
        record = service.store.get_match(match_id)
        hand = server.message(BRUNO, record.seats[1].hand_message_id or 0)
        assert hand is not None and "Pozzo: 2♣" in hand.text
        table = server.message(GROUP, record.table_message_id or 0)
        assert table is not None and "· Anna scarta 2♣" in table.text
        # A move made in the chat shows in the page: Bruno draws.
        count = await page.locator("#stock").get_attribute("aria-label")
        await bruno.press(BRUNO, hand.message_id, button_data(hand, "🂠 Pesca")).answered()
        await page.wait_for_function(
            "c => document.getElementById('stock').getAttribute('aria-label') !== c", arg=count
        )
        dark = await open_page(
            browser, base, match_id, init_data(server.token, ANNA, "Anna"), "dark"
        )
        await shot(dark, "scala40-dark")


async def test_a_scopone_capture_chosen_on_the_table(
    fake_telegram: FakeTelegramServer, tmp_path: Path, browser: Any
) -> None:
    """SC-3.4: with A 3 4 5 J on the table a Q takes A+J or 4+5: the page shows both."""
    server = fake_telegram
    seat_people(server, GROUP, "Circolo", PEOPLE)
    match = build_position(
        ["QH 2C 6S", "KS 2D 6H", "KC 2S 6C", "KD 2H 6D"], "AH 3H 4S 5D JC", to_play=0
    )
    match_id = store_started_match(
        tmp_path / "s.db", GROUP, "Circolo", PEOPLE, "scopone", match.to_json(),
        ScoponeOptions().to_dict(),
    )  # fmt: skip
    async with (
        running_bot(server, tmp_path / "s.db", webapp=WEBAPP) as service,
        serving_page(service, server.token, WEBAPP) as base,
    ):
        await settle(server, service)
        page = await open_page(browser, base, match_id, init_data(server.token, ANNA, "Anna"))
        labels = await page.locator("#board .card").evaluate_all(
            "cs => cs.map(c => c.getAttribute('aria-label'))"
        )
        assert labels == [
            "asso di coppe", "tre di coppe", "quattro di spade", "cinque di denari",
            "fante di bastoni",
        ]  # fmt: skip
        await page.locator("#hand .card[data-card='QH']").click()
        choice = page.get_by_role(
            "button", name="cavallo di coppe → quattro di spade, cinque di denari"
        )
        await choice.wait_for()
        assert await page.locator("#choices .choice").count() == 2
        await shot(page, "scopone-light")
        dark = await open_page(
            browser, base, match_id, init_data(server.token, ANNA, "Anna"), "dark"
        )
        await shot(dark, "scopone-dark")
        await dark.close()
        await choice.click()
        await page.wait_for_function(
            "document.getElementById('turn').textContent === 'In attesa del tuo turno'"
        )
        await settle(server, service)
        assert [m.action for m in service.store.moves(match_id)] == ["play QH take 4S 5D"]
        assert await page.locator("#board .card").count() == 3
        record = service.store.get_match(match_id)
        hand = server.message(ANNA, record.seats[0].hand_message_id or 0)
        assert hand is not None and "Q♥" not in hand.text.split("\n")[-1]
        assert isinstance(service, Tavolo)
