"""Values as users type them: whole numbers in decimal or hex, and options that must agree.

Every family's spelling module turns command-line text into values with these,
so an option means the same thing (and fails with the same sentence) everywhere.
"""

from __future__ import annotations

from typing import TypeVar

from tmemviz.errors import TmemvizError

T = TypeVar("T")


def parse_int(text: str | int, what: str) -> int:
    """A whole number written in decimal or 0x hex.

    >>> parse_int("0x10", "--lane")
    16
    """
    if isinstance(text, int):
        return text
    t = text.strip()
    try:
        return int(t, 16) if t.lower().startswith("0x") else int(t, 10)
    except ValueError:
        raise TmemvizError(f"{what} must be a whole number, got '{text}'") from None


def agree(option: str, spelled: T | None, given: T | None, default: T, prefix: str = "") -> T:
    """What the spelling and the option both say; contradicting each other is an error.

    >>> agree("--num", 4, None, 1, "x"), agree("--num", None, None, 1, "x")
    (4, 1)
    """
    if spelled is not None and given is not None and spelled != given:
        raise TmemvizError(f"the shape says {prefix}{spelled} but {option} says {prefix}{given}")
    if given is not None:
        return given
    return spelled if spelled is not None else default
