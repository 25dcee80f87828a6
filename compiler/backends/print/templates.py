"""Card templates: Jinja2 (always sandboxed) renders a short list of drawing elements per card face.

A template writes one element per line, `text rules x=4 y=50 w=55 h=30 size=8 text={{ card.text }}`,
in millimetres from the top-left of the card's trim box (y down). Every `{{ ... }}` value is written
as a JSON literal, so card data can never break out of its value: a name like `"; x=1` or `{{ x }}`
stays one string. Lookup order for kind K of game G: `content/G/templates/K.j2` for K and each of
its ancestors, then the bundled `templates/K.j2` likewise, then the bundled `card.j2` (and
`K.back.j2` ... `card.back.j2` for backs).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from json.encoder import encode_basestring
from pathlib import Path
from typing import Any

import jinja2
from cardc.jinjacache import CompiledTemplates
from jinja2.exceptions import SecurityError
from jinja2.sandbox import SandboxedEnvironment

BUNDLED = Path(__file__).resolve().parent / "templates"
# the C function behind `json.loads` for one string literal (not in typeshed's stub)
_scanstring: Callable[[str, int], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]

ELEMENTS = {
    "fill": (),
    "rect": ("x", "y", "w", "h"),
    "circle": ("cx", "cy", "r"),
    "line": ("x1", "y1", "x2", "y2"),
    "text": ("x", "y", "w", "h"),
    "art": ("x", "y", "w", "h"),
    "icon": ("x", "y", "size"),
}
NUMERIC = {"x", "y", "w", "h", "cx", "cy", "r", "x1", "y1", "x2", "y2", "size", "min", "radius", "width"}
POSITIVE = {"size", "min"}  # a font size of 0 divides by zero when the text is fitted

_HEAD = re.compile(r"\s*([a-z]+)(?:\s+([A-Za-z_][\w-]*)(?=\s|$))?")
_PAIR = re.compile(r"\s+([a-z_][a-z0-9_]*)=(\"(?:[^\"\\]|\\.)*\"|[^\s\"]+)")


class TemplateError(Exception):
    """A template that fails to render or draws a malformed element; the message says which line."""


@dataclass(frozen=True, slots=True)
class Element:
    kind: str
    name: str
    props: dict[str, object]

    def num(self, key: str, default: float = 0.0) -> float:
        v = self.props.get(key, default)
        return float(v) if isinstance(v, int | float) else default

    def str(self, key: str, default: str = "") -> str:
        v = self.props.get(key, default)
        return v if isinstance(v, str) else default


def _finalize(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return f"{value:.3f}".rstrip("0").rstrip(".") or "0"
    if isinstance(value, jinja2.Undefined):
        if getattr(value, "_undefined_exception", None) is SecurityError:
            value._fail_with_undefined_error()  # report sandbox violations instead of printing nothing
        return '""'
    if value is None:
        return '""'
    # `json.dumps(str(value), ensure_ascii=False)` without its encoder set-up (a tenth of the cost, every value)
    return encode_basestring(str(value))


# A designer's template is code run on every card: it gets a budget, so a loop or a product that would run for
# hours or fill the memory is a template error (E601) instead.
MAX_LOOP = 10_000  # items of every `range()` of one card face together
MAX_OUTPUT = 200_000  # characters one card face may render to
MAX_NUMBER = 10_000  # mm: any coordinate or size beyond is a mistake


class _InsideLoader(jinja2.FileSystemLoader):
    """Loads templates (and their includes) only from inside the template folders, symlinks resolved."""

    def get_source(self, environment: jinja2.Environment, template: str) -> tuple[str, str, Callable[[], bool]]:
        source, filename, uptodate = super().get_source(environment, template)
        real = Path(filename).resolve()
        if not any(real.is_relative_to(Path(d).resolve()) for d in self.searchpath):
            raise jinja2.TemplateError(f"template `{template}` leads outside the templates folder (a symlink?)")
        return source, filename, uptodate


_DICT_ATTRIBUTES = frozenset(dir(dict))


class _BudgetSandbox(SandboxedEnvironment):
    """The sandbox, with `*` and `**` checked: `"x" * 10**9` would otherwise take all the memory."""

    intercepted_binops = frozenset(["*", "**"])

    def getattr(self, obj: Any, attribute: str) -> Any:
        """`card.name` on the plain dicts a card's context is made of, as the sandbox reads it (a dict has no such
        attribute, so it is the item) without first failing to find the attribute: about 30 look-ups a face,
        each an exception. Names a dict has (`items`, dunders) and every other object take the sandbox's way."""
        if type(obj) is dict and attribute not in _DICT_ATTRIBUTES:
            try:
                return obj[attribute]
            except KeyError:
                return self.undefined(obj=obj, name=attribute)
        return super().getattr(obj, attribute)

    def call_binop(self, context: jinja2.runtime.Context, operator: str, left: Any, right: Any) -> Any:
        if operator == "**" and isinstance(right, int | float) and abs(right) > 64:
            raise TemplateError(f"`** {right}`: exponents go up to 64")
        if operator == "*":
            for seq, n in ((left, right), (right, left)):
                if isinstance(seq, str | list | tuple) and isinstance(n, int) and len(seq) * n > MAX_OUTPUT:
                    raise TemplateError(f"a text or list repeated {n} times is too long")
        return super().call_binop(context, operator, left, right)


# every game's environment has the options below: a template is compiled once for all of them (and kept on disk)
_COMPILED = CompiledTemplates("print-card-templates")


