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
    from cardc.lower import Trace

NAMESPACE = "check-incr"
ENV_NAMESPACE = "check-env"


def store(state: Lookup | None, result: CheckResult, trace: Trace) -> None:
    """Store the trace of a check that `checkcache.remember` stored with `result`, under the same key (so only the
    last one is kept). Its diagnostics are kept as their places in `result.diagnostics` (a result holds each
    diagnostic once), its lowered entities not at all, its environment once per full run (a recheck does not
    change it)."""
    from dataclasses import replace

    if state is None or state.files is None:
        return
    place = {d: i for i, d in enumerate(result.diagnostics)}
    try:
        places = [place[d] for d in trace.items]
    except KeyError:  # pragma: no cover - the result is made from these very items
        return
    env_key = trace.env_key
    if not env_key:
        env_key = diskcache.digest(state.key, "environment", *(part for item in state.files.items() for part in item))
        diskcache.store(ENV_NAMESPACE, env_key, trace.env)
    diskcache.store(NAMESPACE, state.key,
                    (state.files, replace(trace, items=[], lowered=[], env=(), places=places, env_key=env_key)))


def _header(d: s.DeclS) -> tuple[object, ...]:
    """What the passes before the entities read of an entity declaration (they declare its id and kind)."""
    return d.kind, d.id, d.errata, d.extends, d.id_span, tuple(_header(x) for x in d.decls)


def _edited_decls(old: s.FileS, new: s.FileS) -> list[int] | None:
    """The indices of the top-level declarations that differ, if each is an entity with the same header and
    the rest of the file is the same; else None."""
    from cardc.lower import BUILTIN_DECLS

    if (old.path, old.module, old.imports, old.procedures) != (new.path, new.module, new.imports, new.procedures) \
            or len(old.decls) != len(new.decls):
        return None
    out = []
    for i, (a, b) in enumerate(zip(old.decls, new.decls, strict=True)):
        if a is b or a == b:
            continue
        if a.kind in BUILTIN_DECLS or _header(a) != _header(b):
            return None
        out.append(i)
    return out


def _lines_of(tree: s.FileS, decl: s.DeclS) -> tuple[int, int]:
    """The lines a top-level declaration may take: from its span's (its kind: all of it comes after) to the
    line where the next part of the file starts (or the end of the file)."""
    first = decl.span.line
    later = [p.span.line for p in (*tree.imports, *tree.decls, *tree.procedures) if p.span.line > first]
    return first, min(later, default=sys.maxsize)


def recheck(state: Lookup | None) -> tuple[CheckResult | None, Trace | None]:
    """After a miss of `lookup` (and of `lookup_moved`): the result of checking the edited files again, entity
    by entity, against the trace of the last stored check; and the trace of this result, to store with it."""
    from cardc.catalogue import default_catalogue
    from cardc.loader import LoadedSources, display_path, edited_parse, parse_stored, stored_parse
    from cardc.lower import Lowering, Trace
    from cardc.textcheck import hand_text_warnings

    if state is None or state.files is None or state.root is None or state.previous is None:
        return None, None
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
    if len(trace.items) != trace.done + sum(n for _, n in trace.hand) or len(trace.gave) != len(trace.entities):
        return None, None
    sources = dict(result.sources)
    edits: dict[str, tuple[s.FileS, list[int], Path]] = {}  # shown name -> new tree, edited decls, real path
    for rel in changed:
        shown = display_path(state.root / rel)
        old_text = result.sources.get(shown)
        if old_text is None:
            return None, None  # not a file the check read
        try:
            text = (state.root / rel).read_text(encoding="utf-8-sig")  # as the loader reads it
        except (OSError, UnicodeDecodeError):
            return None, None
        old = stored_parse(old_text, shown)
        if old is None:
            return None, None
        new = stored_parse(text, shown) or edited_parse(old_text, old, shown, text) or parse_stored(text, shown)
        if new is None or new[1] != old[1]:
            return None, None  # a syntax error, or other parse warnings: found afresh
        indices = _edited_decls(old[0], new[0])
        if indices is None:
            return None, None
        lines = [_lines_of(old[0], old[0].decls[i]) for i in indices]
        for d in [*trace.items[trace.loaded:trace.start], *trace.items[trace.end:trace.done]]:
            if shown in d.message or shown in (d.hint or ""):
                return None, None
            if d.span.file == shown and any(d.span.line <= last and max(d.span.end_line, d.span.line) >= first
                                            for first, last in lines):
                return None, None  # a pass outside the entities reported something inside an edited one
        sources[shown] = text
        edits[shown] = (new[0], indices, state.root / rel)
    env = diskcache.load(ENV_NAMESPACE, trace.env_key)
    if not isinstance(env, tuple):
        return None, None
    lowering = Lowering(LoadedSources(root=state.root, real_paths={k: v[2] for k, v in edits.items()}),
                        default_catalogue(), DiagnosticSink())
    lowering.restore(env)
    made: dict[int, tuple[m.Entity | None, list[Diagnostic]]] = {}  # pending index -> (entity, its diagnostics)
    for shown, (tree, indices, _) in edits.items():
        lowering.sink = DiagnosticSink()
        ctx = lowering._file_ctx(tree)  # noqa: SLF001 - the lowering's own view of a file
        if ctx is None or lowering.sink.items:
            return None, None
        for i in indices:
            pending = [j for j, top in enumerate(trace.tops) if top == (shown, i)]
            again = lowering.relower(tree.decls[i], ctx)
            if len(again) != len(pending):
                return None, None
            for j, entity_and_diags in zip(pending, again, strict=True):
                if (entity_and_diags[0] is not None) != trace.gave[j]:
                    return None, None
                made[j] = entity_and_diags
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
    checked = CheckResult(DiagnosticSink(items).sorted(), sources, result.modules, result.entities, result.files)
    return checked, Trace(items=items, loaded=trace.loaded, start=trace.start, tops=trace.tops, entities=ranges,
                          gave=trace.gave, end=end, done=done, hand=hand, env_key=trace.env_key)
