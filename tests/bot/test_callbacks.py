"""The callback-data codec: ASCII, within Telegram's 64 bytes, forged data refused."""

from __future__ import annotations

import pytest

from bot import callbacks
from bot.callbacks import Callback


class TestCodec:
    def test_hand_round_trip(self) -> None:
        text = callbacks.hand(2**31 - 1, 3, "kqzpam", "t", 12)
        assert text == "h:2147483647:3:kqzpam:t:12"
        assert callbacks.decode(text) == Callback(
            "h", 2**31 - 1, "t", 3, arg="12", context="kqzpam"
        )
        assert callbacks.decode("h:2147483648:3:kqzpam:t:12") is None  # no such id

    def test_lobby_confirm_rematch_round_trip(self) -> None:
        assert callbacks.decode(callbacks.lobby(5, 2, "ov", 7)) == Callback(
            "l", 5, "ov", -1, 2, "7"
        )
        assert callbacks.decode(callbacks.confirm(9, "st")) == Callback("k", 9, "st")
        assert callbacks.decode(callbacks.rematch(9)) == Callback("r", 9, "go")

    def test_worst_case_fits_64_bytes(self) -> None:
        text = callbacks.hand(10**12 - 1, 5, "zzzzzz", "jd", "JK=10H")
        assert len(text.encode("ascii")) <= 64

    @pytest.mark.parametrize(
        "forged",
        [
            None,
            "",
            "x",
            "h:1:2:3",
            "h:a:2:3:t",
            "h:1:2:3:TOOLONG",
            "h:1:2:3:t:<script>",
            "h:1:2:3:t:5H.0",
            "h:1:2:abcdeF:t",
            "h:1:2:abcde:t",
            "é",
            "h:" + "9" * 70,
            "h:²:2:abcdef:t",
            "l:١:j",
        ],
    )
    def test_forged_data_is_none(self, forged: str | None) -> None:
        assert callbacks.decode(forged) is None

    @pytest.mark.parametrize(
        ("text", "index"),
        [("0", 0), ("12", 12), ("", None), ("x", None), ("²", None), ("٣", None), ("99999", None)],
    )
    def test_button_index(self, text: str, index: int | None) -> None:
        """Only ASCII digits are a button's number: Python's isdigit also accepts '²'."""
        assert callbacks.button_index(text) == index

    def test_encode_refuses_bad_op(self) -> None:
        with pytest.raises(ValueError):
            callbacks.hand(1, 0, "abcdef", "bad op")
        with pytest.raises(ValueError):
            callbacks.hand(1, 0, "123456", "t")
