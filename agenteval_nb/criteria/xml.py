"""XMLCriterion (SPEC §3.5): well-formedness of the actual text; ``expected`` is unused.

Order: ``ignore`` ⇒ match; custom compare ⇒ its verdict; empty ``matchStrategy`` ⇒ ``"xml
match strategy is empty"``; other than ``skip`` ⇒ ``"invalid match strategy <x>"``;
``valid`` false ⇒ match. With ``valid``: whitespace-only ⇒ ``"xml content is empty"``; then
the text is read token by token like Go's strict ``encoding/xml`` decoder, whose errors
propagate as ``"XML syntax error on line N: <msg>"`` (e.g. ``element <a> closed by </b>``,
``unexpected EOF``, ``invalid character entity &x;``); a second root ⇒ ``"xml content must
contain a single root element"``; non-space text at top level ⇒ ``"xml content has
non-whitespace text outside the root element"``; no element ⇒ ``"xml content must contain a
root element"``; elements still open at the end ⇒ ``"xml content has unclosed elements"``.
Prolog, comments, processing instructions, DOCTYPE and namespaces are accepted.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass

from ..schema import XMLCriterion
from .errors import Reason, fail, raise_if
from .gofmt import go_quote
from .hooks import NO_HOOKS, Hooks, hook_reason

_SPACE = " \r\n\t"
_NAME_PUNCT = "_:.-"
_ENTITIES = {"lt": "<", "gt": ">", "amp": "&", "apos": "'", "quot": '"'}


def validate_xml(criterion: XMLCriterion | None) -> str | None:
    """The strategy error of an active XML criterion, else ``None``."""
    if criterion is None or criterion.ignore or getattr(criterion, "compare_name", None):
        return None
    if not criterion.match_strategy:
        return "xml match strategy is empty"
    if criterion.match_strategy != "skip":
        return f"invalid match strategy {criterion.match_strategy}"
    return None


class _XMLError(Exception):
    """A well-formedness error; ``str`` is the reported text."""


class _EOF(Exception):
    """Input ended inside a construct."""


@dataclass(slots=True)
class _Start:
    space: str
    local: str
    attrs: list[tuple[str, str, str]]


@dataclass(slots=True)
class _End:
    space: str
    local: str


@dataclass(slots=True)
class _Text:
    data: str


def _name_byte(c: str) -> bool:
    return c.isascii() and (c.isalnum() or c in _NAME_PUNCT)


def _valid_name(name: str) -> bool:
    """XML name: first char a letter, ``_`` or ``:``; then letters, digits, ``.-_:`` marks."""
    if not name:
        return False
    first = name[0]
    if not (first.isalpha() or first in "_:"):
        return False
    for c in name[1:]:
        if c.isalnum() or c in _NAME_PUNCT or c == "\u00b7":
            continue
        if not c.isascii() and unicodedata.category(c) in ("Mn", "Mc", "Lm", "Nd"):
            continue
        return False
    return True


def _legal_char(c: str) -> bool:
    code = ord(c)
    return (
        code in (0x09, 0x0A, 0x0D)
        or 0x20 <= code <= 0xD7FF
        or 0xE000 <= code <= 0xFFFD
        or 0x10000 <= code <= 0x10FFFF
    )


def _split_name(name: str) -> tuple[str, str]:
    if name.count(":") != 1:
        return "", name
    space, _, local = name.partition(":")
    if not space or not local:
        return "", name
    return space, local


class _Scanner:
    """Go ``encoding/xml`` raw tokenizer in strict mode (only what well-formedness needs)."""

    def __init__(self, text: str) -> None:
        self.s = text
        self.n = len(text)
        self.i = 0
        self.pending_end: _End | None = None

    def syntax(self, message: str) -> _XMLError:
        line = self.s.count("\n", 0, self.i) + 1
        return _XMLError(f"XML syntax error on line {line}: {message}")

    def getc(self) -> str:
        if self.i >= self.n:
            raise _EOF
        c = self.s[self.i]
        self.i += 1
        return c

    def must(self) -> str:
        if self.i >= self.n:
            raise self.syntax("unexpected EOF")
        return self.getc()

    def skip_space(self) -> None:
        while self.i < self.n and self.s[self.i] in _SPACE:
            self.i += 1

    def read_name(self) -> str | None:
        """Name bytes as Go's ``readName`` takes them (validity checked by the caller)."""
        c = self.must()
        if not (_name_byte(c) or not c.isascii()):
            self.i -= 1
            return None
        start = self.i - 1
        while True:
            c = self.must()
            if c.isascii() and not _name_byte(c):
                self.i -= 1
                return self.s[start : self.i]

    def name(self) -> str | None:
        raw = self.read_name()
        if raw is None:
            return None
        if not _valid_name(raw):
            raise self.syntax(f"invalid XML name: {raw}")
        return raw

    def tokens(self) -> Iterator[_Start | _End | _Text | None]:
        """Start, end and text tokens; ``None`` stands for comments, PIs and directives."""
        while True:
            if self.pending_end is not None:
                end, self.pending_end = self.pending_end, None
                yield end
                continue
            if self.i >= self.n:
                return
            if self.s[self.i] != "<":
                yield _Text(self.text(quote=None, cdata=False))
                continue
            self.i += 1
            yield self.markup()

    def markup(self) -> _Start | _End | _Text | None:
        c = self.must()
        if c == "/":
            raw = self.name()
            if raw is None:
                raise self.syntax("expected element name after </")
            self.skip_space()
            if self.must() != ">":
                raise self.syntax(f"invalid characters between </{raw} and >")
            return _End(*_split_name(raw))
        if c == "?":
            self.processing_instruction()
            return None
        if c == "!":
            return self.bang()
        self.i -= 1
        return self.start_element()

    def processing_instruction(self) -> None:
        target = self.name()
        if target is None:
            raise self.syntax("expected target name after <?")
        self.skip_space()
        begin = self.i
        previous = ""
        while True:
            c = self.must()
            if previous == "?" and c == ">":
                break
            previous = c
        if target == "xml":
            content = self.s[begin : self.i - 2]
            version = _pi_param("version", content)
            if version and version != "1.0":
                raise _XMLError(
                    f"xml: unsupported version {go_quote(version)}; only version 1.0 is supported"
                )
            encoding = _pi_param("encoding", content)
            if encoding and encoding.lower() != "utf-8":
                raise _XMLError(
                    f"xml: encoding {go_quote(encoding)} declared but Decoder.CharsetReader is nil"
                )

    def bang(self) -> _Text | None:
        c = self.must()
        if c == "-":
            if self.must() != "-":
                raise self.syntax("invalid sequence <!- not part of <!--")
            b0 = b1 = ""
            while True:
                c = self.must()
                if b0 == "-" and b1 == "-":
                    if c != ">":
                        raise self.syntax('invalid sequence "--" not allowed in comments')
                    return None
                b0, b1 = b1, c
        if c == "[":
            for expected in "CDATA[":
                if self.must() != expected:
                    raise self.syntax("invalid <![ sequence")
            return _Text(self.text(quote=None, cdata=True))
        self.directive()
        return None

    def directive(self) -> None:
        quote = ""
        depth = 0
        while True:
            c = self.must()
            if not quote and c == ">" and depth == 0:
                return
            while True:  # Go's HandleB label: a byte may be re-examined once
                if quote and c == quote:
                    quote = ""
                elif quote:
                    pass
                elif c in "'\"":
                    quote = c
                elif c == ">":
                    depth -= 1
                elif c == "<":
                    again = self._directive_comment()
                    if again is not None:
                        depth += 1
                        c = again
                        continue
                break

    def _directive_comment(self) -> str | None:
        """After ``<`` inside a directive: skip a ``<!--...-->``; else the byte to re-handle."""
        for expected in "!--":
            c = self.must()
            if c != expected:
                return c
        b0 = b1 = ""
        while True:
            c = self.must()
            if b0 == "-" and b1 == "-" and c == ">":
                return None
            b0, b1 = b1, c

    def start_element(self) -> _Start:
        raw = self.name()
        if raw is None:
            raise self.syntax("expected element name after <")
        attrs: list[tuple[str, str, str]] = []
        while True:
            self.skip_space()
            c = self.must()
            if c == "/":
                if self.must() != ">":
                    raise self.syntax("expected /> in element")
                self.pending_end = _End(*_split_name(raw))
                break
            if c == ">":
                break
            self.i -= 1
            attr = self.name()
            if attr is None:
                raise self.syntax("expected attribute name in element")
            self.skip_space()
            if self.must() != "=":
                raise self.syntax("attribute name without = in element")
            self.skip_space()
            quote = self.must()
            if quote not in "'\"":
                raise self.syntax("unquoted or missing attribute value in element")
            value = self.text(quote=quote, cdata=False)
            attrs.append((*_split_name(attr), value))
        return _Start(*_split_name(raw), attrs)

    def text(self, quote: str | None, cdata: bool) -> str:
        """Character data up to ``<`` (or the quote / ``]]>``), entities resolved and checked."""
        out: list[str] = []
        b0 = b1 = ""
        while True:
            if self.i >= self.n:
                if cdata:
                    raise self.syntax("unexpected EOF in CDATA section")
                break
            c = self.getc()
            if quote is None and b0 == "]" and b1 == "]" and c == ">":
                if cdata:
                    del out[-2:]
                    break
                raise self.syntax("unescaped ]]> not in CDATA section")
            if c == "<" and not cdata:
                if quote is not None:
                    raise self.syntax("unescaped < inside quoted string")
                self.i -= 1
                break
            if quote is not None and c == quote:
                break
            if c == "&" and not cdata:
                out.append(self.entity())
                b0 = b1 = ""
                continue
            out.append(c)
            b0, b1 = b1, c
        data = "".join(out)
        for ch in data:
            if not _legal_char(ch):
                raise self.syntax(f"illegal character code U+{ord(ch):04X}")
        return data

    def entity(self) -> str:
        """After ``&``: the replacement text, or Go's ``invalid character entity`` error."""
        begin = self.i - 1
        c = self.must()
        if c == "#":
            c = self.must()
            hexadecimal = c == "x"
            if hexadecimal:
                c = self.must()
            digits_at = self.i - 1
            allowed = "0123456789abcdefABCDEF" if hexadecimal else "0123456789"
            while c in allowed:
                c = self.must()
            if c == ";":
                digits = self.s[digits_at : self.i - 1]
                if digits:
                    code = int(digits, 16 if hexadecimal else 10)
                    if code <= 0x10FFFF:
                        return "\ufffd" if 0xD800 <= code <= 0xDFFF else chr(code)
            else:
                self.i -= 1
        else:
            self.i -= 1
            self.read_name()
            c = self.must()
            if c == ";":
                name = self.s[begin + 1 : self.i - 1]
                if name in _ENTITIES and _valid_name(name):
                    return _ENTITIES[name]
            else:
                self.i -= 1
        shown = self.s[begin : self.i]
        if not shown.endswith(";"):
            shown += " (no semicolon)"
        raise self.syntax(f"invalid character entity {shown}")


