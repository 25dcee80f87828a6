"""Parse tree -> typed IR: games, expansions, kinds, entities and effects, with every semantic check.

All problems go to the diagnostic sink; lowering never stops at the first one.
"""

from __future__ import annotations

import keyword
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from cardc import model as m
from cardc import syntax as s
from cardc.astbuild import slot_maker
from cardc.catalogue import Catalogue, Verb
from cardc.diagnostics import Diagnostic, DiagnosticSink, Span, did_you_mean
from cardc.irvisit import SyntaxVisitor
from cardc.loader import LoadedSources
from cardc.types import ValueContext, check_value, parse_type_string, type_from_value

# The IR nodes lowering makes most, made by the slots' setters (`astbuild.slot_maker`: the frozen dataclasses'
# `__init__` sets each field by `object.__setattr__`); called with every field, by position.
_Invocation = slot_maker(m.Invocation, ("verb", "role", "args", "span"))
_Do = slot_maker(m.Do, ("call", "span"))
_Effect = slot_maker(m.Effect, ("index", "trigger", "condition", "body", "span"))
_Entity = slot_maker(m.Entity, ("kind", "kinds", "id", "game", "module", "name", "text", "copies", "tags", "source",
                                "variant", "parent", "errata", "attrs", "effects", "provisional", "span"))

BUILTIN_DECLS = ("game", "expansion", "kind")
VARIANT_KIND = "variant"
ODDS_KIND = "odds"
BUILTIN_SPAN = Span("<builtin>", 1, 1)
# Kinds every game has without declaring them: the variant, and what `cardc odds` and the balance tables
# compute (an `odds` declaration and the loadouts, duels and settings nested in it; dsl/README.md
# "Odds and balance tables"). Each attribute: (type, required, doc).
BUILTIN_KINDS: dict[str, dict[str, tuple[str, bool, str]]] = {
    VARIANT_KIND: {},
    ODDS_KIND: {
        "fighter": ("ident", True, "The kind whose odds are computed: the rows of the tables, `--hero` of cardc odds."),
        "opponent": ("ident", False, "The kind fought: the columns of the tables, `--vs` of cardc odds."),
        "show": ("list(ident)", False, "Attributes of the opponent shown beside its name; the first one orders "
                 "the columns, and an opponent without it is left out of the tables."),
        "duel_with": ("ident", False, "The kind a fighter may fight in a duel (`--vs-hero`)."),
        "combine": ("ident", False, "A kind whose cards a fighter may add (a race card): one table row per "
                    "fighter alone and per fighter with each such card."),
        "stats": ("list(ident)", False, "Stats of the fighter shown at the start and at most."),
        "limits": ("list(ident)", False, "Slots whose limits (how many a fighter may hold) are shown."),
    },
    "loadout": {
        "items": ("list(ref(any))", True, "What the fighter carries; each item goes in the slot its `slot` "
                  "attribute names."),
    },
    "duel": {
        "by": ("ref(any)", True, "What starts the fight: a tile whose rules apply, or a variant."),
        "variants": ("list(ref(variant))", False, "Variants switched on for this duel."),
        "items": ("list(ref(any))", False, "What each fighter carries."),
    },
    "setting": {
        "variants": ("list(ref(variant))", False, "Variants switched on."),
        "without": ("list(ident)", False, "Expansions left out."),
    },
}
ODDS_PARTS = ("loadout", "duel", "setting")  # only inside an `odds` declaration
ODDS_KINDS = frozenset({ODDS_KIND, *ODDS_PARTS})  # declarations for the tools, not components or rules

# Attributes every entity has, whatever its kind.
BUILTIN_ATTRS: dict[str, tuple[str, bool]] = {
    "name": ("text", True),
    "text": ("text", False),
    "copies": ("int", False),
    "tags": ("list(ident)", False),
    "source": ("string", False),
    "variant": ("ref(variant)", False),
    "image": ("path", False),
    "note": ("string", False),
}
# A built-in attribute's type, parsed once (read by `check_value` only, never kept: sharing it changes no output).
_builtin_type = cache(parse_type_string)
GAME_ATTRS = {"name": "text", "languages": "list(ident)", "publish": "list(ident)", "fallback": "ident",
              "text": "text", "source": "string"}
EXPANSION_ATTRS = {"name": "text", "languages": "list(ident)", "requires": "list(ident)", "text": "text",
                   "source": "string"}
KIND_ATTRS = {"name": "text", "physical": "bool", "copies": "int", "size": "ident", "doc": "string"}
ATTR_DEF_ATTRS = {"type": "type", "required": "bool", "default": "any", "doc": "string", "label": "text",
                  "icon": "any"}
SIZE_RE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*x\s*(\d+(?:\.\d+)?)\s*(?:mm)?\s*(round)?\s*")


@dataclass
class _FileCtx:
    file: s.FileS
    game: str
    module: str  # "base" or the expansion id
    directory: Path


@dataclass
class _Pending:
    """An entity declaration waiting for all ids to be known before its references are checked."""

    decl: s.DeclS
    ctx: _FileCtx
    parent: str | None
    kind: m.KindDef | None


