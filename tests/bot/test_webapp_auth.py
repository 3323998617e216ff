"""The Mini App's identity: Telegram's ``initData`` checked as Telegram documents it, and the
bot's own sessions."""

from __future__ import annotations

import json
from urllib.parse import parse_qsl, urlencode

import pytest

from bot.webapp.auth import (
    INIT_DATA_MAX_AGE,
    SESSION_SECONDS,
    NotSigned,
    WebUser,
    check_init_data,
    check_session,
    issue_session,
    sign_init_data,
)

TOKEN = "123456:TEST-token"
NOW = 1_800_000_000.0
ANNA = json.dumps({"id": 1001, "first_name": "Anna", "last_name": "Rossi", "language_code": "it"})

# An independent vector: aiogram's published test of the same check (token "42:TEST").
AIOGRAM = (
    "auth_date=1650385342"
    "&user=%7B%22id%22%3A42%2C%22first_name%22%3A%22Test%22%7D"
    "&query_id=test"
    "&hash=46d2ea5e32911ec8d30999b56247654460c0d20949b6277af519e76271182803"
)


def signed(**fields: str) -> str:
    """``initData`` signed as Telegram signs it, for Anna now, with ``fields`` on top."""
    return sign_init_data({"auth_date": str(int(NOW)), "user": ANNA, **fields}, TOKEN)


def test_a_vector_signed_by_another_implementation_is_accepted() -> None:
    user = check_init_data(AIOGRAM, "42:TEST", now=1650385342 + 10)
    assert user == WebUser(42, "Test", "")
    with pytest.raises(NotSigned, match="bad hash"):
        check_init_data(AIOGRAM, "42:INVALID", now=1650385342 + 10)


def test_genuine_init_data_names_its_user() -> None:
    assert check_init_data(signed(query_id="q1"), TOKEN, NOW) == WebUser(1001, "Anna Rossi", "it")


@pytest.mark.parametrize(
    "tamper",
    [
        lambda f: {**f, "user": f["user"].replace("1001", "1002")},  # another user
        lambda f: {**f, "auth_date": str(int(NOW) + 1)},
        lambda f: {**f, "chat_type": "group"},  # a field added
        lambda f: {k: v for k, v in f.items() if k != "query_id"},  # a field removed
        lambda f: {**f, "hash": "0" * 64},
        lambda f: {k: v for k, v in f.items() if k != "hash"},
    ],
)
def test_tampered_init_data_is_refused(tamper: object) -> None:
    fields = dict(parse_qsl(signed(query_id="q1")))
    assert callable(tamper)
    with pytest.raises(NotSigned):
        check_init_data(urlencode(tamper(fields)), TOKEN, NOW)


def test_init_data_signed_with_another_token_is_refused() -> None:
    other = sign_init_data({"auth_date": str(int(NOW)), "user": ANNA}, "999:OTHER")
    with pytest.raises(NotSigned, match="bad hash"):
        check_init_data(other, TOKEN, NOW)


def test_old_init_data_is_refused() -> None:
    data = signed()
    assert check_init_data(data, TOKEN, NOW + INIT_DATA_MAX_AGE).id == 1001
    with pytest.raises(NotSigned, match="too old"):
        check_init_data(data, TOKEN, NOW + INIT_DATA_MAX_AGE + 1)


@pytest.mark.parametrize(
    "text", ["", "hash=", "a=1&a=2&hash=x", "%%%", "x" * 5000, "auth_date=1&hash=ab"]
)
def test_malformed_init_data_is_refused(text: str) -> None:
    with pytest.raises(NotSigned):
        check_init_data(text, TOKEN, NOW)


@pytest.mark.parametrize("user", ["", "{}", '{"id": "7"}', '{"id": true}', '{"id": -5}', "[1]"])
def test_init_data_without_a_user_is_refused(user: str) -> None:
    data = sign_init_data({"auth_date": str(int(NOW)), "user": user}, TOKEN)
    with pytest.raises(NotSigned, match="no user"):
        check_init_data(data, TOKEN, NOW)


def test_a_session_names_its_user_until_it_expires() -> None:
    anna = WebUser(1001, "Anna Rossi", "it")
    session = issue_session(anna, TOKEN, NOW)
    assert check_session(session, TOKEN, NOW + SESSION_SECONDS - 1) == anna
    with pytest.raises(NotSigned, match="expired"):
        check_session(session, TOKEN, NOW + SESSION_SECONDS)


def test_a_forged_session_is_refused() -> None:
    session = issue_session(WebUser(1001, "Anna", "it"), TOKEN, NOW)
    payload, _, mac = session.partition(".")
    other = issue_session(WebUser(1002, "Bruno", "it"), TOKEN, NOW).partition(".")[0]
    for forged in (other + "." + mac, payload + "." + mac[:-1], payload, "", "." + mac):
        with pytest.raises(NotSigned):
            check_session(forged, TOKEN, NOW)
    with pytest.raises(NotSigned):  # another bot's session
        check_session(session, "999:OTHER", NOW)
