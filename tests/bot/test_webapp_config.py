"""The Mini App's settings from the environment (bot.webapp.server.webapp_from_env)."""

from __future__ import annotations

import pytest

from bot.webapp.server import WebApp, WebAppError, webapp_from_env


def test_no_address_no_mini_app() -> None:
    assert webapp_from_env({}) is None
    assert webapp_from_env({"WEBAPP_URL": "  "}) is None


def test_the_address_and_where_a_polling_bot_serves_it() -> None:
    env = {"WEBAPP_URL": "https://carte.example.org/tavolo", "WEBAPP_PORT": "9000"}
    webapp = webapp_from_env({**env, "WEBAPP_LISTEN": "127.0.0.1", "WEBAPP_NAME": "tavolo"})
    assert webapp == WebApp("https://carte.example.org/tavolo", "127.0.0.1", 9000, "tavolo")
    assert webapp.path == "/tavolo/"
    assert webapp.link(42) == "https://carte.example.org/tavolo/?m=42"
    assert webapp.direct_link("TavoloBot", 42) == "https://t.me/TavoloBot/tavolo?startapp=m42"
    plain = webapp_from_env({"WEBAPP_URL": "https://carte.example.org"})
    assert plain == WebApp("https://carte.example.org") and plain.path == "/"
    assert plain.direct_link("TavoloBot", 7) == "https://t.me/TavoloBot?startapp=m7"


@pytest.mark.parametrize(
    ("env", "says"),
    [
        ({"WEBAPP_URL": "http://carte.example.org"}, "must be an https:// address"),
        ({"WEBAPP_URL": "carte.example.org"}, "must be an https:// address"),
        ({"WEBAPP_URL": "https://x.org", "WEBAPP_PORT": "99999"}, "WEBAPP_PORT must be"),
        ({"WEBAPP_URL": "https://x.org", "WEBAPP_NAME": "a b"}, "WEBAPP_NAME must be"),
    ],
)
def test_a_wrong_setting_says_what_to_fix(env: dict[str, str], says: str) -> None:
    with pytest.raises(WebAppError, match=says):
        webapp_from_env(env)
