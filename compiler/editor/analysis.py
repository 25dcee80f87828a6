"""One checked content folder as an editor sees it: diagnostics, where every id is declared and used,
hover texts, completions and an outline.

Built from the same front end as `cardc check` (so the same diagnostics), with the editor's unsaved
buffers read instead of the disk. Positions here are 0-based lines and code-point columns; the language
server converts them to what the client counts.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from cardc import model as m
from cardc import syntax as s
from cardc.catalogue import Catalogue, Verb, default_catalogue
from cardc.diagnostics import Span
from cardc.editor.context import Frame, Place, Token, cursor_context, tokenize, word_at
from cardc.frontend import FrontEndResult, compile_paths
from cardc.irvisit import syntax_calls
from cardc.loader import display_path, find_content_root
from cardc.lower import ATTR_DEF_ATTRS, BUILTIN_ATTRS, EXPANSION_ATTRS, GAME_ATTRS, KIND_ATTRS, VARIANT_KIND
from cardc.spanmap import line_starts
from cardc.types import COMPOUND_TYPES, SCALAR_TYPES, parse_type_string

# What the built-in attributes of every entity mean (their types come from the lowering's table).
BUILTIN_DOCS = {
    "name": "The entity's name, one text per language.",
    "text": "The card or rules text, one per language; generated from the effects where left out.",
    "copies": "How many physical copies the game has (physical kinds only).",
    "tags": "Free-form labels for filtering and grouping.",
    "source": "Where the fact comes from (a seed file and section).",
    "variant": "The variant this entity belongs to: it applies only while that variant is switched on.",
    "image": "A picture for the card face, a path inside the content folder.",
    "note": "A designer's note; shown in the reference, never on a card.",
}
KEYWORDS_TOP = ("module", "import", "game", "expansion", "kind", "errata")
KEYWORDS_STATEMENT = ("may", "choose", "if")
_MODULE_RE = re.compile(r"^\s*module\s+([A-Za-z_][A-Za-z0-9_]*)", re.M)


@dataclass(frozen=True, slots=True)
class Target:
    """What a name stands for: an entity or a kind of one game."""

    what: str  # entity | kind
    game: str
    id: str


@dataclass(frozen=True, slots=True)
class Occurrence:
    target: Target
    span: Span
    definition: bool


@dataclass(frozen=True, slots=True)
class Completion:
    label: str
    kind: str  # keyword | verb | kind | attribute | parameter | entity | value | language | module
    detail: str = ""
    doc: str = ""
    insert: str | None = None


@dataclass(frozen=True, slots=True)
class Outline:
    """A document symbol: a declaration or a rule, with the range of its whole body."""

    name: str
    detail: str
    kind: str  # game | expansion | kind | attr | entity | rule
    span: Span  # the whole declaration
    selection: Span  # its id
    children: tuple[Outline, ...] = ()


@dataclass
class Analysis:
    root: Path
    result: FrontEndResult
    catalogue: Catalogue
    occurrences: dict[str, list[Occurrence]] = field(default_factory=dict)  # display path -> sorted
    kind_docs: dict[tuple[str, str], str] = field(default_factory=dict)

    @property
    def project(self) -> m.Project:
        return self.result.project

    # ---- files -------------------------------------------------------------------

    def path_of(self, display: str) -> Path:
        """The real path of a file as diagnostics name it (display paths are relative to the working folder)."""
        return Path(os.path.normpath(Path.cwd() / display))

    def tree(self, display: str) -> s.FileS | None:
        return next((f for f in self.result.files if f.path == display), None)

    def game_of(self, text: str) -> str:
        """The game a file belongs to, from its `module` line (read from the text: it may not parse)."""
        match = _MODULE_RE.search(text)
        if match:
            return match.group(1)
        return next(iter(sorted(self.project.games)), "")

    # ---- definitions and references ------------------------------------------------

    def occurrence_at(self, display: str, line: int, col: int) -> Occurrence | None:
        """The id occurrence at a 0-based line and column."""
        for occ in self.occurrences.get(display, ()):
            sp = occ.span
            end = sp.end_col if sp.end_line == sp.line and sp.end_col > sp.col else sp.col + len(occ.target.id)
            if sp.line - 1 == line and sp.col - 1 <= col <= end - 1:
                return occ
        return None

    def target_at(self, display: str, text: str, offset: int, line: int, col: int) -> Target | None:
        """What the name under the cursor stands for: from the index, else by looking its word up."""
        occ = self.occurrence_at(display, line, col)
        if occ is not None:
            return occ.target
        tok = word_at(text, offset)
        if tok is None:
            return None
        game = self.game_of(text)
        if self.project.entity(game, tok.text) is not None:
            return Target("entity", game, tok.text)
        if (game, tok.text) in self.project.kinds:
            return Target("kind", game, tok.text)
        return None

    def definition(self, target: Target) -> Occurrence | None:
        if target.what == "entity":
            e = self.project.entity(target.game, target.id)
            return Occurrence(target, e.span, True) if e is not None else None
        k = self.project.kinds.get((target.game, target.id))
        return Occurrence(target, k.span, True) if k is not None else None

    def references(self, target: Target, include_definition: bool = True) -> list[Occurrence]:
        return [o for occs in self.occurrences.values() for o in occs
                if o.target == target and (include_definition or not o.definition)]

    # ---- hover -----------------------------------------------------------------------

    def hover(self, display: str, text: str, offset: int, line: int, col: int) -> tuple[str, Token] | None:
        """Markdown for the word under the cursor, and the word."""
        tok = word_at(text, offset)
        if tok is None:
            return None
        game = self.game_of(text)
        ctx = cursor_context(text, tok.end)
        after = text[tok.end:].lstrip(" \t")
        word = tok.text
        doc: str | None = None
        if after.startswith(":") and not after.startswith("::"):
            doc = self._hover_attribute(game, ctx.frames, word)
        if doc is None and ctx.place in (Place.TRIGGER, Place.CONDITION, Place.STATEMENT, Place.ACTION):
            verb = self.catalogue.verbs.get(word)
            doc = _verb_doc(verb) if verb is not None else None
        if doc is None:
            target = self.target_at(display, text, offset, line, col)
            if target is not None:
                doc = self._entity_doc(target) if target.what == "entity" else self._kind_doc(game, target.id)
        if doc is None and ctx.place is Place.VALUE:
            t = self._value_type(game, ctx.frames, ctx.attr, ctx.verb, ctx.param)
            if t is not None and t.name == "enum" and word in [str(a) for a in t.args]:
                doc = f"`{word}`: one of `{t}`"
        if doc is None and word in self.catalogue.verbs:
            doc = _verb_doc(self.catalogue.verbs[word])
        if doc is None and (game, word) in self.project.kinds:
            doc = self._kind_doc(game, word)
        return (doc, tok) if doc else None

    def _hover_attribute(self, game: str, frames: list[Frame], word: str) -> str | None:
        frame = frames[-1] if frames else None
        if frame is not None and frame.role == "call":
            verb = self.catalogue.verbs.get(frame.kind)
            p = verb.param(word) if verb is not None else None
            if p is None:
                return None
            default = "" if p.required else f" = {p.default}"
            return f"**{word}**: `{p.type}`{default} — parameter of `{frame.kind}`\n\n{p.doc}".rstrip()
        decl = next((f for f in reversed(frames) if f.role == "decl"), None)
        if decl is None:
            return None
        table = _builtin_table(decl.kind)
        if table is not None:
            if word not in table:
                return None
            return f"**{word}**: `{table[word]}` — attribute of every `{decl.kind}`"
        kind = self.project.kinds.get((game, decl.kind))
        if kind is not None and word in kind.attrs:
            a = kind.attrs[word]
            req = " (required)" if a.required else (f" = {_show(a.default)}" if a.default is not None else "")
            where = f"`{decl.kind}`" if a.span.file == "<builtin>" else f"`{decl.kind}` ({_where(a.span)})"
            return f"**{word}**: `{a.type}`{req} — attribute of {where}\n\n{a.doc or ''}".rstrip()
        if word in BUILTIN_ATTRS:
            t, required = BUILTIN_ATTRS[word]
            return (f"**{word}**: `{t}`{' (required)' if required else ''} — built-in attribute of every entity"
                    f"\n\n{BUILTIN_DOCS.get(word, '')}").rstrip()
        return None

    def _entity_doc(self, target: Target) -> str | None:
        e = self.project.entity(target.game, target.id)
        if e is None:
            return None
        lang = self._lang(e.game)
        name = e.name.get(lang) or next(iter(e.name.as_dict().values()), e.id)
        out = [f"**{e.id}** — {e.kind} “{name}”", "",
               f"{'module ' + e.module if e.module != 'base' else 'base game'} of `{e.game}`, {_where(e.span)}"]
        if e.text is not None and e.text.get(lang):
            out += ["", str(e.text.get(lang))]
        if e.effects:
            out += ["", "on " + ", ".join(fx.trigger.verb for fx in e.effects)]
        return "\n".join(out)

    def _kind_doc(self, game: str, kind_id: str) -> str | None:
        k = self.project.kinds.get((game, kind_id))
        if k is None:
            return None
        lang = self._lang(game)
        name = k.name.get(lang) if k.name is not None else None
        head = f"**{k.id}** — kind" + (f" “{name}”" if name else "") + (f", extends `{k.parent}`" if k.parent else "")
        out = [head, "", f"game `{game}`, {_where(k.span)}"
               + (f"; physical, {k.copies} cop{'y' if k.copies == 1 else 'ies'}" if k.physical else "")
               + (f", size `{k.size}`" if k.size else "")]
        doc = self.kind_docs.get((game, kind_id))
        if doc:
            out += ["", doc]
        if k.attrs:
            out += ["", "Attributes:"]
            for a in k.attrs.values():
                req = " (required)" if a.required else (f" = {_show(a.default)}" if a.default is not None else "")
                out.append(f"- `{a.name}`: `{a.type}`{req}" + (f" — {a.doc}" if a.doc else ""))
        return "\n".join(out)

    def _lang(self, game: str) -> str:
        g = self.project.games.get(game)
        return "en" if g is None or "en" in g.languages else g.fallback

    # ---- completion --------------------------------------------------------------------

    def complete(self, text: str, offset: int) -> tuple[list[Completion], str]:
        """What may be written at the cursor, and the part of the word already typed."""
        ctx = cursor_context(text, offset)
        game = self.game_of(text)
        out: list[Completion] = []
        cat = self.catalogue
        if ctx.place is Place.TOP:
            out += [Completion(k, "keyword") for k in KEYWORDS_TOP]
            out += self._kinds(game)
        elif ctx.place is Place.MODULE:
            out += [Completion(mod.key, "module", "expansion" if mod.id != "base" else "game")
                    for mod in self.project.modules.values()]
        elif ctx.place is Place.MEMBER:
            out += self._members(game, ctx.frames)
        elif ctx.place is Place.TRIGGER:
            out += [_verb_item(v) for v in cat.of_role("trigger")]
        elif ctx.place is Place.CONDITION:
            out += [_verb_item(v) for v in cat.of_role("condition")]
            out += [Completion("not", "keyword")]
        elif ctx.place is Place.STATEMENT:
            out += [_verb_item(v) for v in cat.verbs.values() if v.role in ("modifier", "action")]
            out += [Completion(k, "keyword") for k in KEYWORDS_STATEMENT]
        elif ctx.place is Place.ACTION:
            out += [_verb_item(v) for v in cat.of_role("action")]
        elif ctx.place is Place.ARGUMENT:
            verb = cat.verbs.get(ctx.verb)
            if verb is not None:
                out += [Completion(f"{p.name}:", "parameter", str(p.type), p.doc, f"{p.name}: ")
                        for p in verb.params]
            out += self._values(game, self._value_type(game, ctx.frames, ctx.attr, ctx.verb, ctx.param))
        elif ctx.place is Place.VALUE:
            out += self._values(game, self._value_type(game, ctx.frames, ctx.attr, ctx.verb, ctx.param))
        elif ctx.place is Place.TEXT:
            g = self.project.games.get(game)
            out += [Completion(lang, "language") for lang in (g.publish if g is not None else ())]
        return out, ctx.prefix

    def _kinds(self, game: str) -> list[Completion]:
        out = []
        for k in self.project.kinds_of(game):
            out.append(Completion(k.id, "kind", f"kind of {game}", self.kind_docs.get((game, k.id), "")))
        out.append(Completion(VARIANT_KIND, "kind", "built-in kind", "A variant rule that can be switched on."))
        return out

    def _members(self, game: str, frames: list[Frame]) -> list[Completion]:
        decl = next((f for f in reversed(frames) if f.role == "decl"), None)
        if decl is None:
            return []
        table = _builtin_table(decl.kind)
        if table is not None:
            out = [Completion(f"{n}:", "attribute", t, insert=f"{n}: ") for n, t in table.items()]
            if decl.kind == "kind":
                out.append(Completion("attr", "keyword", "declare an attribute", insert="attr "))
            return out
        kind = self.project.kinds.get((game, decl.kind))
        out = [Completion(f"{n}:", "attribute", t, BUILTIN_DOCS.get(n, ""), f"{n}: ")
               for n, (t, _) in BUILTIN_ATTRS.items()]
        if kind is not None:
            out += [Completion(f"{a.name}:", "attribute", str(a.type) + (" (required)" if a.required else ""),
                               a.doc or "", f"{a.name}: ") for a in kind.attrs.values()]
        out.append(Completion("on", "keyword", "an effect: on TRIGGER [if CONDITION] { ... }", insert="on "))
        out += self._kinds(game)  # nested declarations, such as a hero's abilities
        return out

    def _value_type(self, game: str, frames: list[Frame], attr: str, verb: str,
                    param: str | int) -> m.TypeExpr | None:
        if verb:
            v = self.catalogue.verbs.get(verb)
            if v is None:
                return None
            p = v.param(param) if isinstance(param, str) else (v.params[param] if param < len(v.params) else None)
            if p is None:
                return None
            return _element(p.type) if frames and frames[-1].role == "list" else p.type
        decl = next((f for f in reversed(frames) if f.role == "decl"), None)
        if decl is None or not attr:
            return None
        table = _builtin_table(decl.kind)
        if table is not None:
            return parse_type_string(table[attr]) if attr in table and table[attr] not in ("type", "any") else (
                m.TypeExpr("type") if attr == "type" else None)
        kind = self.project.kinds.get((game, decl.kind))
        t: m.TypeExpr | None = None
        if kind is not None and attr in kind.attrs:
            t = kind.attrs[attr].type
        elif attr in BUILTIN_ATTRS:
            t = parse_type_string(BUILTIN_ATTRS[attr][0])
        if t is not None and frames[-1].role == "list":
            return _element(t)
        return t

    def _values(self, game: str, t: m.TypeExpr | None) -> list[Completion]:
        if t is None:
            return [Completion(e.id, "entity", e.kind) for e in self.project.entities_of(game) if not e.errata]
        if t.name == "enum":
            return [Completion(str(a), "value", str(t)) for a in t.args]
        if t.name == "bool":
            return [Completion("true", "value"), Completion("false", "value")]
        if t.name == "ref":
            kinds = {str(a) for a in t.args}
            return [Completion(e.id, "entity", e.kind) for e in self.project.entities_of(game)
                    if not e.errata and kinds.intersection(e.kinds)]
        if t.name == "list" and t.args and isinstance(t.args[0], m.TypeExpr):
            return self._values(game, t.args[0])
        if t.name == "type":
            return [Completion(n, "value", d) for n, d in SCALAR_TYPES.items()] + [
                Completion(n, "value", "a compound type") for n in COMPOUND_TYPES]
        return []

    # ---- outline ----------------------------------------------------------------------

    def outline(self, display: str) -> list[Outline] | None:
        """The declarations of one file, nested; None when the file does not parse."""
        tree = self.tree(display)
        text = self.result.sources.get(display)
        if tree is None or text is None:
            return None
        braces = _brace_pairs(tokenize(text))
        starts = line_starts(text)
        return [_outline_decl(d, text, braces, starts) for d in tree.decls]


def analyze(root: Path, overlay: Mapping[Path, str] | None = None, catalogue: Catalogue | None = None) -> Analysis:
    """Check the content folder `root` as `cardc check` does, with `overlay`'s texts instead of the disk."""
    cat = catalogue or default_catalogue()
    result = compile_paths([root], cat, overlay)
    wanted = warning_filter(root)
    shown = [d for d in result.diagnostics if d.is_error or wanted(d.code)]
    if len(shown) != len(result.diagnostics):
        result = dataclasses.replace(result, diagnostics=shown)
    analysis = Analysis(root, result, cat)
    _Indexer(analysis).run()
    return analysis