def _pi_param(param: str, content: str) -> str:
    """Go's ``procInst``: the quoted value after ``param=``, or ``""``."""
    key = param + "="
    i = 0
    sep = ""
    while i < len(content):
        rest = content[i:]
        k = rest.find(key)
        if k < 0 or len(key) + k >= len(rest):
            return ""
        i += len(key) + k + 1
        c = rest[len(key) + k]
        if c in "'\"":
            sep = c
            break
    if not sep:
        return ""
    j = content.find(sep, i)
    return "" if j < 0 else content[i:j]


def well_formed_error(content: str) -> str | None:
    """``None`` for a well-formed single-root document, else the error text."""
    if not content.strip():
        return "xml content is empty"
    scanner = _Scanner(content)
    open_elements: list[tuple[str, str]] = []
    bindings: list[dict[str, str]] = [{}]
    roots = 0
    try:
        for token in scanner.tokens():
            if isinstance(token, _Start):
                scope = dict(bindings[-1])
                for space, local, value in token.attrs:
                    if space == "xmlns":
                        scope[local] = value
                    elif not space and local == "xmlns":
                        scope[""] = value
                bindings.append(scope)
                if not open_elements:
                    roots += 1
                    if roots > 1:
                        return "xml content must contain a single root element"
                open_elements.append((scope.get(token.space, token.space), token.local))
            elif isinstance(token, _End):
                if not open_elements:
                    raise scanner.syntax(f"unexpected end element </{token.local}>")
                space, local = open_elements[-1]
                if local != token.local:
                    raise scanner.syntax(f"element <{local}> closed by </{token.local}>")
                end_space = bindings[-1].get(token.space, token.space)
                if space != end_space:
                    shown = end_space or '""'
                    raise scanner.syntax(
                        f"element <{local}> in space {space} closed by </{token.local}> "
                        f"in space {shown}"
                    )
                open_elements.pop()
                bindings.pop()
            elif isinstance(token, _Text) and not open_elements and token.data.strip():
                return "xml content has non-whitespace text outside the root element"
    except _XMLError as exc:
        return str(exc)
    except _EOF:
        return scanner.syntax("unexpected EOF").args[0]
    if roots == 0:
        return "xml content must contain a root element"
    if open_elements:
        return "xml content has unclosed elements"
    return None


def xml_reason(
    criterion: XMLCriterion, actual: str, expected: str, hooks: Hooks = NO_HOOKS
) -> Reason | None:
    """``None`` on a match, else the deferred mismatch text."""
    if criterion.ignore:
        return None
    compare_name = getattr(criterion, "compare_name", None)
    fn = hooks.compare_fn(compare_name) if isinstance(compare_name, str) else None
    if fn is not None:
        return hook_reason(fn, actual, expected)
    error = validate_xml(criterion)
    if error is not None:
        return fail(error)
    if not criterion.valid:
        return None
    error = well_formed_error(actual or "")
    return None if error is None else fail(error)


def match_xml(criterion: XMLCriterion, actual: str, expected: str, hooks: Hooks = NO_HOOKS) -> None:
    """Raise :class:`~.errors.MatchError` unless ``actual`` passes the XML criterion."""
    raise_if(xml_reason(criterion, actual, expected, hooks))
