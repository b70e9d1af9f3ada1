"""A cursor over MLIR text: the tokens the mesh assembly formats need.

Types and attribute dictionaries are not interpreted, only delimited
(balanced brackets, string literals, ``->`` arrows): MLIR's own parser reads
them after the custom syntax has been turned into the generic form.
"""

from __future__ import annotations

import functools
import re


class ParseError(Exception):
    """A syntax error at an offset of the text being parsed."""

    def __init__(self, pos: int, message: str):
        super().__init__(message)
        self.pos = pos
        self.message = message


_SKIP = re.compile(r"(?:\s+|//[^\n]*)+")
_SSA = re.compile(r"%(?:\d+|[A-Za-z_$.\-][\w$.\-]*)(?:#\d+)?")
_SYMBOL = re.compile(r'@(?:([A-Za-z_$.\-][\w$.\-]*)|"((?:[^"\\\n]|\\.)*)")')
_INT = re.compile(r"-?(?:0x[0-9a-fA-F]+|\d+)")
_IDENT = re.compile(r"[A-Za-z_][\w$.]*")
_TYPE_HEAD = re.compile(r"!?[A-Za-z_][\w$.]*")
_DIM_LIST = re.compile(r"(?:\d+|\?)(?:x(?:\d+|\?))*")
_WORD_CHAR = re.compile(r"[\w$.]")
_TOKEN = re.compile(r"[\w$.%@!#-]+|\S")
_OPEN = {"<": ">", "(": ")", "[": "]", "{": "}"}


class Cursor:
    """A position in a text, with one method per token kind.

    Every token method skips white space and ``//`` comments first, and raises
    ParseError (with the offset of the offending token) when the expected
    token is not there.
    """

    __slots__ = ("text", "pos")

    def __init__(self, text: str, pos: int = 0):
        self.text = text
        self.pos = pos

    # -- helpers ---------------------------------------------------------
    def skip(self) -> int:
        """Skips white space and comments; returns the new position."""
        m = _SKIP.match(self.text, self.pos)
        if m:
            self.pos = m.end()
        return self.pos

    def error(self, what: str) -> ParseError:
        """A ParseError at the next token saying what was expected there."""
        pos = self._after_skip()
        m = _TOKEN.match(self.text, pos)
        found = f"'{m.group(0)[:20]}'" if m else "end of input"
        return ParseError(pos, f"expected {what}, found {found}")

    def _match(self, pattern: re.Pattern, what: str) -> re.Match:
        self.skip()
        m = pattern.match(self.text, self.pos)
        if not m:
            raise self.error(what)
        self.pos = m.end()
        return m

    # -- punctuation and keywords ----------------------------------------
    def _after_skip(self) -> int:
        m = _SKIP.match(self.text, self.pos)
        return m.end() if m else self.pos

    def peek(self, literal: str) -> bool:
        """True if the next token is ``literal`` (a keyword must end there).

        Does not move the cursor.
        """
        pos = self._after_skip()
        if not self.text.startswith(literal, pos):
            return False
        end = pos + len(literal)
        if literal[-1].isalnum() or literal[-1] == "_":
            return end >= len(self.text) or not _WORD_CHAR.match(self.text, end)
        return True

    def accept(self, literal: str) -> bool:
        """Consumes ``literal`` if it is next; returns whether it did."""
        if self.peek(literal):
            self.pos = self._after_skip() + len(literal)
            return True
        return False

    def expect(self, literal: str) -> None:
        if not self.accept(literal):
            raise self.error(f"'{literal}'")

    # -- tokens ------------------------------------------------------------
    def ssa(self) -> str:
        return self._match(_SSA, "SSA value").group(0)

    def symbol(self) -> str:
        m = self._match(_SYMBOL, "symbol reference (e.g. @mesh0)")
        if m.group(1) is not None:
            return m.group(1)
        return m.group(2).encode().decode("unicode_escape")

    def integer(self) -> int:
        return int(self._match(_INT, "integer").group(0), 0)

    def identifier(self) -> str:
        return self._match(_IDENT, "identifier").group(0)

    def dimension_list(self) -> list[int | None]:
        """``2x?x4`` (possibly empty) as sizes with None for ``?``."""
        m = _DIM_LIST.match(self.text, self._after_skip())
        if not m:
            return []
        self.pos = m.end()
        return [None if d == "?" else int(d) for d in m.group(0).split("x")]

    def int_list(self, allow_dynamic: bool = False) -> list[int | None]:
        """``[1, 2]`` (``?`` allowed for dynamic entries if asked)."""
        self.expect("[")
        out: list[int | None] = []
        if self.accept("]"):
            return out
        while True:
            if allow_dynamic and self.accept("?"):
                out.append(None)
            else:
                out.append(self.integer())
            if self.accept("]"):
                return out
            self.expect(",")

    def index_list(self) -> list[int | str]:
        """``[1, %i, 2]``: integers and SSA value names."""
        self.expect("[")
        out: list[int | str] = []
        if self.accept("]"):
            return out
        while True:
            self.skip()
            if self.text.startswith("%", self.pos):
                out.append(self.ssa())
            else:
                out.append(self.integer())
            if self.accept("]"):
                return out
            self.expect(",")

    # -- delimited pieces handed to MLIR unread -----------------------------
    def balanced(self) -> int:
        """Moves past a bracketed group starting at the cursor; returns its end."""
        end = balanced_end(self.text, self.pos)
        if end < 0:
            raise ParseError(self.pos, "unbalanced brackets")
        self.pos = end
        return end

    def type(self) -> str:
        """The text of one type: ``tensor<2x?xf32>``, ``!mesh.sharding``, ``(i32) -> i32``."""
        self.skip()
        start = self.pos
        if self.text.startswith("(", start):
            self.balanced()
            save = self.pos
            if self.accept("->"):
                self.type()
            else:
                self.pos = save
            return self.text[start : self.pos]
        m = _TYPE_HEAD.match(self.text, start)
        if not m:
            raise self.error("type")
        self.pos = m.end()
        if self.text.startswith("<", self.pos):
            self.balanced()
        return self.text[start : self.pos]

    def type_list(self) -> list[str]:
        """One or more comma-separated types."""
        types = [self.type()]
        while self.accept(","):
            types.append(self.type())
        return types

    def attr_dict(self) -> str | None:
        """The inside of an optional ``{...}`` attribute dictionary, or None."""
        self.skip()
        if not self.text.startswith("{", self.pos):
            return None
        start = self.pos
        self.balanced()
        return self.text[start + 1 : self.pos - 1]