def warning_filter(root: Path) -> Callable[[str], bool]:
    """Which warnings to show, by `select` and `ignore` in the `[check]` table of the content's cardc.toml,
    as `cardc check` does (a list it cannot read filters nothing; `cardc check` reports it)."""
    from cardc.report import BadOptions, config_codes

    try:
        select, ignore = config_codes(root)
    except BadOptions:
        return lambda code: True

    def wanted(code: str) -> bool:
        def hit(prefixes: tuple[str, ...]) -> bool:
            return any(p == "ALL" or code.startswith(p) for p in prefixes)

        return (not select or hit(select)) and not hit(ignore)

    return wanted


def content_root(path: Path) -> Path:
    """The content folder a source file belongs to (the folder of its `cardc.toml`, else its own folder)."""
    return find_content_root([path]).resolve()


def display_of(path: Path) -> str:
    return display_path(path.resolve())


# ---- the index of ids ------------------------------------------------------------------


class _Indexer:
    """Finds every place an entity or kind id is declared or used, by the types the content declares:
    `slot: key` is an enum value where `opens_with: key` names the item `key`."""

    def __init__(self, analysis: Analysis) -> None:
        self.a = analysis
        self.found: dict[str, list[Occurrence]] = {}

    def run(self) -> None:
        for f in self.a.result.files:
            game = f.module.name.split(".")[0] if f.module is not None else ""
            for d in f.decls:
                self._decl(d, game, f.path)
        for occs in self.found.values():
            occs.sort(key=lambda o: (o.span.line, o.span.col))
        self.a.occurrences = self.found

    def _add(self, what: str, game: str, ident: str, span: Span, definition: bool) -> None:
        if "." in ident:
            game, ident = ident.split(".", 1)
        self.found.setdefault(span.file, []).append(Occurrence(Target(what, game, ident), span, definition))

    def _decl(self, d: s.DeclS, game: str, file: str) -> None:
        if d.kind in ("game", "expansion"):
            return
        if d.kind == "kind":
            self._add("kind", game, d.id, d.id_span, True)
            kind = self.a.project.kinds.get((game, d.id))
            for a in d.attrs:
                if a.name == "doc" and isinstance(a.value, s.StrV):
                    self.a.kind_docs[(game, d.id)] = a.value.value
            for inner in d.decls:
                adef = kind.attrs.get(inner.id) if kind is not None else None
                for a in inner.attrs:
                    if a.name == "type":
                        self._type_refs(a.value, game)
                    elif a.name == "default" and adef is not None:
                        self._value(a.value, adef.type, game)
            return
        if d.kind != VARIANT_KIND:
            self._add("kind", game, d.kind, d.span, False)
        self._add("entity", game, d.id, d.id_span, not d.errata)
        kind = self.a.project.kinds.get((game, d.kind))
        for a in d.attrs:
            if kind is not None and a.name in kind.attrs:
                self._value(a.value, kind.attrs[a.name].type, game)
            elif a.name in BUILTIN_ATTRS:
                self._value(a.value, parse_type_string(BUILTIN_ATTRS[a.name][0]), game)
        for r in d.rules:
            for call in syntax_calls(r):
                self._call(call, game)
        for inner in d.decls:
            self._decl(inner, game, file)

    def _type_refs(self, value: s.Value, game: str) -> None:
        """Kinds named in a type such as `list(ref(item, spell))`."""
        if not isinstance(value, s.CallV):
            return
        for arg in value.args or ():
            if value.name == "ref" and isinstance(arg.value, s.CallV) and arg.value.is_bare:
                self._add("kind", game, arg.value.name, arg.value.span, False)
            else:
                self._type_refs(arg.value, game)

    def _call(self, call: s.CallV, game: str) -> None:
        verb = self.a.catalogue.verbs.get(call.name)
        if verb is None:
            return
        positional = [a for a in call.args or () if a.name is None]
        for p, a in zip(verb.params, positional, strict=False):
            self._value(a.value, p.type, game)
        for a in call.args or ():
            named = verb.param(a.name) if a.name is not None else None
            if named is not None:
                self._value(a.value, named.type, game)

    def _value(self, value: s.Value, t: m.TypeExpr, game: str) -> None:
        if isinstance(value, s.ProvisionalV):
            self._value(value.value, t, game)
        elif t.name == "ref" and isinstance(value, s.CallV) and value.is_bare:
            self._add("entity", game, value.name, value.span, False)
        elif t.name == "list" and isinstance(value, s.ListV) and isinstance(t.args[0], m.TypeExpr):
            for item in value.items:
                self._value(item, t.args[0], game)


