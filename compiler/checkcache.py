"""`cardc check` remembered: the same files, checked by the same compiler, give the same diagnostics.

The entry's key names what a run is made of besides the files: the compiler's code and language data, the
catalogue in use, the working folder (paths are shown relative to it), the content folder and the paths as
given. The entry lists every file under the content folder with the hash of its bytes (sources, sheets,
`cardc.toml`, the images and templates a path names); it is used only when each file is unchanged and none
was added or removed. Only a run without errors is stored (an error is always found afresh), and only when no
file changed while it ran. A content folder holding a symbolic link is never cached (its target is outside
what is hashed).

An edit that leaves every parse tree as it was (a comment, blank lines at the end, a `cardc fmt` that moves
nothing) is recognised one step later: a second entry is keyed on the parse trees of the `.cardc` files (a hash
of each tree with its parse warnings, remembered per file text) and the bytes of every other file. Lowering and
the checks read only those, so the same trees give the same diagnostics; the texts are read afresh for the
report. A file that does not parse cleanly turns this off (its errors are always found afresh).

Before that, an edit of comments, blank lines or spacing alone is recognised without parsing (`lookup_moved`):
the edited texts have the same tokens as the ones the last stored result was made from, so the stored
diagnostics hold, each moved to where its tokens now are (`cardc.spanmap`).
"""

from __future__ import annotations

import dataclasses
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from cardc import diskcache
from cardc.diagnostics import Diagnostic

if TYPE_CHECKING:
    from cardc.lower import Trace
    from cardc.model import Project

SKIPPED_DIRS = frozenset({".git", ".hg", ".svn", "__pycache__", ".cardc-cache"})  # never read by a check


@dataclass(frozen=True)
class CheckResult:
    """What `cardc check` reports: the diagnostics, the texts they point into, and the counts."""

    diagnostics: list[Diagnostic]
    sources: dict[str, str]
    modules: dict[str, str]
    entities: int
    files: int


@dataclass(frozen=True)
class Lookup:
    key: str
    files: dict[str, str] | None  # relative path -> hash of its bytes; None: this folder cannot be cached
    root: Path | None = None
    trees: str | None = None  # the key of the parse-tree entry, once `lookup_trees` has computed it
    # the stored entry when it is for other file contents: its files' hashes and result (never with --schema)
    previous: tuple[dict[str, str], CheckResult] | None = None
    # `lookup_trees` found no parse-tree entry in the cache folder, so did not hash the trees: `remember` does
    trees_later: bool = False


def _content_hashes(root: Path) -> dict[str, str] | None:
    """Every file under `root` with the hash of its bytes; None (do not cache) if a symbolic link, a file that
    is not a regular one (a FIFO would block the read) or an unreadable file is met. Keys are `/`-separated
    paths relative to `root`, sorted (plain strings: this runs on every check)."""
    out: dict[str, str] = {}
    todo = [(str(root), "")]
    while todo:
        folder, prefix = todo.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            return None
        for entry in entries:
            try:
                if entry.is_symlink():
                    return None
                if entry.is_dir(follow_symlinks=False):
                    if entry.name not in SKIPPED_DIRS:
                        todo.append((entry.path, f"{prefix}{entry.name}/"))
                    continue
                if not stat.S_ISREG(entry.stat(follow_symlinks=False).st_mode):
                    return None
                with open(entry.path, "rb") as f:
                    data = f.read()
            except OSError:
                return None
            out[prefix + entry.name] = diskcache.content_hash(data)
    return dict(sorted(out.items()))


def lookup(paths: list[Path], schema: bool) -> tuple[CheckResult | None, Lookup | None]:
    """The remembered result of checking `paths`, if every input is unchanged; and what to store it under."""
    from cardc import catalogue as cat
    from cardc.loader import find_content_root

    if diskcache.cache_root() is None:
        return None, None
    diskcache.wait_for_writer()  # the entries of a check that has just ended, still being written
    root = find_content_root(paths).resolve()
    try:
        catalogue = cat.CATALOGUE_PATH.read_bytes()
    except OSError:
        return None, None
    key = diskcache.digest(diskcache.code_fingerprint(), str(cat.CATALOGUE_PATH), catalogue, str(Path.cwd()),
                           str(root), "\0".join(str(p) for p in paths), "schema" if schema else "")
    files = _content_hashes(root)
    state = Lookup(key, files, root)
    if files is None:
        return None, state
    entry = diskcache.load("check", key)
    if isinstance(entry, tuple) and len(entry) == 2 and isinstance(entry[0], dict):
        result = entry[1]
        if isinstance(result, str):  # the key of the same result stored by its trees (`remember`)
            result = diskcache.load("check-trees", result)
        if isinstance(result, CheckResult):
            if entry[0] == files:
                return result, state
            if not schema:
                state = Lookup(key, files, root, previous=(entry[0], result))
    return None, state