@dataclass
class Trace:
    """Which diagnostics of a run each entity declaration gave, for `cardc.recheck`. `items` is the run's sink
    as the front end filled it: the loader's diagnostics up to `loaded`, the passes before the entities up to
    `start`, then pending entity i's in `entities[i]` = (first, end), the passes after the entities from `end`
    to `done`, then the W501s, `hand` (pending index, how many) in the order the front end checks entities.
    `tops[i]` is the top-level declaration entity i comes from (shown file, index in its `decls`), `gave[i]`
    whether it gave an entity (`lowered[i]`, not stored); `env` is what lowering an entity reads besides its
    declaration, the catalogue and the content folder (`Lowering.environment`); `places` holds `items` as
    their places in a stored check's diagnostics (`cardc.recheck`)."""

    items: list[Diagnostic] = field(default_factory=list)
    loaded: int = 0
    start: int = 0
    tops: list[tuple[str, int]] = field(default_factory=list)
    entities: list[tuple[int, int]] = field(default_factory=list)
    lowered: list[m.Entity | None] = field(default_factory=list)
    gave: list[bool] = field(default_factory=list)
    end: int = 0
    done: int = 0
    hand: list[tuple[int, int]] = field(default_factory=list)
    env: tuple[object, ...] = ()
    places: list[int] = field(default_factory=list)  # stored instead of `items`: see `recheck.store`
    env_key: str = ""  # stored instead of `env`: see `recheck.store`
    # the (game, id) each entity looked up (`names[i]`), the passes after the entities looked up (`after`),
    # and errata name as the entity they change: a renamed entity is checked again with the entities that
    # named it, and only when nothing else did
    names: list[list[tuple[str, str]]] = field(default_factory=list)
    after: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class Lowering:
    sources: LoadedSources
    catalogue: Catalogue
    sink: DiagnosticSink
    games: dict[str, m.Game] = field(default_factory=dict)
    modules: dict[str, m.Module] = field(default_factory=dict)
    kinds: dict[tuple[str, str], m.KindDef] = field(default_factory=dict)
    ids: dict[tuple[str, str], tuple[str, Span]] = field(default_factory=dict)  # (game, id) -> (kind, span)
    kind_parents: dict[tuple[str, str], str | None] = field(default_factory=dict)
    max_copies: int | None = None  # read from cardc.toml on first use
    trace: Trace | None = None  # filled in by `run` when given
    looked_up: list[tuple[str, str]] | None = None  # when given, each (game, id) the resolver looks up

    def _check_copies(self, copies: int | None, span: Span) -> None:
        """Copies beyond a sane maximum would make every backend print (and hold in memory) millions of cards."""
        if self.max_copies is None:
            self.max_copies = _max_copies(self.sources.root, self.sink)
        if copies is not None and not 0 <= copies <= self.max_copies:
            self.sink.error("E107", f"{copies:,} copies is more than the {self.max_copies:,} allowed", span,
                            "raise the limit with `[limits] copies = N` in cardc.toml if the game needs it")

    # ---- pass 1: games and expansions --------------------------------------

    def run(self) -> m.Project:
        files = self.sources.files
        if self.trace is not None:
            self.trace.items, self.trace.loaded = self.sink.items, len(self.sink.items)
        game_decls: list[tuple[s.DeclS, s.FileS]] = []
        exp_decls: list[tuple[s.DeclS, s.FileS]] = []
        for f in files:
            if f.module is None:
                self.sink.error("E112", "this file has no `module` line", s_span_start(f),
                                "start the file with `module <game>` or `module <game>.<expansion>`")
            for d in f.decls:
                if d.kind == "game":
                    game_decls.append((d, f))
                elif d.kind == "expansion":
                    exp_decls.append((d, f))
        for d, f in game_decls:
            self._declare_game(d, f)
        for d, f in exp_decls:
            self._declare_expansion(d, f)
        self._finish_games()
        ctxs = [c for c in (self._file_ctx(f) for f in files) if c is not None]
        for ctx in ctxs:
            for d in ctx.file.decls:
                if d.kind == "kind":
                    self._declare_kind_shape(d, ctx)
        for ctx in ctxs:
            for d in ctx.file.decls:
                if d.kind == "kind":
                    self._declare_kind(d, ctx)
        pending: list[_Pending] = []
        tops: list[tuple[str, int]] = []
        for ctx in ctxs:
            for i, d in enumerate(ctx.file.decls):
                if d.kind not in BUILTIN_DECLS:
                    self._collect(d, ctx, None, pending)
                    tops += [(ctx.file.path, i)] * (len(pending) - len(tops))
                elif d.kind in ("game", "expansion"):
                    self._check_builtin_members(d)
        if self.trace is None:
            entities = [e for e in (self._lower_entity(p) for p in pending) if e is not None]
        else:
            entities = self._lower_traced(pending, tops, self.trace)
        self._check_errata(entities)
        self._check_module_names(entities)
        names = {display: _relative_name(real, self.sources.root) for display, real in self.sources.real_paths.items()}
        entities.sort(key=lambda e: (e.game, names.get(e.span.file, e.span.file), e.span.line, e.span.col))
        if self.trace is not None:
            self.looked_up = self.trace.after
            self.trace.after.extend((e.game, e.id) for e in entities if e.errata)
        procedures = self._lower_procedures(ctxs)
        if self.trace is not None:
            self.looked_up = None
            self.trace.done = len(self.sink.items)
        return m.Project(self.sources.root, self.games, self.modules, self.kinds, tuple(entities),
                         dict(self.sources.texts), names, procedures)

    def _lower_traced(self, pending: list[_Pending], tops: list[tuple[str, int]], trace: Trace) -> list[m.Entity]:
        items = self.sink.items
        trace.start, trace.tops = len(items), tops
        for p in pending:
            first = len(items)
            self.looked_up = []
            trace.lowered.append(self._lower_entity(p))
            trace.entities.append((first, len(items)))
            trace.names.append(self.looked_up)
        self.looked_up = None
        trace.end = len(items)
        trace.gave = [e is not None for e in trace.lowered]
        trace.env = self.environment()
        return [e for e in trace.lowered if e is not None]

    def environment(self) -> tuple[object, ...]:
        """What lowering one entity reads besides its declaration, the catalogue and the content folder."""
        return self.games, self.modules, self.kinds, self.ids, self.kind_parents, self.max_copies

    def restore(self, env: tuple[object, ...]) -> None:
        """Take the `environment` of an earlier run."""
        self.games, self.modules, self.kinds, self.ids, self.kind_parents, self.max_copies = env  # type: ignore

    def relower(self, decl: s.DeclS,
                ctx: _FileCtx) -> list[tuple[m.Entity | None, list[Diagnostic], list[tuple[str, str]]]]:
        """Each entity of a top-level declaration (itself, then those nested in it, as `run` takes them), lowered
        against this lowering's games, kinds and ids, with the diagnostics it gave and the ids it looked up. Its
        ids are not declared again: they must be the ones `run` declared (`cardc.recheck` makes sure)."""
        pending: list[_Pending] = []
        self._pending(decl, ctx, None, pending)
        out: list[tuple[m.Entity | None, list[Diagnostic], list[tuple[str, str]]]] = []
        for p in pending:
            sink = self.sink = DiagnosticSink()
            looked_up = self.looked_up = []
            out.append((self._lower_entity(p), sink.items, looked_up))
        self.looked_up = None
        return out

    def _pending(self, d: s.DeclS, ctx: _FileCtx, parent: str | None, pending: list[_Pending]) -> None:
        """`_collect` without its checks and without declaring ids."""
        if d.kind in BUILTIN_DECLS:
            return
        pending.append(_Pending(d, ctx, parent, self._kind_def(ctx.game, d.kind)))
        for inner in d.decls:
            self._pending(inner, ctx, d.id, pending)

    def _attr_map(self, d: s.DeclS, allowed: dict[str, str], what: str) -> dict[str, s.AttrS]:
        found: dict[str, s.AttrS] = {}
        for a in d.attrs:
            if a.name in found:
                self.sink.error("E205", f"attribute `{a.name}` is given twice", a.span,
                                f"first given at line {found[a.name].span.line}")
                continue
            if a.name not in allowed:
                self.sink.error("E201", f"unknown attribute `{a.name}` for {what}", a.span,
                                did_you_mean(a.name, allowed) or f"known: {', '.join(sorted(allowed))}")
                continue
            found[a.name] = a
        return found

    def _simple_ctx(self, where: str, languages: tuple[str, ...], known: tuple[str, ...],
                    directory: Path, provisional: list[tuple[str, str]] | None = None) -> ValueContext:
        return ValueContext(self.sink, languages, known, self.sources.root, directory,
                            lambda *_: None, provisional if provisional is not None else [], where)

    def _idents(self, value: s.Value | None) -> tuple[str, ...]:
        if isinstance(value, s.ListV):
            return tuple(v.name for v in value.items if isinstance(v, s.CallV))
        return ()

    def _declare_game(self, d: s.DeclS, f: s.FileS) -> None:
        if d.id in self.games:
            self.sink.error("E211", f"game `{d.id}` is declared twice", d.id_span,
                            f"first declared at {self.games[d.id].span.file}:{self.games[d.id].span.line}")
            return
        if d.extends:
            self.sink.error("E211", "a game cannot extend anything; declare an `expansion` instead", d.id_span)
        if d.id in RESERVED_PACKAGES or d.id.startswith("__") or keyword.iskeyword(d.id):
            self.sink.error("E213", f"game `{d.id}` cannot have that name: its rule package `{d.id}` would shadow "
                            "a Python module of the same name", d.id_span, "choose another name, e.g. "
                            f"`{d.id}_game`")
        if f.module is not None and f.module.name != d.id:
            self.sink.error("E212", f"game `{d.id}` must be declared in a file of `module {d.id}`", d.id_span)
        attrs = self._attr_map(d, GAME_ATTRS, f"game `{d.id}`")
        if "languages" not in attrs:
            self.sink.error("E202", f"game `{d.id}` needs `languages`", d.id_span,
                            "e.g. `languages: [cs, en]`")
        languages = self._idents(attrs["languages"].value) if "languages" in attrs else ()
        publish = self._idents(attrs["publish"].value) if "publish" in attrs else ()
        fallback_v = attrs["fallback"].value if "fallback" in attrs else None
        fallback = fallback_v.name if isinstance(fallback_v, s.CallV) else (languages[0] if languages else "en")
        name = attrs["name"].value if "name" in attrs else None
        self.games[d.id] = m.Game(d.id, name if isinstance(name, s.LocalizedV) else None, languages,
                                  publish, fallback, d.id_span)
        self.modules[d.id] = m.Module(d.id, "base", self.games[d.id].name, languages, (),
                                      _loc(attrs, "text"), _str(attrs, "source"), d.id_span)

    def _check_module_names(self, entities: list[m.Entity]) -> None:
        """A variant `v` gets the Python module `variant_v`: an expansion of that name would overwrite it."""
        for e in entities:
            if e.kind == VARIANT_KIND and not e.errata:
                clash = self.modules.get(f"{e.game}.variant_{e.id}")
                if clash is not None:
                    self.sink.error("E213", f"expansion `variant_{e.id}` and variant `{e.id}` would both be the "
                                    f"module `{e.game}.variant_{e.id}`", clash.span, "rename one of them")

    def _declare_expansion(self, d: s.DeclS, f: s.FileS) -> None:
        if not d.extends:
            self.sink.error("E211", f"expansion `{d.id}` must say which game it extends", d.id_span,
                            f"write `expansion {d.id} extends <game> {{ ... }}`")
            return
        game = d.extends
        if game not in self.games:
            self.sink.error("E211", f"expansion `{d.id}` extends unknown game `{game}`", d.id_span,
                            did_you_mean(game, self.games))
            return
        key = f"{game}.{d.id}"
        if d.id == "base" or d.id.startswith("__"):
            what = "the base game's own module" if d.id == "base" else "a name Python reserves"
            self.sink.error("E213", f"expansion `{d.id}` cannot have that name: `{d.id}` is {what}", d.id_span,
                            "choose another name")
            return
        if key in self.modules:
            self.sink.error("E211", f"expansion `{key}` is declared twice", d.id_span)
            return
        if f.module is not None and f.module.name != key:
            self.sink.error("E212", f"expansion `{d.id}` must be declared in a file of `module {key}`", d.id_span)
        attrs = self._attr_map(d, EXPANSION_ATTRS, f"expansion `{d.id}`")
        languages = self._idents(attrs["languages"].value) if "languages" in attrs else self.games[game].languages
        requires = self._idents(attrs["requires"].value) if "requires" in attrs else ()
        name = attrs["name"].value if "name" in attrs else None
        self.modules[key] = m.Module(game, d.id, name if isinstance(name, s.LocalizedV) else None, languages,
                                     requires, _loc(attrs, "text"), _str(attrs, "source"), d.id_span)

    def _finish_games(self) -> None:
        """Fill each game's publish list (every language any of its modules uses) and check module texts."""
        for gid, g in list(self.games.items()):
            langs = list(g.publish)
            for mod in self.modules.values():
                if mod.game == gid:
                    langs.extend(x for x in mod.languages if x not in langs)
            self.games[gid] = m.Game(g.id, g.name, g.languages, tuple(langs), g.fallback, g.span)
        for key, mod in self.modules.items():
            known = self.games[mod.game].publish
            for lang in mod.languages:
                if lang not in known:  # pragma: no cover - publish is a superset by construction
                    self.sink.error("E401", f"language `{lang}` is not declared", mod.span)
            for req in mod.requires:
                if f"{mod.game}.{req}" not in self.modules:
                    self.sink.error("E211", f"`{key}` requires unknown expansion `{req}`", mod.span,
                                    did_you_mean(req, [x.id for x in self.modules.values() if x.game == mod.game])
                                    or f"import the file that declares `expansion {req} extends {mod.game}`")

    def _check_builtin_members(self, d: s.DeclS) -> None:
        """Texts of games and expansions are checked for translations; nested declarations are not allowed."""
        game = d.id if d.kind == "game" else (d.extends or "")
        key = game if d.kind == "game" else f"{game}.{d.id}"
        mod = self.modules.get(key)
        if mod is None or game not in self.games:
            return
        for a in d.attrs:
            if a.name in ("name", "text"):
                ctx = self._simple_ctx(a.name, mod.languages, self.games[game].publish, Path())
                check_value(a.value, parse_type_string("text"), ctx)
        for inner in d.decls:
            self.sink.error("E212", f"`{inner.kind} {inner.id}` cannot be declared inside a {d.kind}",
                            inner.span, "declare it at the top level of a file of this module")
        for r in d.rules:
            self.sink.error("E212", f"a {d.kind} cannot have effects; put them on an entity or a variant", r.span)

    def _file_ctx(self, f: s.FileS) -> _FileCtx | None:
        if f.module is None:
            return None
        name = f.module.name
        game, _, exp = name.partition(".")
        if game not in self.games:
            self.sink.error("E113", f"module `{name}` names undeclared game `{game}`", f.module.span,
                            did_you_mean(game, self.games) or "import the file that declares the game")
            return None
        if exp and f"{game}.{exp}" not in self.modules:
            if any(d.kind == "expansion" and d.id == exp for d in f.decls):
                return None  # its declaration is wrong, and that is reported there
            exps = [x.id for x in self.modules.values() if x.game == game and x.id != "base"]
            self.sink.error("E113", f"module `{name}` names undeclared expansion `{exp}` of `{game}`",
                            f.module.span, did_you_mean(exp, exps) or "import the file that declares the expansion")
            return None
        real = self.sources.real_paths.get(f.path)
        return _FileCtx(f, game, exp or "base", real.parent if real else Path())

    # ---- pass 2: kinds --------------------------------------------------------

    def _declare_kind_shape(self, d: s.DeclS, ctx: _FileCtx) -> None:
        key = (ctx.game, d.id)
        if key in self.kind_parents or d.id in BUILTIN_KINDS:
            hint = f"`{d.id}` is a built-in kind (dsl/README.md)" if d.id in BUILTIN_KINDS else None
            self.sink.error("E204", f"kind `{d.id}` is declared twice in game `{ctx.game}`", d.id_span, hint)
            return
        self.kind_parents[key] = d.extends

    def _declare_kind(self, d: s.DeclS, ctx: _FileCtx) -> None:
        key = (ctx.game, d.id)
        if key in self.kinds or self.kind_parents.get(key, "\0") == "\0":
            return
        chain = self._kind_chain(ctx.game, d.id, d.id_span)
        if chain is None:
            return
        attrs = self._attr_map(d, KIND_ATTRS, f"kind `{d.id}`")
        game = self.games[ctx.game]
        vctx = self._simple_ctx("name", self.modules[_mkey(ctx)].languages, game.publish, ctx.directory)
        for a in attrs.values():
            vctx.where = a.name
            if a.name == "size" and isinstance(a.value, s.StrV):
                if not _size_ok(a.value.value):
                    self.sink.error("E210", f"kind `{d.id}`: size {a.value.value!r} is not `WxH` in millimetres",
                                    a.value.span, 'e.g. `size: "63x88"` or `size: "30x30 round"`')
                continue
            check_value(a.value, parse_type_string(KIND_ATTRS[a.name]), vctx)
        parent_def = self._ensure_kind_parent(d, ctx, chain)
        own: dict[str, m.AttrDef] = dict(parent_def.attrs) if parent_def else {}
        for inner in d.decls:
            if inner.kind != "attr":
                self.sink.error("E212", f"a kind holds `attr` declarations, not `{inner.kind}`", inner.span,
                                did_you_mean(inner.kind, ["attr"])
                                or f"declare `{inner.kind} {inner.id}` at the top level, after the kind")
                continue
            adef = self._attr_def(inner, ctx)
            if adef is not None:
                own[adef.name] = adef
        for r in d.rules:
            self.sink.error("E212", "a kind cannot have effects; put them on its entities", r.span)
        physical = _bool(attrs, "physical", parent_def.physical if parent_def else False)
        copies = _int(attrs, "copies", parent_def.copies if parent_def else 1)
        self._check_copies(copies, attrs["copies"].span if "copies" in attrs else d.id_span)
        size_v = attrs["size"].value if "size" in attrs else None
        size = (size_v.name if isinstance(size_v, s.CallV) else _size_text(size_v.value)
                if isinstance(size_v, s.StrV) and _size_ok(size_v.value) else parent_def.size if parent_def else None)
        self.kinds[key] = m.KindDef(d.id, ctx.game, ctx.module, _loc(attrs, "name"), d.extends, physical, copies,
                                    size, own, d.id_span)

    def _ensure_kind_parent(self, d: s.DeclS, ctx: _FileCtx, chain: list[str]) -> m.KindDef | None:
        if not d.extends:
            return None
        parent_key = (ctx.game, d.extends)
        if parent_key not in self.kinds:
            for f in self.sources.files:
                for pd in f.decls:
                    same_game = f.module is not None and f.module.name.split(".")[0] == ctx.game
                    if pd.kind == "kind" and pd.id == d.extends and same_game:
                        pctx = self._file_ctx(f)
                        if pctx:
                            self._declare_kind(pd, pctx)
        return self.kinds.get(parent_key)

    def _kind_chain(self, game: str, kind: str, span: Span) -> list[str] | None:
        chain = [kind]
        parent = self.kind_parents.get((game, kind))
        while parent:
            if parent in chain:
                self.sink.error("E210", f"kind `{kind}` extends itself through {' -> '.join([*chain, parent])}", span)
                return None
            if (game, parent) not in self.kind_parents:
                self.sink.error("E200", f"kind `{chain[-1]}` extends unknown kind `{parent}`", span,
                                did_you_mean(parent, [k for g, k in self.kind_parents if g == game]))
                return None
            chain.append(parent)
            parent = self.kind_parents.get((game, parent))
        return chain

    def _attr_def(self, d: s.DeclS, ctx: _FileCtx) -> m.AttrDef | None:
        if d.id in BUILTIN_ATTRS:
            self.sink.error("E210", f"`{d.id}` is a built-in attribute of every entity", d.id_span,
                            "choose another name")
            return None
        attrs = self._attr_map(d, ATTR_DEF_ATTRS, f"attribute `{d.id}`")
        if "type" not in attrs:
            self.sink.error("E210", f"attribute `{d.id}` needs a `type`", d.id_span, "e.g. `type: int`")
            return None
        t = type_from_value(attrs["type"].value, self.sink)
        if t is None:
            return None
        default = attrs["default"].value if "default" in attrs else None
        if default is not None:
            vctx = self._simple_ctx(f"{d.id}.default", self.modules[_mkey(ctx)].languages,
                                    self.games[ctx.game].publish, ctx.directory)
            check_value(default, t, vctx)  # references are only shaped here; entities resolve them
        doc_v = attrs["doc"].value if "doc" in attrs else None
        label = _loc(attrs, "label")
        if label is not None:
            vctx = self._simple_ctx(f"{d.id}.label", self.modules[_mkey(ctx)].languages,
                                    self.games[ctx.game].publish, ctx.directory)
            check_value(label, parse_type_string("text"), vctx)
        icon: str | None = None
        icon_v = attrs["icon"].value if "icon" in attrs else None
        if isinstance(icon_v, s.IconV):
            icon = f":{icon_v.name}:"
        elif isinstance(icon_v, s.StrV):
            vctx = self._simple_ctx(f"{d.id}.icon", (), (), ctx.directory)
            check_value(icon_v, parse_type_string("path"), vctx)
            icon = icon_v.value
            if not icon.lower().endswith(".svg"):
                self.sink.error("E210", f"attribute `{d.id}`: icon {icon!r} is not an SVG file", icon_v.span,
                                "give an `.svg` file in the content, or a bundled icon such as `:sword:`")
        elif icon_v is not None:
            self.sink.error("E210", f"attribute `{d.id}`: `icon` is a bundled icon (`:sword:`) or an SVG path "
                            "in double quotes", icon_v.span)
        return m.AttrDef(d.id, t, _bool(attrs, "required", False), default,
                         doc_v.value if isinstance(doc_v, s.StrV) else None, d.id_span, label, icon)

    def _kind_def(self, game: str, kind: str) -> m.KindDef | None:
        if kind in BUILTIN_KINDS and (game, kind) not in self.kind_parents:
            return builtin_kind(game, kind)
        return self.kinds.get((game, kind))

    def _ancestors(self, game: str, kind: str) -> tuple[str, ...]:
        chain = [kind]
        parent = self.kind_parents.get((game, kind))
        while parent and parent not in chain:
            chain.append(parent)
            parent = self.kind_parents.get((game, parent))
        return tuple(chain)

    # ---- pass 3: entities -------------------------------------------------------

    def _collect(self, d: s.DeclS, ctx: _FileCtx, parent: str | None, pending: list[_Pending]) -> None:
        if d.kind in BUILTIN_DECLS:
            self.sink.error("E212", f"`{d.kind}` cannot be declared inside another declaration", d.span)
            return
        kind = self._kind_def(ctx.game, d.kind)
        if kind is None:
            known = [k for g, k in self.kind_parents if g == ctx.game] + list(BUILTIN_KINDS)
            self.sink.error("E200", f"unknown kind `{d.kind}` in game `{ctx.game}`", d.span,
                            did_you_mean(d.kind, known) or "declare it with `kind " + d.kind + " { ... }`")
        if d.extends:
            self.sink.error("E212", f"`extends` is for expansions and kinds, not for a {d.kind}", d.id_span,
                            "to replace an entity of the game, write `errata " + d.kind + " " + d.id + " { ... }`")
        if not d.errata:
            key = (ctx.game, d.id)
            if key in self.ids:
                first = self.ids[key][1]
                self.sink.error("E204", f"duplicate id `{d.id}` in game `{ctx.game}`", d.id_span,
                                f"first declared at {first.file}:{first.line}:{first.col}")
            else:
                self.ids[key] = (d.kind, d.id_span)
        pending.append(_Pending(d, ctx, parent, kind))
        for inner in d.decls:
            self._collect(inner, ctx, d.id, pending)

    def _resolver(self, game: str, where: list[str]):  # type: ignore[no-untyped-def]
        def resolve(name: str, kinds: tuple[str, ...], span: Span) -> None:
            g, ident = (name.split(".", 1) if "." in name else (game, name))
            if self.looked_up is not None:
                self.looked_up.append((g, ident))
            found = self.ids.get((g, ident))
            if found is not None and kinds == ("any",):
                return  # any entity of the game will do
            if found is None:
                candidates = [i for (gg, i), (k, _) in self.ids.items()
                              if gg == g and any(kk in self._ancestors(g, k) for kk in kinds)]
                noun = "entity" if kinds == ("any",) else " or ".join(kinds)
                self.sink.error("E206", f"`{where[0]}` refers to unknown {noun} `{name}`", span,
                                did_you_mean(ident, candidates or [i for gg, i in self.ids if gg == g]))
                return
            actual = self._ancestors(g, found[0])
            if not any(k in actual for k in kinds):
                wanted = _a(" or ".join(kinds))
                self.sink.error("E207", f"`{name}` is {_a(found[0])}, but `{where[0]}` expects {wanted}", span)
        return resolve

    def _lower_entity(self, p: _Pending) -> m.Entity | None:
        d, ctx, kind = p.decl, p.ctx, p.kind
        game = self.games[ctx.game]
        module = self.modules[_mkey(ctx)]
        where = [""]
        provisional: list[tuple[str, str]] = []
        vctx = ValueContext(self.sink, module.languages, game.publish, self.sources.root, ctx.directory,
                            self._resolver(ctx.game, where), provisional)
        allowed: dict[str, m.AttrDef | tuple[str, bool]] = dict(BUILTIN_ATTRS)
        if kind is not None:
            allowed.update(kind.attrs)
        values: dict[str, s.Value] = {}
        given: dict[str, s.AttrS] = {}
        misspelt: set[str] = set()  # attributes a misspelt name probably meant: not reported missing too
        for a in d.attrs:
            if a.name in given:
                self.sink.error("E205", f"attribute `{a.name}` is given twice", a.span,
                                f"first given at line {given[a.name].span.line}")
                continue
            given[a.name] = a
            spec = allowed.get(a.name)
            if spec is None:
                if kind is not None:
                    close = _close(a.name, sorted(allowed))
                    misspelt.update(close)
                    self.sink.error("E201", f"unknown attribute `{a.name}` for kind `{d.kind}`", a.span,
                                    did_you_mean(a.name, allowed) or f"known: {', '.join(sorted(allowed))}")
                continue
            t = spec.type if isinstance(spec, m.AttrDef) else _builtin_type(spec[0])
            where[0] = vctx.where = a.name
            check_value(a.value, t, vctx)
            values[a.name] = a.value
        if kind is not None:
            for attr, spec in allowed.items():
                required = spec.required if isinstance(spec, m.AttrDef) else spec[1]
                if required and attr not in values and attr not in misspelt:
                    self.sink.error("E202", f"{d.kind} `{d.id}` is missing required attribute `{attr}`", d.id_span,
                                    f"add `{attr}: ...` to its body")
                if isinstance(spec, m.AttrDef) and attr not in values and spec.default is not None:
                    values[attr] = spec.default
                    where[0] = attr
                    _resolve_refs(spec.default, spec.type, vctx.resolve_ref)  # reported once, at the default
        effects = tuple(self._lower_rule(i + 1, r, vctx, where) for i, r in enumerate(d.rules))
        if kind is None:
            return None
        if d.kind in BUILTIN_KINDS:
            self._check_odds(d, p, values)
        # A provisional name or text (`provisional { cs "..." } "note"`) is recorded above; keep its value.
        name = _unwrap_provisional(values.pop("name", None))
        text = _unwrap_provisional(values.pop("text", None))
        copies_v = values.pop("copies", None)
        tags_v = values.pop("tags", None)
        source_v = values.pop("source", None)
        variant_v = values.pop("variant", None)
        copies = copies_v.value if isinstance(copies_v, s.IntV) else (kind.copies if kind.physical else None)
        if isinstance(copies_v, s.ProvisionalV) and isinstance(copies_v.value, s.IntV):
            copies = copies_v.value.value
        if kind.physical and copies is None:
            copies = kind.copies
        if copies_v is not None:
            self._check_copies(copies, copies_v.span)
        return _Entity(
            d.kind,  # kind
            self._ancestors(ctx.game, d.kind),  # kinds
            d.id,  # id
            ctx.game,  # game
            ctx.module,  # module
            name if isinstance(name, s.LocalizedV) else s.LocalizedV((), d.id_span),  # name
            text if isinstance(text, s.LocalizedV) else None,  # text
            copies,
            self._idents(tags_v),  # tags
            source_v.value if isinstance(source_v, s.StrV) else None,  # source
            variant_v.name if isinstance(variant_v, s.CallV) else None,  # variant
            p.parent,  # parent
            d.errata,  # errata
            values,  # attrs
            effects,
            tuple(provisional),  # provisional
            d.id_span,  # span
        )

    def _check_odds(self, d: s.DeclS, p: _Pending, values: dict[str, s.Value]) -> None:
        """An odds declaration names kinds and expansions of its game; its parts sit inside one."""
        game = p.ctx.game
        parent_kind = self.ids.get((game, p.parent))[0] if p.parent else None  # type: ignore[index]
        if d.kind in ODDS_PARTS and parent_kind != ODDS_KIND:
            self.sink.error("E212", f"a `{d.kind}` is declared inside an `{ODDS_KIND}` declaration", d.span,
                            f"move it into an `{ODDS_KIND} ... {{ }}` block")
        kinds = [k for g, k in self.kind_parents if g == game]
        expansions = [x.id for x in self.modules.values() if x.game == game and x.id != "base"]
        for name, value in values.items():
            spec = BUILTIN_KINDS[d.kind].get(name)
            if spec is None or spec[0] not in ("ident", "list(ident)") or name == "show" or name == "stats" \
                    or name == "limits":
                continue
            known = expansions if name == "without" else kinds
            what = "expansion" if name == "without" else "kind"
            items = value.items if isinstance(value, s.ListV) else [value]
            for v in items:
                if isinstance(v, s.CallV) and v.name not in known:
                    self.sink.error("E206", f"`{name}` names unknown {what} `{v.name}` of game `{game}`", v.span,
                                    did_you_mean(v.name, known) or f"known: {', '.join(sorted(known))}")

    # ---- effects ----------------------------------------------------------------

    def _invocation(self, call: s.CallV, role: str, vctx: ValueContext, where: list[str],
                    procs: dict[str, Span] | None = None, fire: bool = False) -> m.Invocation:
        """One verb use, its arguments bound; with `fire`, arguments left out are the event's values at run
        time (e.g. the count of chambers_revealed), so they are not required."""
        verb = self.catalogue.verbs.get(call.name)
        if verb is None:
            self.sink.error("E300", f"unknown {role if procs is None else 'action or procedure'} `{call.name}`",
                            call.span,
                            did_you_mean(call.name, [*self.catalogue.names(*_roles_for(role)), *(procs or ())])
                            or did_you_mean(call.name, self.catalogue.verbs)
                            or "see the effect catalogue in dsl/README.md")
            return _Invocation(call.name, role, (), call.span)
        if verb.role not in _roles_for(role):
            wanted = "modifier or an action" if role == "effect" else role
            hint = (f"`may` offers a choice of an action; a modifier simply applies: write `{call.name}(...)` "
                    "without `may`" if role == "action" and verb.role == "modifier" else
                    did_you_mean(call.name, self.catalogue.names(*_roles_for(role))) or _role_place(verb.role))
            self.sink.error("E301", f"`{call.name}` is {_a(verb.role)}, but {_a(wanted)} is expected here", call.span,
                            hint)
            return _Invocation(call.name, verb.role, (), call.span)
        return _Invocation(verb.name, verb.role, self._bind(verb, call, vctx, where, fire), call.span)

    def _bind(self, verb: Verb, call: s.CallV, vctx: ValueContext, where: list[str],
              fire: bool = False) -> tuple[tuple[str, s.Value], ...]:
        bound: dict[str, s.Value] = {}
        positional = [a for a in (call.args or ()) if a.name is None]
        named = [a for a in (call.args or ()) if a.name is not None]
        if len(positional) > len(verb.params):
            extra = positional[len(verb.params)]
            self.sink.error("E304", f"`{verb.name}` takes {len(verb.params)} argument"
                            f"{'' if len(verb.params) == 1 else 's'}, not {len(positional)}", extra.span,
                            _signature(verb))
        for p, a in zip(verb.params, positional, strict=False):
            bound[p.name] = a.value
        misspelt: set[str] = set()  # parameters a misspelt name probably meant: not reported missing too
        for a in named:
            assert a.name is not None
            if verb.param(a.name) is None:
                misspelt.update(_close(a.name, [p.name for p in verb.params]))
                self.sink.error("E302", f"`{verb.name}` has no parameter `{a.name}`", a.span,
                                did_you_mean(a.name, [p.name for p in verb.params]) or _signature(verb))
                continue
            if a.name in bound:
                self.sink.error("E205", f"parameter `{a.name}` of `{verb.name}` is given twice", a.span)
                continue
            bound[a.name] = a.value
        out: list[tuple[str, s.Value]] = []
        for p in verb.params:
            if p.name not in bound:
                if fire:
                    continue
                if p.required and p.name not in misspelt:
                    self.sink.error("E303", f"`{verb.name}` needs its `{p.name}` parameter", call.span,
                                    _signature(verb))
                else:
                    out.append((p.name, default_value(p.default, call.span)))
                continue
            where[0] = vctx.where = f"{verb.name}({p.name})"
            check_value(bound[p.name], p.type, vctx)
            out.append((p.name, bound[p.name]))
        return tuple(out)

    def _cond(self, c: s.Cond, vctx: ValueContext, where: list[str]) -> m.Condition:
        return _LowerBody(self, vctx, where, None).cond(c)

    def _stmts(self, body: tuple[s.Stmt, ...], vctx: ValueContext, where: list[str],
               procs: dict[str, Span] | None = None) -> tuple[m.Statement, ...]:
        """Statements of an effect, or of a procedure when `procs` (the game's procedure names) is given."""
        return _LowerBody(self, vctx, where, procs).block(body)

    # ---- procedures -------------------------------------------------------------

    def _lower_procedures(self, ctxs: list[_FileCtx]) -> tuple[m.Procedure | m.EndRule | m.WinnerRule, ...]:
        """Procedures after the entities, so that their arguments can refer to any entity of the game."""
        names: dict[str, dict[str, Span]] = {}  # game -> procedure name -> first span
        seen: dict[tuple[str, str, str], Span] = {}
        for ctx in ctxs:
            for p in ctx.file.procedures:
                if isinstance(p, s.ProcedureS):
                    key = (ctx.game, ctx.module, p.name)
                    if key in seen:
                        first = seen[key]
                        self.sink.error("E204", f"procedure `{p.name}` is declared twice in one module", p.span,
                                        f"first declared at {first.file}:{first.line}:{first.col}; an "
                                        "expansion may replace it from its own module")
                    seen[key] = p.span
                    if p.name in self.catalogue.verbs and self.catalogue.verbs[p.name].role != "trigger":
                        self.sink.error("E204", f"procedure `{p.name}` has the name of the catalogue verb "
                                        f"`{p.name}`", p.span, "pick another name")
                    names.setdefault(ctx.game, {}).setdefault(p.name, p.span)
        out: list[m.Procedure | m.EndRule | m.WinnerRule] = []
        for ctx in ctxs:
            game = self.games[ctx.game]
            module = self.modules[_mkey(ctx)]
            procs = names.get(ctx.game, {})
            for p in ctx.file.procedures:
                where = [""]
                prov: list[tuple[str, str]] = []
                vctx = ValueContext(self.sink, module.languages, game.publish, self.sources.root, ctx.directory,
                                    self._resolver(ctx.game, where), prov)
                if isinstance(p, s.ProcedureS):
                    where[0] = f"procedure {p.name}"
                    body = self._stmts(p.body, vctx, where, procs)
                    out.append(m.Procedure(p.name, ctx.game, ctx.module, body, p.span, tuple(prov)))
                elif isinstance(p, s.EndS):
                    where[0] = "end when"
                    cond = self._cond(p.cond, vctx, where)
                    out.append(m.EndRule(ctx.game, ctx.module, cond, p.span, tuple(prov)))
                else:
                    where[0] = "winner by"
                    call = self._invocation(p.call, "action", vctx, where)
                    out.append(m.WinnerRule(ctx.game, ctx.module, call, p.span, tuple(prov)))
        return tuple(out)

    def _lower_rule(self, index: int, r: s.RuleS, vctx: ValueContext, where: list[str]) -> m.Effect:
        trigger = self._invocation(r.trigger, "trigger", vctx, where)
        cond = self._cond(r.cond, vctx, where) if r.cond is not None else None
        return _Effect(index, trigger, cond, self._stmts(r.body, vctx, where), r.span)

    # ---- errata -----------------------------------------------------------------

    def _check_errata(self, entities: list[m.Entity]) -> None:
        originals = {(e.game, e.id): e for e in entities if not e.errata}
        for e in entities:
            if not e.errata:
                continue
            target = originals.get((e.game, e.id))
            if target is None:
                self.sink.error("E208", f"errata of `{e.id}`, which the game `{e.game}` does not have", e.span,
                                did_you_mean(e.id, [i for g, i in originals if g == e.game]))
            elif target.kind != e.kind:
                self.sink.error("E208", f"errata of {target.kind} `{e.id}` must be a {target.kind}, not a {e.kind}",
                                e.span)
            elif target.module == e.module:
                self.sink.error("E208", f"errata of `{e.id}` must come from another module than the original",
                                e.span, "errata belong in the expansion that changes the card")