# ---- helpers --------------------------------------------------------------------------------


def _builtin_table(kind_word: str) -> dict[str, str] | None:
    """The attributes of the declarations the language itself defines."""
    return {"game": GAME_ATTRS, "expansion": EXPANSION_ATTRS, "kind": KIND_ATTRS,
            "attr": ATTR_DEF_ATTRS}.get(kind_word)


def _element(t: m.TypeExpr) -> m.TypeExpr:
    return t.args[0] if t.name == "list" and t.args and isinstance(t.args[0], m.TypeExpr) else t


def _signature(verb: Verb) -> str:
    params = ", ".join(f"{p.name}: {p.type}" + ("" if p.required else f" = {p.default}") for p in verb.params)
    return f"{verb.name}({params})"


def _verb_doc(verb: Verb) -> str:
    out = [f"**{verb.name}** — {verb.role}", "", verb.doc, "", f"`{_signature(verb)}`"]
    out += [f"- `{p.name}`: {p.doc}" for p in verb.params if p.doc]
    return "\n".join(out).rstrip()


def _verb_item(verb: Verb) -> Completion:
    return Completion(verb.name, "verb", f"{verb.role}: {_signature(verb)}", verb.doc)


def _show(value: s.Value) -> str:
    if isinstance(value, s.CallV):
        return value.name
    if isinstance(value, s.IntV | s.BoolV | s.StrV):
        return str(value.value).lower() if isinstance(value, s.BoolV) else str(value.value)
    return type(value).__name__[:-1].lower()


