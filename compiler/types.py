"""Attribute and parameter types: parsing type expressions and checking values against them."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from cardc import syntax as s
from cardc.diagnostics import DiagnosticSink, Span, did_you_mean
from cardc.model import TypeExpr

# Types with no arguments, and what a value of each looks like (for messages).
SCALAR_TYPES: dict[str, str] = {
    "int": "a whole number like 5",
    "number": "a number like 5 or 1.5",
    "modifier": "a signed modifier like +1 or -2",
    "range": "a range like 3..4 (or a single number)",
    "dice": "dice like 2d6 or d6",
    "bool": "true or false",
    "text": 'a localized text like { cs "..." en "..." }',
    "string": 'a string in double quotes',
    "path": 'a file path in double quotes, inside the content folder',
    "icon": "an icon like :sword:",
    "ident": "a name",
    "type": "a type like int or list(ref(item))",
    "any": "any value",
}
COMPOUND_TYPES = {"list": 1, "ref": None, "enum": None}

_TOKEN_RE = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*|[(),])")


def parse_type_string(text: str) -> TypeExpr:
    """Parse a type written in the catalogue, such as `list(ref(item))`."""
    tokens = _TOKEN_RE.findall(text)
    pos = 0

    def parse() -> TypeExpr:
        nonlocal pos
        name = tokens[pos]
        pos += 1
        args: list[TypeExpr | str] = []
        if pos < len(tokens) and tokens[pos] == "(":
            pos += 1
            while tokens[pos] != ")":
                if name in ("ref", "enum"):
                    args.append(tokens[pos])
                    pos += 1
                else:
                    args.append(parse())
                if tokens[pos] == ",":
                    pos += 1
            pos += 1
        return TypeExpr(name, tuple(args))

    result = parse()
    if pos != len(tokens):
        raise ValueError(f"trailing text in type {text!r}")
    return result


def type_from_value(value: s.Value, sink: DiagnosticSink) -> TypeExpr | None:
    """A type written in the DSL (`type: list(ref(item))`), checked for shape."""
    if not isinstance(value, s.CallV):
        sink.error("E210", "a type must be a name such as `int` or `list(ref(item))`", value.span,
                   f"known types: {', '.join(sorted([*SCALAR_TYPES, *COMPOUND_TYPES]))}")
        return None
    name = value.name
    if name in SCALAR_TYPES:
        if value.args:
            sink.error("E210", f"type `{name}` takes no arguments", value.span)
            return None
        return TypeExpr(name)
    if name not in COMPOUND_TYPES:
        sink.error("E210", f"unknown type `{name}`", value.span,
                   did_you_mean(name, [*SCALAR_TYPES, *COMPOUND_TYPES]))
        return None
    args = value.args or ()
    if not args:
        sink.error("E210", f"type `{name}` needs arguments, e.g. `{name}(...)`", value.span)
        return None
    if name == "list":
        if len(args) != 1:
            sink.error("E210", "type `list` takes exactly one element type", value.span)
            return None
        inner = type_from_value(args[0].value, sink)
        return TypeExpr("list", (inner,)) if inner else None
    names: list[str] = []
    for a in args:
        if not (isinstance(a.value, s.CallV) and a.value.is_bare):
            sink.error("E210", f"the arguments of `{name}` are plain names", a.span)
            return None
        names.append(a.value.name)
    return TypeExpr(name, tuple(names))


@dataclass
class ValueContext:
    """What checking a value needs to know about its surroundings."""

    sink: DiagnosticSink
    languages: tuple[str, ...]  # required translations
    known_languages: tuple[str, ...]  # every language the game declares
    content_root: Path
    file_dir: Path
    resolve_ref: Callable[[str, tuple[str, ...], Span], None]
    provisional: list[tuple[str, str]]
    where: str = ""


def describe(value: s.Value) -> str:
    return {
        s.IntV: "a number",
        s.SignedV: "a modifier",
        s.DecimalV: "a decimal number",
        s.RangeV: "a range",
        s.DiceV: "dice",
        s.StrV: "a string",
        s.IconV: "an icon",
        s.BoolV: "a boolean",
        s.LocalizedV: "a localized text",
        s.ListV: "a list",
        s.CallV: "a name",
        s.UnknownV: "`unknown`",
        s.ProvisionalV: "a provisional value",
    }[type(value)]


def _expectation(t: TypeExpr) -> str:
    if t.name in SCALAR_TYPES:
        return SCALAR_TYPES[t.name]
    if t.name == "list":
        return f"a list [...] of {_expectation(t.args[0])}"  # type: ignore[arg-type]
    if t.name == "ref":
        kinds = " or ".join(str(a) for a in t.args)
        return f"a reference to {'an' if kinds[:1] in tuple('aeiou') else 'a'} {kinds}"
    return f"one of {', '.join(str(a) for a in t.args)}"


def check_value(value: s.Value, t: TypeExpr, ctx: ValueContext) -> None:
    """Report every way `value` fails to be a `t`; record provisional values."""
    sink = ctx.sink
    if isinstance(value, s.UnknownV):
        note = value.note or "value not known yet"
        ctx.provisional.append((ctx.where, note))
        sink.warning("W500", f"`{ctx.where}` is unknown: {note}", value.span,
                     "replace `unknown` with the confirmed value once it is known")
        return
    if isinstance(value, s.ProvisionalV):
        ctx.provisional.append((ctx.where, value.note))
        sink.warning("W500", f"`{ctx.where}` is provisional: {value.note}", value.span,
                     "drop `provisional` once the value is confirmed")
        check_value(value.value, t, ctx)
        return
    name = t.name
    ok = True
    if name == "any":
        return
    if name == "int":
        ok = isinstance(value, s.IntV)
    elif name == "number":
        ok = isinstance(value, s.IntV | s.DecimalV)
    elif name == "modifier":
        ok = isinstance(value, s.SignedV) or (isinstance(value, s.IntV) and value.value == 0)
    elif name == "range":
        ok = isinstance(value, s.RangeV | s.IntV)
        if isinstance(value, s.RangeV) and value.lo > value.hi:
            sink.error("E203", f"range {value.lo}..{value.hi} is empty", value.span,
                       f"write the smaller bound first: {value.hi}..{value.lo}")
            return
    elif name == "dice":
        ok = isinstance(value, s.DiceV)
    elif name == "bool":
        ok = isinstance(value, s.BoolV)
    elif name in ("string", "path"):
        ok = isinstance(value, s.StrV)
        if ok and name == "path":
            _check_path(value, ctx)  # type: ignore[arg-type]
    elif name == "icon":
        ok = isinstance(value, s.IconV)
    elif name == "ident":
        ok = isinstance(value, s.CallV) and value.is_bare
    elif name == "type":
        ok = isinstance(value, s.CallV)
    elif name == "text":
        ok = isinstance(value, s.LocalizedV)
        if ok:
            check_translations(value, ctx)  # type: ignore[arg-type]
    elif name == "list":
        ok = isinstance(value, s.ListV)
        if ok:
            inner = t.args[0]
            assert isinstance(inner, TypeExpr)
            for item in value.items:  # type: ignore[union-attr]
                check_value(item, inner, ctx)
    elif name == "enum":
        ok = isinstance(value, s.CallV) and value.is_bare
        if ok and value.name not in t.args:  # type: ignore[union-attr]
            sink.error("E209", f"`{value.name}` is not one of {', '.join(str(a) for a in t.args)}",  # type: ignore[union-attr]
                       value.span, did_you_mean(value.name, [str(a) for a in t.args]))  # type: ignore[union-attr]
            return
    elif name == "ref":
        ok = isinstance(value, s.CallV) and value.is_bare
        if ok:
            ctx.resolve_ref(value.name, tuple(str(a) for a in t.args), value.span)  # type: ignore[union-attr]
    if not ok:
        sink.error("E203", f"`{ctx.where}` expects {_expectation(t)}, not {describe(value)}", value.span,
                   _type_hint(value, t))


def _type_hint(value: s.Value, t: TypeExpr) -> str | None:
    if t.name == "modifier" and isinstance(value, s.IntV):
        return f"write the sign: +{value.value}"
    if t.name in ("int", "number", "range") and isinstance(value, s.SignedV) and value.value >= 0:
        return f"a plain number has no sign: {value.value}"
    if t.name in ("int", "number", "range") and isinstance(value, s.StrV) and value.value.strip().isdigit():
        return f"numbers are written without quotes: {value.value.strip()}"
    if t.name == "text" and isinstance(value, s.StrV):
        return f'give every language: {{ en "{value.value}" ... }}'
    if t.name == "list" and not isinstance(value, s.ListV):
        return "put the value in square brackets: [ ... ]"
    if t.name in ("ref", "enum", "ident") and isinstance(value, s.StrV):
        return "names are written without quotes"
    return None


def check_translations(value: s.LocalizedV, ctx: ValueContext) -> None:
    seen: set[str] = set()
    for entry in value.entries:
        if not ctx.known_languages:
            pass  # the game declares no languages: reported once, at the game
        elif entry.lang not in ctx.known_languages:
            ctx.sink.error("E401", f"language `{entry.lang}` is not declared by this game", entry.span,
                           did_you_mean(entry.lang, ctx.known_languages)
                           or f"declared: {', '.join(ctx.known_languages)}")
        elif entry.lang in seen:
            ctx.sink.error("E205", f"language `{entry.lang}` given twice in `{ctx.where}`", entry.span)
        seen.add(entry.lang)
    missing = [lang for lang in ctx.languages if lang not in seen]
    if missing:
        ctx.sink.error("E400", f"`{ctx.where}` is missing the {', '.join(missing)} translation"
                       f"{'s' if len(missing) > 1 else ''}", value.span,
                       f"this module is written in {', '.join(ctx.languages)}")


IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".tif", ".tiff")
MAX_IMAGE_PIXELS = 100_000_000  # 10,000 x 10,000: far beyond any printed card at 1,200 dpi


def _check_path(value: s.StrV, ctx: ValueContext) -> None:
    try:
        target = (ctx.file_dir / value.value).resolve()  # symlinks resolved: the real file must be inside
        found = target.is_file()
    except (OSError, ValueError) as err:  # a name too long for the file system
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        ctx.sink.error("E115", f"file `{value.value}` cannot be opened: {reason}", value.span)
        return
    root = ctx.content_root.resolve()
    if root != target and root not in target.parents:
        from cardc.loader import display_path

        ctx.sink.error("E114", f"path `{value.value}` is outside the content folder", value.span,
                       f"keep images and files under {display_path(root)}")
    elif not found:
        ctx.sink.error("E115", f"file `{value.value}` does not exist", value.span,
                       "paths are relative to the file that names them")
    elif target.suffix.lower() in IMAGE_SUFFIXES:
        problem = image_problem(target)
        if problem:
            ctx.sink.error("E115", f"image `{value.value}` {problem}", value.span,
                           "save it again as PNG or JPEG from an image editor")


def image_problem(path: Path) -> str | None:
    """Why `path` is not an image the backends can use, or None; reads the header and checks the pixels."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path) as img:
            w, h = img.size
            if w < 1 or h < 1 or w * h > MAX_IMAGE_PIXELS:
                return f"is {w}x{h} pixels (at most {MAX_IMAGE_PIXELS:,} pixels)"
            img.verify()
    except (UnidentifiedImageError, Image.DecompressionBombError):
        return "is not an image that can be read"
    except (OSError, ValueError, SyntaxError) as err:  # truncated or corrupt data (Pillow raises these)
        return f"cannot be read as an image ({err})"
    return None