def _close(word: str, names: list[str]) -> list[str]:
    """The name `word` is probably a misspelling of, if any (difflib is imported only for a misspelt name)."""
    import difflib

    return difflib.get_close_matches(word, names, n=1, cutoff=0.6)


def builtin_kind(game: str, kind: str) -> m.KindDef:
    """The definition of a built-in kind (`variant`, `odds` and its parts) in a game."""
    attrs = {name: m.AttrDef(name, parse_type_string(t), required, None, doc, BUILTIN_SPAN)
             for name, (t, required, doc) in BUILTIN_KINDS[kind].items()}
    return m.KindDef(kind, game, "base", None, None, False, 0, None, attrs, BUILTIN_SPAN)


def _resolve_refs(value: s.Value, t: m.TypeExpr, resolve: Callable[[str, tuple[str, ...], Span], None]) -> None:
    """Resolve the references in a kind's default value (its shape was checked with the kind)."""
    if isinstance(value, s.ProvisionalV):
        _resolve_refs(value.value, t, resolve)
    elif t.name == "ref" and isinstance(value, s.CallV) and value.is_bare:
        resolve(value.name, tuple(str(a) for a in t.args), value.span)
    elif t.name == "list" and isinstance(value, s.ListV) and isinstance(t.args[0], m.TypeExpr):
        for item in value.items:
            _resolve_refs(item, t.args[0], resolve)