def _where(span: Span) -> str:
    return f"{span.file}:{span.line}"


def _offset(starts: list[int], span_line: int, span_col: int) -> int:
    return starts[min(span_line, len(starts)) - 1] + span_col - 1


def _span_at(file: str, starts: list[int], offset: int) -> tuple[int, int]:
    import bisect

    line = bisect.bisect_right(starts, offset)
    return line, offset - starts[line - 1] + 1


def _brace_pairs(tokens: list[Token]) -> dict[int, int]:
    """Offset of every `{` -> offset just after its `}` (strings and comments skipped)."""
    pairs: dict[int, int] = {}
    stack: list[int] = []
    for t in tokens:
        if t.type != "punct":
            continue
        if t.text == "{":
            stack.append(t.start)
        elif t.text == "}" and stack:
            pairs[stack.pop()] = t.end
    return pairs


def _block_end(text: str, braces: dict[int, int], start: int) -> int:
    """The end of the block whose `{` is the first one at or after `start`."""
    opens = [o for o in braces if o >= start]
    return braces[min(opens)] if opens else len(text)


def _outline_decl(d: s.DeclS, text: str, braces: dict[int, int], starts: list[int]) -> Outline:
    end = _block_end(text, braces, _offset(starts, d.id_span.line, d.id_span.col))
    end_line, end_col = _span_at(d.span.file, starts, end)
    whole = Span(d.span.file, d.span.line, d.span.col, end_line, end_col)
    children = [_outline_decl(inner, text, braces, starts) for inner in d.decls]
    for r in d.rules:
        r_begin = _offset(starts, r.span.line, r.span.col)
        r_end = _block_end(text, braces, r_begin)
        el, ec = _span_at(d.span.file, starts, r_end)
        on_line, on_col = _span_at(d.span.file, starts, max(0, text.rfind("on", 0, r_begin)))  # from its `on`
        children.append(Outline(f"on {r.trigger.name}", "effect", "rule",
                                Span(r.span.file, on_line, on_col, el, ec), r.trigger.span))
    children.sort(key=lambda o: (o.span.line, o.span.col))
    what = d.kind if d.kind in ("game", "expansion", "kind", "attr") else "entity"
    detail = d.kind if what == "entity" else ("" if what in ("game", "kind") else (d.extends or ""))
    return Outline(d.id, detail, what, whole, d.id_span, tuple(children))
