"""What both games' ``Options`` share: dict round trip and value checks."""

from __future__ import annotations

from dataclasses import asdict, fields, is_dataclass
from typing import Any, Self


class OptionsBase:
    """Mixin of the games' frozen ``Options`` dataclasses."""

    __slots__ = ()

    def to_dict(self) -> dict[str, Any]:
        """The options as a plain dict (JSON-friendly)."""
        assert is_dataclass(self)
        return asdict(self)

    def idle(self) -> frozenset[str]:
        """The options that change nothing with the values of the others (none here; a game
        names its own)."""
        return frozenset()

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Self:
        """Options from a dict; unknown keys are an error (``ValueError``)."""
        assert is_dataclass(cls)
        known = {field.name for field in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown option(s): {', '.join(unknown)}")
        return cls(**data)


def check_choice(name: str, value: object, allowed: tuple[object, ...]) -> None:
    """``ValueError`` naming the option unless ``value`` is one of ``allowed``."""
    if value not in allowed:
        choices = ", ".join(str(a) for a in allowed)
        raise ValueError(f"option {name}: {value!r} is not one of {choices}")


def check_range(name: str, value: int, low: int, high: int) -> None:
    """``ValueError`` naming the option unless ``low <= value <= high``."""
    if not low <= value <= high:
        raise ValueError(f"option {name}: {value} is not between {low} and {high}")


_TYPES: dict[str, type] = {"bool": bool, "int": int, "str": str}


def check_types(options: object) -> None:
    """``ValueError`` naming the option whose value is not of its field's type."""
    assert is_dataclass(options)
    for field in fields(options):
        value = getattr(options, field.name)
        expected = _TYPES[str(field.type)] if isinstance(field.type, str) else field.type
        if type(value) is not expected:
            raise ValueError(f"option {field.name}: expected {expected.__name__}, got {value!r}")