# A message or hint that names a place by its line ("first given at line 4", "first declared at a.cardc:4:3")
# would have to change with the lines: a result holding one is not moved but recomputed.
_NAMES_A_LINE = r"\bline \d|\d:\d"  # compiled by `re` when first used: a cached check does not


def lookup_moved(state: Lookup | None) -> CheckResult | None:
    """After a miss of `lookup`: the stored result of the last check, if since then only `.cardc` files changed
    and only in their comments, blank lines and spacing (`cardc.spanmap`: the same tokens, so the same parse
    trees but for positions, so the same diagnostics at the tokens' new positions). Neither parses nor loads a
    tree: the edited texts are compared with the ones the stored result was made from."""
    if state is None or state.files is None or state.root is None or state.previous is None:
        return None
    from cardc.loader import display_path
    from cardc.spanmap import SpanMap  # (not imported by a check with nothing stored before)

    before, result = state.previous
    changed = [rel for rel in sorted(set(before) | set(state.files)) if before.get(rel) != state.files.get(rel)]
    if not changed or any(not rel.endswith(".cardc") or rel not in before or rel not in state.files
                          for rel in changed):
        return None
    maps: dict[str, SpanMap] = {}
    sources = dict(result.sources)
    for rel in changed:
        shown = display_path(state.root / rel)
        old = result.sources.get(shown)
        if old is None:
            return None
        try:
            new = diskcache.read_text(state.root / rel)  # as the loader reads it
        except (OSError, UnicodeDecodeError):
            return None
        moved = SpanMap(old, new)  # after a value or a name edited, it stops at the first difference
        if not moved.same_tokens:
            return None
        maps[shown] = moved
        sources[shown] = new
    diagnostics = []
    for d in result.diagnostics:
        words = d.message + "\0" + (d.hint or "")
        if any(shown in words for shown in maps) or re.search(_NAMES_A_LINE, words):
            return None  # wherever it is reported, a line named in its text might be one that moved
        moved_in = maps.get(d.span.file)
        if moved_in is not None:
            span = moved_in.span(d.span)
            if span is None:
                return None
            d = dataclasses.replace(d, span=span)
        diagnostics.append(d)
    return CheckResult(diagnostics, sources, result.modules, result.entities, result.files)


def lookup_trees(state: Lookup | None) -> tuple[CheckResult | None, Lookup | None]:
    """After a miss of `lookup`: the result remembered for the same parse trees (the `.cardc` files parsed,
    or their trees' hashes taken from the cache) and the same other files; and the state with its key."""
    if state is None or state.files is None or state.root is None:
        return None, state
    if not _may_hold("check-trees"):
        # No entry can match: the trees' hashes (each tree pickled and hashed) are for storing the result, which
        # `remember` does, after the command's report when writes are deferred. (Parsing the files first here
        # made no difference: the loader parses each once either way.)
        return None, dataclasses.replace(state, trees_later=True)
    trees = _trees_key(state)
    if trees is None:
        return None, state
    state = dataclasses.replace(state, trees=trees)
    entry = diskcache.load("check-trees", trees)
    if not isinstance(entry, CheckResult):
        return None, state
    sources = {}
    for shown, text in entry.sources.items():
        if shown.endswith(".cardc"):  # the same tree from another text: report against the text on disk
            try:
                text = diskcache.read_text(shown)
            except (OSError, UnicodeDecodeError):
                return None, state
        sources[shown] = text
    return CheckResult(entry.diagnostics, sources, entry.modules, entry.entities, entry.files), state


def _may_hold(namespace: str) -> bool:
    """Whether the cache folder may hold an entry of `namespace` (its folder exists)."""
    root = diskcache.cache_root()
    return root is not None and os.path.isdir(os.path.join(root, namespace))


