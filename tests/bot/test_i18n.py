"""Translation catalogs: the same keys in Italian and English, fields that fill in."""

from __future__ import annotations

import re
import string

from bot.i18n import CATALOGS, error_text, language_for, t


def fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


class TestCatalogs:
    def test_same_keys(self) -> None:
        assert set(CATALOGS["it"]) == set(CATALOGS["en"])

    def test_same_fields_per_key(self) -> None:
        for key, template in CATALOGS["it"].items():
            assert fields(template) == fields(CATALOGS["en"][key]), key

    def test_html_tags_balanced(self) -> None:
        for catalog in CATALOGS.values():
            for key, template in catalog.items():
                opened = re.findall(r"<(b|i|code)>", template)
                closed = re.findall(r"</(b|i|code)>", template)
                assert sorted(opened) == sorted(closed), key

    def test_language_for(self) -> None:
        assert language_for("it-IT") == "it"
        assert language_for("en") == "en"
        assert language_for("de") == "en"
        assert language_for(None) == "it"

    def test_engine_error_translated(self) -> None:
        assert error_text("it", "close-first-round") == "Non si può chiudere al primo giro."
        assert error_text("en", "opening-below-40", "x", points=37, needed=40) == (
            "Opening too low: 37 points, 40 needed."
        )
        assert error_text("it", "opening-below-40", "37 points, 40 needed") == (
            "Mossa non valida: 37 points, 40 needed"
        )
        assert error_text("en", "unknown-code", "raw") == "Not a legal move: raw"

    def test_fill(self) -> None:
        assert t("it", "move.open", name="Anna", points=57) == "Anna apre con 57"
        assert t("en", "move.discard", name="Luca", card="7♥") == "Luca discards 7♥"
