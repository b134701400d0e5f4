"""The JavaScript string rules the reference tool relies on.

The reference is JavaScript, so its ``\\s``, ``trim()``, ``.`` and line split
differ from Python's: ``\\s`` is JavaScript's whitespace set (it has U+FEFF but
not U+001C..U+001F or U+0085), ``.`` stops at ``\\n``, ``\\r``, U+2028 and
U+2029 and matches a single UTF-16 code unit, and lines split on ``\\r?\\n``.
"""

from __future__ import annotations

import re

__all__ = ["DOT", "DOT_UNIT", "WS", "is_blank", "split_lines", "trim", "trim_end"]

#: The characters JavaScript's ``\s`` and ``String.prototype.trim`` treat as whitespace.
WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
#: A regular-expression class equal to JavaScript's ``\s``.
WS = "[" + re.escape(WHITESPACE) + "]"
#: JavaScript's ``.`` without the ``s`` flag: anything but a line terminator.
DOT = "[^\n\r\u2028\u2029]"
#: JavaScript's ``.`` without the ``u`` flag when it must match one code unit:
#: an astral character is two UTF-16 units, so it is left out.
DOT_UNIT = "[^\n\r\u2028\u2029\U00010000-\U0010ffff]"

_LINE_BREAK = re.compile("\r?\n")


def trim(text: str) -> str:
    """``text.trim()`` as JavaScript does it."""
    return text.strip(WHITESPACE)


def trim_end(text: str) -> str:
    """``text.replace(/\\s+$/u, "")``: drop trailing JavaScript whitespace."""
    return text.rstrip(WHITESPACE)


def is_blank(text: str) -> bool:
    """Whether ``text`` is empty once JavaScript-trimmed."""
    return not text.strip(WHITESPACE)


def split_lines(text: str) -> list[str]:
    """``text.split(/\\r?\\n/)``: only ``\\n`` and ``\\r\\n`` end a line."""
    return _LINE_BREAK.split(text)