def _a(noun: str) -> str:
    return f"{'an' if noun[:1] in 'aeiou' else 'a'} {noun}"


def _roles_for(role: str) -> tuple[str, ...]:
    return ("modifier", "action") if role == "effect" else (role,)


def _role_place(role: str) -> str:
    return {
        "trigger": "triggers go after `on`",
        "condition": "conditions go after `if`",
        "modifier": "modifiers go in a rule's body",
        "action": "actions go in a rule's body",
    }[role]


def _signature(verb: Verb) -> str:
    params = ", ".join(f"{p.name}: {p.type}" + ("" if p.required else f" = {p.default}") for p in verb.params)
    return f"usage: {verb.name}({params})"


def default_value(raw: object, span: Span = BUILTIN_SPAN) -> s.Value:
    """A catalogue parameter's default (plain YAML) as the value a call without that argument gets."""
    if isinstance(raw, bool):
        return s.BoolV(raw, span)
    if isinstance(raw, int):
        return s.IntV(raw, span)
    text = str(raw)
    if text[:1] == "d" and text[1:].isdigit():
        return s.DiceV(1, int(text[1:]), span)
    return s.CallV(text, None, span)


def _mkey(ctx: _FileCtx) -> str:
    return ctx.game if ctx.module == "base" else f"{ctx.game}.{ctx.module}"