class Templates:
    """The template set of one game: the designer's folder (if any) over the bundled templates."""

    def __init__(self, user_dir: Path | None) -> None:
        dirs = [str(d) for d in (user_dir, BUNDLED) if d is not None and d.is_dir()]
        self.env = _BudgetSandbox(loader=_InsideLoader(dirs), finalize=_finalize,
                                  undefined=jinja2.ChainableUndefined, autoescape=False,
                                  trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
                                  bytecode_cache=_COMPILED)
        self.env.globals["range"] = self._range
        self._loop_budget = MAX_LOOP
        self.user_dir = user_dir if user_dir is not None and user_dir.is_dir() else None
        self._choice: dict[tuple[tuple[str, ...], str], jinja2.Template] = {}

    def _range(self, *args: int) -> range:
        items = range(*args)
        self._loop_budget -= len(items)
        if self._loop_budget < 0:
            raise TemplateError(f"loops of more than {MAX_LOOP:,} steps in all (`range` used too much)")
        return items

    def template_for(self, kinds: tuple[str, ...], side: str) -> jinja2.Template:
        key = (kinds, side)
        tpl = self._choice.get(key)
        if tpl is None:
            suffix = ".j2" if side == "front" else ".back.j2"
            names = [f"{k}{suffix}" for k in kinds] + [f"card{suffix}"]
            try:
                tpl = self.env.select_template(names)
            except jinja2.TemplateSyntaxError as e:
                raise TemplateError(f"{e.filename or e.name}:{e.lineno}: {e.message}") from e
            except jinja2.TemplateError as e:
                raise TemplateError(str(e)) from e
            self._choice[key] = tpl
        return tpl

    def render(self, kinds: tuple[str, ...], side: str, context: dict[str, object]) -> tuple[str, str]:
        """The element text for one card face, and the template's name (for messages)."""
        tpl = self.template_for(kinds, side)
        self._loop_budget = MAX_LOOP
        try:
            chunks, size = [], 0
            for chunk in tpl.generate(context):
                size += len(chunk)
                if size > MAX_OUTPUT:
                    raise TemplateError(f"{tpl.name}: renders more than {MAX_OUTPUT:,} characters for one face")
                chunks.append(chunk)
            return "".join(chunks), tpl.name or "?"
        except TemplateError:
            raise
        except jinja2.TemplateError as e:
            raise TemplateError(f"{tpl.name}: {e}") from e
        except (TypeError, ValueError, ArithmeticError, AttributeError, KeyError) as e:
            raise TemplateError(f"{tpl.name}: {type(e).__name__}: {e}") from e


# Output lines read so far -> their element: the faces of a kind repeat most lines (frames, labels, boxes) and
# an Element is never changed once made, so faces share them. Only lines that parsed are kept.
_LINES: dict[str, Element] = {}
LINES_KEPT = 16384  # (past it, the cache starts again)


@lru_cache(maxsize=4096)
def parse_elements(text: str, template: str) -> tuple[Element, ...]:
    """The elements a rendered template describes; a malformed line raises TemplateError."""
    out = []
    for lineno, line in enumerate(text.split("\n"), 1):  # (not `splitlines`: U+2028 may be inside a value)
        el = _LINES.get(line)
        if el is None:
            stripped = line.strip()
            if not stripped or stripped.startswith("#"):
                continue
            el = _parse_line(line, stripped, template, lineno)
            if len(_LINES) >= LINES_KEPT:
                _LINES.clear()
            _LINES[line] = el
        out.append(el)
    return tuple(out)


def _parse_line(line: str, stripped: str, template: str, lineno: int) -> Element:
    head = _HEAD.match(line)
    if head is None or head[1] not in ELEMENTS:
        raise TemplateError(f"{template}: output line {lineno}: unknown element `{stripped.split()[0]}`"
                            f" (known: {', '.join(sorted(ELEMENTS))})")
    kind, name = head[1], head[2] or ""
    props: dict[str, object] = {}
    pos = head.end()
    while pos < len(line):
        m = _PAIR.match(line, pos)
        if m is None:
            if not line[pos:].strip():
                break
            raise TemplateError(f"{template}: output line {lineno}: cannot read `{line[pos:].strip()[:40]}`"
                                " (expected key=value)")
        props[m[1]] = _value(m[1], m[2], template, lineno)
        pos = m.end()
    for key in ELEMENTS[kind]:
        if not isinstance(props.get(key), int | float):
            raise TemplateError(f"{template}: output line {lineno}: `{kind}` needs a number `{key}=`")
    return Element(kind, name, props)


def _value(key: str, raw: str, template: str, lineno: int) -> object:
    if raw.startswith('"'):
        try:
            value, end = _scanstring(raw, 1)  # `json.loads(raw)` for a quoted string, without the decoder set-up
            if end != len(raw):  # (the pattern ends a string at its closing quote)
                raise json.JSONDecodeError("extra data", raw, end)
        except json.JSONDecodeError as e:
            raise TemplateError(f"{template}: output line {lineno}: bad string for `{key}`") from e
    else:
        value = raw
    if key in NUMERIC:
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise TemplateError(f"{template}: output line {lineno}: `{key}` must be a number, not {raw!r}") from None
        if not math.isfinite(number) or abs(number) > MAX_NUMBER:
            raise TemplateError(f"{template}: output line {lineno}: `{key}={raw}` is not a number from "
                                f"-{MAX_NUMBER:,} to {MAX_NUMBER:,}")
        if key in POSITIVE and number <= 0:
            raise TemplateError(f"{template}: output line {lineno}: `{key}` must be more than 0, not {raw}")
        return number
    return value
