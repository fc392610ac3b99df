"""The one exception type the core raises; the CLI turns it into a message."""

from __future__ import annotations

import re

_LONG_QUOTE = re.compile(r"'([^'\n]{201,})'")
_LONG_WORD = re.compile(r"[^\s']{201,}")


class TmemvizError(ValueError):
    """Bad input or an impossible request, described in one sentence.

    The message is written for the user: it says what is wrong and what is
    allowed, so the command line can print it as is and exit with status 2.
    It is kept one readable line whatever the input: a quoted value or a word of
    more than 200 characters is clipped (a 5,000-character name is named by its
    length), and line breaks and other control characters are shown escaped.

    >>> message = str(TmemvizError("unknown shape '" + "9" * 300 + "'"))
    >>> len(message), message.endswith("999 (300 characters)'")
    (132, True)
    """

    def __init__(self, message: str = "") -> None:
        super().__init__(one_line(str(message)))


def one_line(message: str) -> str:
    """``message`` clipped and escaped as :class:`TmemvizError` keeps its messages.

    >>> one_line("bad name 'a\\nb'")
    "bad name 'a\\\\nb'"
    """
    message = _LONG_QUOTE.sub(lambda m: f"'{_clip(m.group(1))}'", message)
    message = _lines_clipped(message)
    message = _LONG_WORD.sub(lambda m: _clip(m.group(0)), message)
    if message.isprintable():
        return message
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in message)


def _lines_clipped(message: str) -> str:
    """A message naming a text pasted where a name was wanted (PTX given as a file name): the stretch
    from the word holding its first line break to the word holding its last, clipped when it is longer
    than 200 characters.

    >>> text = ".version 9.0" + "\\n.reg .b32 %r1;" * 30 + "\\n}"
    >>> clipped = _lines_clipped(f"cannot read {text}: no such file")
    >>> clipped.startswith("cannot read .version 9.0"), clipped.endswith(" characters): no such file")
    (True, True)
    >>> len(clipped) < 200
    True
    """
    first, last = message.find("\n"), message.rfind("\n")
    if first < 0:
        return message
    start = max(message.rfind(" ", 0, first), message.rfind("'", 0, first)) + 1
    end = last + 1
    while end < len(message) and message[end] not in " :;,'":
        end += 1
    if end - start <= 200:
        return message
    return message[:start] + _clip(message[start:end]) + message[end:]


def _clip(text: str, width: int = 100) -> str:
    half = (width - 4) // 2
    return f"{text[:half]}...{text[-half:]} ({len(text)} characters)"


def quoted(text: str) -> str:
    """``text`` in quotes as a message names it, clipped past 200 characters (with its length) and its
    line breaks shown escaped, so the message stays one line whatever it quotes.

    >>> quoted("a b"), quoted("x" * 300)[-20:]
    ("'a b'", "xx (300 characters)'")
    """
    if len(text) > 200:
        text = _clip(text)
    return "'" + text.replace("\n", "\\n") + "'"