def _loc(attrs: dict[str, s.AttrS], name: str) -> s.LocalizedV | None:
    v = attrs[name].value if name in attrs else None
    return v if isinstance(v, s.LocalizedV) else None


def _str(attrs: dict[str, s.AttrS], name: str) -> str | None:
    v = attrs[name].value if name in attrs else None
    return v.value if isinstance(v, s.StrV) else None


def _bool(attrs: dict[str, s.AttrS], name: str, default: bool) -> bool:
    v = attrs[name].value if name in attrs else None
    return v.value if isinstance(v, s.BoolV) else default


def _int(attrs: dict[str, s.AttrS], name: str, default: int) -> int:
    v = attrs[name].value if name in attrs else None
    return v.value if isinstance(v, s.IntV) else default


def s_span_start(f: s.FileS) -> Span:
    return Span(f.path, 1, 1)


def _size_ok(text: str) -> bool:
    m = SIZE_RE.fullmatch(text)
    return m is not None and all(5 <= float(v) <= 1000 for v in (m[1], m[2]))


def _size_text(text: str) -> str:
    """A physical size as the IR keeps it: `63x88`, `30x30 round`."""
    m = SIZE_RE.fullmatch(text)
    assert m is not None
    return f"{m[1]}x{m[2]}" + (" round" if m[3] else "")