_INTERESTING = re.compile(r'->|["<>()\[\]{}]')
_STRING_END = re.compile(r'(?:[^"\\\n]|\\.)*"')


def balanced_end(text: str, pos: int) -> int:
    """The end of the bracketed group opening at ``pos``, or -1 if it does not close.

    Strings are skipped and the ``>`` of ``->`` closes nothing.  Only bracket
    characters are visited, so long types cost little.
    """
    stack: list[str] = []
    search = _INTERESTING.search
    while True:
        m = search(text, pos)
        if not m:
            return -1
        c = m.group(0)
        pos = m.end()
        if c == "->":
            continue
        if c == '"':
            s = _STRING_END.match(text, pos)
            if not s:
                return -1
            pos = s.end()
        elif c in _OPEN:
            stack.append(_OPEN[c])
        elif stack and c == stack[-1]:
            stack.pop()
            if not stack:
                return pos
        else:
            return -1


def _closed(piece: str) -> bool:
    arrows = piece.count("->")
    return (
        piece.count("<") == piece.count(">") - arrows
        and piece.count("(") == piece.count(")")
        and piece.count("[") == piece.count("]")
        and piece.count("{") == piece.count("}")
    )


def split_top_level(text: str, sep: str = ",") -> list[str]:
    """Splits ``text`` at ``sep`` outside brackets and strings; parts are stripped."""
    return list(_split_top_level(text, sep))


@functools.lru_cache(maxsize=4096)
def _split_top_level(text: str, sep: str) -> tuple[str, ...]:
    """split_top_level, remembered: attribute dicts and type lists repeat across ops."""
    return tuple(_split(text, sep))


def _split(text: str, sep: str) -> list[str]:
    if sep not in text:
        return [text.strip()] if text.strip() else []
    if '"' not in text:
        # Split everywhere, then glue pieces back until their brackets close.
        out, pending = [], None
        for piece in text.split(sep):
            pending = piece if pending is None else pending + sep + piece
            if _closed(pending):
                out.append(pending.strip())
                pending = None
        if pending is None:
            return [p for p in out if p]
    parts, depth, start, pos = [], 0, 0, 0
    pattern = _SPLIT_COMMA if sep == "," else re.compile(r'->|["<>()\[\]{}' + re.escape(sep) + "]")
    while True:
        m = pattern.search(text, pos)
        if not m:
            break
        c = m.group(0)
        pos = m.end()
        if c == '"':
            s = _STRING_END.match(text, pos)
            pos = s.end() if s else len(text)
        elif c == "->":
            continue
        elif c in _OPEN:
            depth += 1
        elif c == sep:
            if depth == 0:
                parts.append(text[start : m.start()].strip())
                start = pos
        else:
            depth -= 1
    tail = text[start:].strip()
    if tail:
        parts.append(tail)
    return parts


_SPLIT_COMMA = re.compile(r'->|["<>()\[\]{},]')
