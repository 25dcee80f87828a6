"""`cardc check` after an edit inside entity declarations: only the edited entities are lowered and checked again.

A full check that can be stored also stores where each entity's diagnostics fall among all the diagnostics of
the run, in the order the front end made them, and what lowering an entity reads besides its own declaration,
the catalogue and the content folder: the games, modules, kinds and ids (`lower.Trace`). When the next check
finds that only `.cardc` files changed since that run, each changed file's new tree (made from the stored one
without parsing when a few literals changed, `cardc.literal_edit`, else parsed) is compared with the old one,
declaration by declaration. If the module line, the imports, the procedures and the parse warnings are the
same, every game, expansion and kind declaration is the same, and each declaration that differs is an entity
whose header is the same (kind, id, `errata`, `extends` and the id's place, and so for every declaration nested
in it), then every game, kind and id is what it was, so every other entity lowers as it did and the passes
before and after the entities report what they did. The run's diagnostics are then the stored ones with the
edited entities' own (lowering and W501) made again, in the same order, sorted as the front end sorts them.

Anything else is left to the steps after it (`checkcache.lookup_trees`, the full front end); so is a stored
diagnostic of those passes that lies inside an edited declaration or names an edited file in its text.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from cardc import diskcache
from cardc.checkcache import CheckResult, Lookup
from cardc.diagnostics import Diagnostic, DiagnosticSink

if TYPE_CHECKING:
    from cardc import model as m
    from cardc import syntax as s
    from cardc.lower import Lowering, Trace

NAMESPACE = "check-incr"
ENV_NAMESPACE = "check-env"


def store(state: Lookup | None, result: CheckResult, trace: Trace) -> None:
    """Store the trace of a check that `checkcache.remember` stored with `result`, under the same key (so only the
    last one is kept). Its diagnostics are kept as their places in `result.diagnostics` (a result holds each
    diagnostic once), its lowered entities not at all, its environment only when it is new (a full run, a
    rename: other rechecks keep the one they read), in one entry per check key that names its version."""
    from dataclasses import replace

    if state is None or state.files is None:
        return
    place = {d: i for i, d in enumerate(result.diagnostics)}
    try:
        places = [place[d] for d in trace.items]
    except KeyError:  # pragma: no cover - the result is made from these very items
        return
    env_key = trace.env_key
    if not env_key:  # one entry per check key, overwritten; the trace names the version it goes with
        env_key = diskcache.digest(state.key, "environment", *(part for item in state.files.items() for part in item))
        diskcache.store(ENV_NAMESPACE, diskcache.digest(state.key, "environment"), (env_key, trace.env))
    diskcache.store(NAMESPACE, state.key,
                    (state.files, replace(trace, items=[], lowered=[], env=(), places=places, env_key=env_key)))


def _renames(a: s.DeclS, b: s.DeclS, out: list[tuple[s.DeclS, s.DeclS]]) -> bool:
    """Whether the headers of `a` and `b` (kind, id, `errata`, `extends`, the id's place, and so for every
    declaration nested in them) are the same but for ids renamed in place, each added to `out` as (old, new):
    the id of an entity that is not errata nor a built-in kind (variants name Python modules, odds tables
    are read by the tools)."""
    from cardc.lower import BUILTIN_DECLS, BUILTIN_KINDS

    if (a.kind, a.errata, a.extends, len(a.decls)) != (b.kind, b.errata, b.extends, len(b.decls)):
        return False
    if a.id != b.id:
        if a.errata or a.kind in BUILTIN_KINDS or a.kind in BUILTIN_DECLS \
                or (a.id_span.line, a.id_span.col) != (b.id_span.line, b.id_span.col):
            return False
        out.append((a, b))
    elif a.id_span != b.id_span:
        return False
    return all(_renames(x, y, out) for x, y in zip(a.decls, b.decls, strict=True))


def _edited_decls(old: s.FileS, new: s.FileS) -> tuple[list[int], list[tuple[s.DeclS, s.DeclS]]] | None:
    """The indices of the top-level declarations that differ and the ids renamed in them, if each is an entity
    whose header is the same but for renamed ids and the rest of the file is the same; else None."""
    from cardc.lower import BUILTIN_DECLS

    if (old.path, old.module, old.imports, old.procedures) != (new.path, new.module, new.imports, new.procedures) \
            or len(old.decls) != len(new.decls):
        return None
    out: list[int] = []
    renames: list[tuple[s.DeclS, s.DeclS]] = []
    for i, (a, b) in enumerate(zip(old.decls, new.decls, strict=True)):
        if a is b or a == b:
            continue
        if a.kind in BUILTIN_DECLS or not _renames(a, b, renames):
            return None
        out.append(i)
    return out, renames


def _lines_of(tree: s.FileS, decl: s.DeclS) -> tuple[int, int]:
    """The lines a top-level declaration may take: from its span's (its kind: all of it comes after) to the
    line where the next part of the file starts (or the end of the file)."""
    first = decl.span.line
    later = [p.span.line for p in (*tree.imports, *tree.decls, *tree.procedures) if p.span.line > first]
    return first, min(later, default=sys.maxsize)


Made = tuple["m.Entity | None", list[Diagnostic], list[tuple[str, str]]]


def recheck(state: Lookup | None) -> tuple[CheckResult | None, Trace | None]:
    """After a miss of `lookup` (and of `lookup_moved`): the result of checking the edited files again, entity
    by entity, against the trace of the last stored check; and the trace of this result, to store with it.

    A renamed entity (`hero ann` -> `hero anna`) is checked again with every entity that looked its old or
    new id up, when the new id is free and neither errata nor the passes after the entities (procedures) name
    either; the new ids are stored with the result."""
    if state is None or state.files is None or state.root is None or state.previous is None:
        return None, None
    from cardc.catalogue import default_catalogue
    from cardc.loader import LoadedSources, display_path, edited_parse, parse_stored, stored_parse
    from cardc.lower import Lowering, Trace
    from cardc.textcheck import hand_text_warnings

    before, result = state.previous
    changed = [rel for rel in sorted(set(before) | set(state.files)) if before.get(rel) != state.files.get(rel)]
    if not changed or any(not rel.endswith(".cardc") or rel not in before or rel not in state.files
                          for rel in changed):
        return None, None
    entry = diskcache.load(NAMESPACE, state.key)
    if not (isinstance(entry, tuple) and len(entry) == 2 and entry[0] == before and isinstance(entry[1], Trace)):
        return None, None
    trace = entry[1]
    try:
        trace.items = [result.diagnostics[i] for i in trace.places]
    except (IndexError, TypeError):
        return None, None
    if len(trace.items) != trace.done + sum(n for _, n in trace.hand) or not \
            len(trace.gave) == len(trace.entities) == len(trace.names) == len(trace.tops):
        return None, None
    sources = dict(result.sources)
    # shown name -> the tree to lower from, its top-level declarations to lower again, its real path
    edits: dict[str, tuple[s.FileS, set[int], Path]] = {}
    renames: list[tuple[s.FileS, s.DeclS, s.DeclS]] = []
    for rel in changed:
        shown = display_path(state.root / rel)
        old_text = result.sources.get(shown)
        if old_text is None:
            return None, None  # not a file the check read
        try:
            text = diskcache.read_text(state.root / rel)  # as the loader reads it
        except (OSError, UnicodeDecodeError):
            return None, None
        old = stored_parse(old_text, shown)
        if old is None:
            return None, None
        new = stored_parse(text, shown) or edited_parse(old_text, old, shown, text) or parse_stored(text, shown)
        if new is None or new[1] != old[1]:
            return None, None  # a syntax error, or other parse warnings: found afresh
        found = _edited_decls(old[0], new[0])
        if found is None:
            return None, None
        indices, renamed = found
        lines = [_lines_of(old[0], old[0].decls[i]) for i in indices]
        for d in [*trace.items[trace.loaded:trace.start], *trace.items[trace.end:trace.done]]:
            if shown in d.message or shown in (d.hint or ""):
                return None, None
            if d.span.file == shown and any(d.span.line <= last and max(d.span.end_line, d.span.line) >= first
                                            for first, last in lines):
                return None, None  # a pass outside the entities reported something inside an edited one
        sources[shown] = text
        edits[shown] = (new[0], set(indices), state.root / rel)
        renames += [(new[0], a, b) for a, b in renamed]
    stored_env = diskcache.load(ENV_NAMESPACE, diskcache.digest(state.key, "environment"))
    if not (isinstance(stored_env, tuple) and len(stored_env) == 2 and stored_env[0] == trace.env_key
            and isinstance(stored_env[1], tuple)):
        return None, None  # another run's (a store cut short between the two entries): found afresh
    env = stored_env[1]
    lowering = Lowering(LoadedSources(root=state.root), default_catalogue(), DiagnosticSink())
    lowering.restore(env)
    env_key = trace.env_key
    if renames:
        looked_up = _rename(lowering, renames, trace.after)
        if looked_up is None:
            return None, None
        for j, looked in enumerate(trace.names):  # every entity that looked up an old or a new id
            if looked_up.intersection(looked):
                shown, i = trace.tops[j]
                if shown not in edits:
                    stored = stored_parse(result.sources.get(shown, ""), shown) if shown in result.sources else None
                    if stored is None:
                        return None, None
                    edits[shown] = (stored[0], set(), Path(shown).resolve())
                edits[shown][1].add(i)
        env, env_key = lowering.environment(), ""  # stored anew with the result
    lowering.sources.real_paths.update((shown, edit[2]) for shown, edit in edits.items())
    made: dict[int, Made] = {}  # pending index -> (entity, its diagnostics, the ids it looked up)
    for shown, (tree, again_in, _) in edits.items():
        lowering.sink = DiagnosticSink()
        ctx = lowering._file_ctx(tree)  # noqa: SLF001 - the lowering's own view of a file
        if ctx is None or lowering.sink.items:
            return None, None
        for i in sorted(again_in):
            pending = [j for j, top in enumerate(trace.tops) if top == (shown, i)]
            again = lowering.relower(tree.decls[i], ctx)
            if len(again) != len(pending):
                return None, None
            for j, lowered in zip(pending, again, strict=True):
                if (lowered[0] is not None) != trace.gave[j]:
                    return None, None
                made[j] = lowered
    items = trace.items[:trace.start]
    ranges = []
    for j, (first, end) in enumerate(trace.entities):
        start = len(items)
        items += made[j][1] if j in made else trace.items[first:end]
        ranges.append((start, len(items)))
    end = len(items)
    items += trace.items[trace.end:trace.done]
    done = len(items)
    hand = []
    at = trace.done
    for j, n in trace.hand:
        warnings = trace.items[at:at + n]
        at += n
        if j in made:
            entity = made[j][0]
            warnings = hand_text_warnings(entity) if entity is not None else []
        hand.append((j, len(warnings)))
        items += warnings
    names = [made[j][2] if j in made else looked for j, looked in enumerate(trace.names)]
    checked = CheckResult(DiagnosticSink(items).sorted(), sources, result.modules, result.entities, result.files)
    return checked, Trace(items=items, loaded=trace.loaded, start=trace.start, tops=trace.tops, entities=ranges,
                          gave=trace.gave, end=end, done=done, hand=hand, env=env, env_key=env_key, names=names,
                          after=trace.after)


def _rename(lowering: Lowering, renames: list[tuple[s.FileS, s.DeclS, s.DeclS]],
            after: list[tuple[str, str]]) -> set[tuple[str, str]] | None:
    """Give the lowering's ids the new names, in the places the old ones had (as a run over the new text
    declares them); the (game, id) of every old and new name. None if a new id is taken, an old one is not
    this declaration's, or errata or a procedure names either."""
    ids = dict(lowering.ids)
    touched: set[tuple[str, str]] = set()
    for tree, a, b in renames:
        game = tree.module.name.partition(".")[0] if tree.module is not None else ""
        old, new = (game, a.id), (game, b.id)
        if ids.get(old) != (a.kind, a.id_span) or new in ids or old in after or new in after:
            return None
        ids = {(new if key == old else key): ((b.kind, b.id_span) if key == old else value)
               for key, value in ids.items()}
        touched.update((old, new))
    lowering.ids = ids
    return touched
