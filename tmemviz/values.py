"""Values as users type them: whole numbers in decimal or hex, and options that must agree.

Every family's spelling module turns command-line text into values with these,
so an option means the same thing (and fails with the same sentence) everywhere.
"""

from __future__ import annotations

from typing import TypeVar

from tmemviz.errors import TmemvizError

T = TypeVar("T")


MAX_DIGITS = 40
"""The longest number read (2**128 has 39 digits): every value tmemviz takes is far shorter, and
Python refuses to convert strings of more than 4,300 digits with an error of its own."""


def parse_int(text: str | int, what: str) -> int:
    """A whole number written in decimal or 0x hex; a bool, a float or a huge number is refused.

    >>> parse_int("0x10", "--lane")
    16
    """
    if isinstance(text, bool) or not isinstance(text, (int, str)):
        raise TmemvizError(f"{what} must be a whole number, got {kind_of(text)}")
    if isinstance(text, int):
        return text
    t = text.strip()
    body = t.lstrip("+-")
    body = body.removeprefix("0x").removeprefix("0X")
    if len(body) > MAX_DIGITS:
        raise TmemvizError(too_long(what, body))
    try:
        return int(t, 16) if t.lower().startswith("0x") else int(t, 10)
    except ValueError:
        raise TmemvizError(f"{what} must be a whole number, got '{clip(text)}'") from None


def digits(text: str, what: str) -> int:
    """A run of decimal digits a pattern matched (``x4``'s ``4``), refused past :data:`MAX_DIGITS`.

    >>> digits("0128", ".num")
    128
    """
    if len(text) > MAX_DIGITS:
        raise TmemvizError(too_long(what, text))
    return int(text)


def too_long(what: str, text: str) -> str:
    return f"{what} has {len(text)} digits; no value tmemviz reads has more than {MAX_DIGITS}"


def clip(text: str, width: int = 60) -> str:
    """``text`` as an error message quotes it: at most ``width`` characters, the cut marked.

    >>> clip("a" * 100, 20)
    'aaaaaaaa...aaaaaaaa (100 characters)'
    """
    if len(text) <= width:
        return text
    half = (width - 4) // 2
    return f"{text[:half]}...{text[-half:]} ({len(text)} characters)"


def kind_of(value: object) -> str:
    """How an error names a value of the wrong type: ``the bool True``, ``the float 1.5``, ``None``."""
    if value is None:
        return "None"
    return f"the {type(value).__name__} {clip(repr(value))}"


def plural(count: int, word: str) -> str:
    """``1 instruction``, ``2 instructions``: a count with its noun agreeing.

    >>> plural(1, "instruction"), plural(4, "column")
    ('1 instruction', '4 columns')
    """
    return f"{count} {word}{'' if count == 1 else 's'}"


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