def _unwrap_provisional(v: s.Value | None) -> s.Value | None:
    return v.value if isinstance(v, s.ProvisionalV) else v


def _relative_name(path: Path, root: Path) -> str:
    """`path` relative to the content folder, '/'-separated (the loader keeps every source inside it)."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


DEFAULT_MAX_COPIES = 1000
# Game ids become top-level Python packages beside `cardc_runtime`: none may hide a module they import.
RESERVED_PACKAGES = frozenset(sys.stdlib_module_names) | {"cardc", "cardc_runtime", "lark", "jinja2", "yaml"}


def _max_copies(root: Path, sink: DiagnosticSink) -> int:
    """`[limits] copies` from the content folder's cardc.toml, else DEFAULT_MAX_COPIES."""
    from cardc.loader import ROOT_MARKER, display_path

    path = root / ROOT_MARKER
    try:
        limits = _limits_table(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return DEFAULT_MAX_COPIES
    except (OSError, UnicodeDecodeError, ValueError) as err:  # tomllib.TOMLDecodeError is a ValueError
        sink.error("E107", f"cannot read the limits in `{display_path(path)}`: {err}", Span(display_path(path), 1, 1))
        return DEFAULT_MAX_COPIES
    value = limits.get("copies", DEFAULT_MAX_COPIES) if isinstance(limits, dict) else DEFAULT_MAX_COPIES
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 1_000_000:
        sink.error("E107", f"`[limits] copies` in `{display_path(path)}` must be a whole number from 1 to 1,000,000",
                   Span(display_path(path), 1, 1))
        return DEFAULT_MAX_COPIES
    return value


def _limits_table(text: str) -> object:
    """The `[limits]` table of a cardc.toml text (`{}` if none), remembered on disk under the text: importing
    `tomllib` and parsing are 5-15 ms of every check after an edit."""
    from cardc import diskcache

    key = diskcache.digest("cardc.toml [limits] 1", text)
    cached = diskcache.load("toml-limits", key)
    if isinstance(cached, tuple) and len(cached) == 1:
        return cached[0]
    from cardc.tomlfast import simple_loads

    parsed = simple_loads(text)  # without importing tomllib, for a simple file
    if parsed is None:
        import tomllib

        parsed = tomllib.loads(text)
    table = parsed.get("limits", {})
    diskcache.store("toml-limits", key, (table,))
    return table


class _LowerBody(SyntaxVisitor[m.Condition | m.Statement | None]):
    """Conditions and statements of one effect or procedure from the parse tree into the IR, checking each
    verb against the catalogue. A statement that is reported and dropped becomes None."""

    def __init__(self, lowering: Lowering, vctx: ValueContext, where: list[str],
                 procs: dict[str, Span] | None) -> None:
        self.lw, self.vctx, self.where, self.procs = lowering, vctx, where, procs

    def cond(self, c: s.Cond) -> m.Condition:
        out = self.condition(c)
        assert isinstance(out, m.Invocation | m.NotCond | m.AndCond | m.OrCond)
        return out

    def block(self, body: tuple[s.Stmt, ...]) -> tuple[m.Statement, ...]:
        out = []
        for st in body:
            x = self.statement(st)
            if x is not None:
                assert not isinstance(x, m.Invocation | m.NotCond | m.AndCond | m.OrCond)
                out.append(x)
        return tuple(out)

    def visit_invocation(self, c: s.CallV) -> m.Condition:
        return self.lw._invocation(c, "condition", self.vctx, self.where)

    def visit_not(self, c: s.NotC) -> m.Condition:
        return m.NotCond(self.cond(c.cond), c.span)

    def visit_and(self, c: s.AndC) -> m.Condition:
        return m.AndCond(self.cond(c.left), self.cond(c.right), c.span)

    def visit_or(self, c: s.OrC) -> m.Condition:
        return m.OrCond(self.cond(c.left), self.cond(c.right), c.span)

    def _in_effect(self, word: str, span: Span) -> bool:
        """A procedure-only statement in an effect: reported (E305), and dropped."""
        if self.procs is None:
            self.lw.sink.error("E305", f"`{word}` belongs in a procedure, not in an effect", span,
                               "declare it in `procedure NAME { ... }`; an effect's `on TRIGGER` already says when")
        return self.procs is None

    def visit_do(self, st: s.DoS) -> m.Statement:
        procs, lw = self.procs, self.lw
        if procs is not None and st.call.name in procs and st.call.name not in lw.catalogue.verbs:
            if st.call.args:
                lw.sink.error("E304", f"procedure `{st.call.name}` takes no arguments", st.call.span)
            return m.Run(st.call.name, st.span)
        return _Do(lw._invocation(st.call, "effect", self.vctx, self.where, procs), st.span)

    def visit_fire(self, st: s.FireS) -> m.Statement | None:
        if self._in_effect("fire", st.span):
            return None
        return m.Fire(self.lw._invocation(st.trigger, "trigger", self.vctx, self.where, fire=True), st.span)

    def visit_repeat(self, st: s.RepeatS) -> m.Statement | None:
        if self._in_effect("repeat", st.span):
            return None
        return m.Repeat(st.count, self.block(st.body), st.span)

    def visit_while(self, st: s.WhileS) -> m.Statement | None:
        if self._in_effect("while", st.span):
            return None
        return m.While(self.cond(st.cond), self.block(st.body), st.span)

    def visit_for_each(self, st: s.ForEachS) -> m.Statement | None:
        if self._in_effect("for each", st.span):
            return None
        if st.what not in m.FOR_EACH:
            self.lw.sink.error("E306", f"`for each {st.what}` walks over nothing known", st.span,
                               did_you_mean(st.what, m.FOR_EACH) or f"known: {', '.join(m.FOR_EACH)}")
        return m.ForEach(st.what, self.block(st.body), st.span)

    def visit_may(self, st: s.MayS) -> m.Statement:
        return m.May(self.lw._invocation(st.call, "action", self.vctx, self.where), st.span)

    def visit_choose(self, st: s.ChooseS) -> m.Statement:
        sink = self.lw.sink
        seen: set[str] = set()
        options = []
        for o in st.options:
            if o.name in seen:
                sink.error("E204", f"option `{o.name}` is given twice", o.span)
            seen.add(o.name)
            guard = None
            if o.guard is not None:  # offered only while the condition holds (in an effect too)
                guard = self.cond(o.guard)
            options.append(m.Option(o.name, self.block(o.body), o.span, guard))
        return m.Choose(tuple(options), st.span)

    def visit_if(self, st: s.IfS) -> m.Statement:
        return m.If(self.cond(st.cond), self.block(st.then), self.block(st.orelse), st.span)