def _trees_key(state: Lookup) -> str | None:
    """The key of the parse-tree entry for `state`'s files (`lookup_trees`), parsing those whose parse is neither
    stored nor made in this process; None if one cannot be read or does not parse cleanly."""
    from cardc.collector import paused

    assert state.files is not None and state.root is not None
    parts = [state.key]
    earlier = state.previous[1].sources if state.previous is not None else {}  # texts of the last stored check
    with paused():  # the trees parsed here live on (the front end takes them): acyclic, nothing for the collector
        for rel, hashed in state.files.items():  # sorted by name
            if rel.endswith(".cardc"):
                tree = _tree_digest(state.root / rel, earlier)
                if tree is None:
                    return None
                parts += [rel, "tree", tree]
            else:
                parts += [rel, "bytes", hashed]
    return diskcache.digest(*parts)


def _tree_digest(path: Path, earlier: dict[str, str]) -> str | None:
    """A hash of the file's parse tree and parse warnings, as the loader would make them; None if it cannot
    be read or does not parse cleanly. It is the hash of the stored parse (`loader.parse_digest`), so an
    unchanged file is neither parsed nor unpickled. `earlier` holds texts the files had before (by shown
    name): a tree after an edit inside one string, number or name is made from the earlier text's tree
    (`cardc.literal_edit`), without parsing."""
    from cardc.diagnostics import DiagnosticSink
    from cardc.loader import MAX_CACHED_TEXT, display_path, parse_cached, parse_digest

    try:
        text = diskcache.read_text(path)
    except (OSError, UnicodeDecodeError):
        return None
    if len(text) > MAX_CACHED_TEXT:  # as the loader, which does not store the tree of a file this large
        return None
    display = display_path(path)
    known = parse_digest(text, display)
    if known is not None:
        return known
    sink = DiagnosticSink()
    tree = parse_cached(text, display, sink, earlier.get(display))
    if tree is None or sink.has_errors:
        return None
    return parse_digest(text, display)  # None if the parse could not be stored


def remember(state: Lookup | None, paths: list[Path], result: CheckResult, trace: Trace | None = None) -> None:
    """Store `result` for the next run, if it has no error and no file changed since `lookup` hashed them;
    with the `trace` of the run that made it (`cardc.recheck`). Deferred with the cache's other writes
    (`diskcache.later`)."""
    if state is None or state.files is None or any(d.is_error for d in result.diagnostics):
        return
    diskcache.later(lambda: _remember(state, paths, result, trace))


def _remember(state: Lookup, paths: list[Path], result: CheckResult, trace: Trace | None) -> None:
    from cardc.loader import find_content_root

    if state.trees_later:  # as `lookup_trees` would have made it (the trees are the loader's, remembered)
        state = dataclasses.replace(state, trees=_trees_key(state), trees_later=False)
    if _content_hashes(find_content_root(paths).resolve()) != state.files:
        return  # edited while the check ran: the result may describe either version
    if state.trees is not None:  # the result is pickled and written once, found from both keys
        diskcache.store("check-trees", state.trees, result)
        diskcache.store("check", state.key, (state.files, state.trees))
    else:
        diskcache.store("check", state.key, (state.files, result))
    if trace is not None:
        from cardc.recheck import store

        store(state, result, trace)


def schema_diagnostics(project: Project) -> list[Diagnostic]:
    """`schema.validate_project(project)`, remembered: a pass is stored under the IR's JSON (each game's, and
    the schema of its kinds), the catalogue's text and the compiler's code; a failure is validated afresh.

    Each game's JSON is made once, for the key and the validation, with the cyclic collector paused (a large
    acyclic tree), and the key is hashed from orjson's text of it: at 10,000 cards json's sorted text cost as
    much as validating."""
    import gc

    from cardc.catalogue import default_catalogue
    from cardc.irjson import project_json
    from cardc.schema import kinds_schema, validate_project

    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        data = {game: project_json(project, game) for game in sorted(project.games)}
        if diskcache.cache_root() is None:
            return validate_project(project, data=data)
        parts: list[str | bytes] = [diskcache.code_fingerprint(), default_catalogue().source]
        for game in sorted(project.games):
            parts.append(_key_text(data[game]))
            parts.append(_key_text(kinds_schema(project, game)))
        key = diskcache.digest(*parts)
        if diskcache.load("schema", key) is True:
            return []
        found = validate_project(project, data=data)
        if not found:
            diskcache.store("schema", key, True)
        return found
    finally:
        if gc_was_enabled:
            gc.enable()


def _key_text(value: object) -> bytes:
    """A text of JSON-like `value` that differs when it differs (keys sorted): orjson's, json's if orjson
    cannot write it."""
    import json

    try:
        import orjson

        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS, default=str)
    except (ImportError, TypeError):  # orjson.JSONEncodeError is a TypeError (an integer beyond 64 bits)
        return json.dumps(value, sort_keys=True, default=str).encode()
