"""Finding and reading source files: paths given on the command line, their imports, cycles."""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from cardc.diagnostics import NO_SPAN, Diagnostic, DiagnosticSink, Span

if TYPE_CHECKING:  # parse trees are made (and their classes imported) only when a file is loaded
    from cardc import syntax as s

SHEET_SUFFIXES = (".csv", ".xlsx")  # card lists kept in spreadsheets (cardc.sheets)

SOURCE_SUFFIX = ".cardc"
ROOT_MARKER = "cardc.toml"


def display_path(path: Path) -> str:
    """The path as diagnostics and IR spans show it: relative to the working directory when inside it."""
    if os.sep == "/" and isinstance(path, PurePosixPath):  # a plain path below the folder: its text after it
        text, cwd = str(path), os.getcwd()
        if text.startswith(cwd) and text[len(cwd):len(cwd) + 1] == "/" and "/.." not in text and cwd != "/":
            return text[len(cwd) + 1:]  # what the lines below give it, without making three paths (~0.1 ms)
    cwd_path = Path.cwd()
    if path.is_relative_to(cwd_path):
        return Path(os.path.relpath(path, cwd_path)).as_posix()
    return path.as_posix()


def find_content_root(paths: list[Path]) -> Path:
    """The content folder: the nearest folder holding `cardc.toml` above the first path, else that path's folder."""
    first = paths[0].resolve() if paths else Path.cwd()
    start = first if first.is_dir() else first.parent
    for folder in (start, *start.parents):
        if (folder / ROOT_MARKER).is_file():
            return folder
    return start


@dataclass
class LoadedSources:
    root: Path
    files: list[s.FileS] = field(default_factory=list)
    texts: dict[str, str] = field(default_factory=dict)  # display path -> text
    real_paths: dict[str, Path] = field(default_factory=dict)
    # spreadsheets imported `as KIND`: (file, kind, the importing file's module, the import's span)
    sheets: list[tuple[Path, str, s.ModuleS | None, Span]] = field(default_factory=list)
    overlay: dict[Path, str] = field(default_factory=dict)  # resolved path -> unsaved text
    # each folder a path was resolved in during this load -> its resolved path (`_resolve`)
    folders: dict[str, Path] = field(default_factory=dict, repr=False, compare=False)


def _resolve(path: Path, folders: dict[str, Path]) -> Path:
    """`path.resolve()`, with the resolved folder remembered in `folders` (for one load: the files of a folder
    and their imports share it). `Path.resolve` looks at every component of every path: a check resolved some
    100 paths, 600 `lstat`s and 8 ms. Only the last component is looked at here; a symbolic link there, a name
    that moves up (`..`) and other systems than POSIX go the whole way."""
    if os.sep != "/":  # pragma: no cover - Windows
        return path.resolve()
    head, name = os.path.split(os.fspath(path))
    if name in ("", ".", "..") or not head:
        return path.resolve()
    real = folders.get(head)
    if real is None:
        real = folders[head] = Path(head).resolve()  # raises as `path.resolve()` would for a loop in the folders
    found = real / name
    if os.path.islink(found):
        return path.resolve()
    return found


def load(paths: list[Path], sink: DiagnosticSink, overlay: Mapping[Path, str] | None = None) -> LoadedSources:
    """Parse every given file (folders: every `*.cardc` below, sorted) and, transitively, its imports.

    `overlay` maps resolved paths to texts read instead of the disk: an editor's unsaved buffers.
    """
    root = find_content_root(paths)
    out = LoadedSources(root=root.resolve(), overlay=dict(overlay or {}))
    queue: list[tuple[Path, Span]] = []
    for p in paths:
        if p.is_dir():
            below = set(p.rglob(f"*{SOURCE_SUFFIX}"))
            folder = p.resolve()
            below.update(f for f in out.overlay if f.suffix == SOURCE_SUFFIX and folder in f.parents)
            queue.extend((f, NO_SPAN) for f in sorted(below))
        elif p.is_file():
            queue.append((p, NO_SPAN))
        else:
            sink.error("E110", f"no such file or folder: {p}", NO_SPAN)
    done: dict[Path, s.FileS | None] = {}
    for path, span in queue:
        _load_file(_resolve(path, out.folders), span, out, done, sink, stack=[])
    _load_sheets(out, sink)
    return out


def _load_sheets(out: LoadedSources, sink: DiagnosticSink) -> None:
    """Each imported spreadsheet as a file of declarations (after every `.cardc` file: kinds tell string columns)."""
    if not out.sheets:  # nothing to import (csv and openpyxl stay unloaded)
        return
    from cardc import syntax as s  # noqa: F811
    from cardc.sheets import SheetError, kind_string_attrs, read_rows, sheet_declarations

    seen: set[tuple[Path, str]] = set()
    for path, kind, module, span in out.sheets:
        if (path, kind) in seen:
            continue
        seen.add((path, kind))
        display = display_path(path)
        if out.root != path and out.root not in path.parents:
            sink.error("E114", f"`{display}` is outside the content folder", span,
                       f"the content folder is {display_path(out.root)}")
            continue
        try:
            rows = read_rows(path)
        except (SheetError, OSError) as err:  # csv, zip and openpyxl errors alike: the sheet cannot be read
            sink.error("E110", f"`{display}` cannot be read as a {path.suffix[1:].upper()} sheet: {err}", span,
                       "save it from your spreadsheet as CSV (UTF-8) or XLSX")
            continue
        from cardc.parser import parse_text

        decls = sheet_declarations(rows, display, kind, kind_string_attrs(out.files, kind), sink, parse_text)
        out.real_paths[display] = path
        out.files.append(s.FileS(path=display, module=module, imports=(), decls=tuple(decls)))


def _load_file(path: Path, span: Span, out: LoadedSources, done: dict[Path, s.FileS | None],
               sink: DiagnosticSink, stack: list[Path]) -> None:
    if path in stack:
        cycle = " -> ".join(display_path(p) for p in [*stack[stack.index(path):], path])
        sink.error("E111", f"import cycle: {cycle}", span, "remove one of these imports")
        return
    if path in done:
        return
    root = out.root
    if root != path and root not in path.parents:
        sink.error("E114", f"`{display_path(path)}` is outside the content folder", span,
                   f"the content folder is {display_path(root)}")
        done[path] = None
        return
    display = display_path(path)
    try:
        if path in out.overlay:  # an editor's buffer
            text = out.overlay[path]
        elif not stat.S_ISREG(path.stat().st_mode):  # a FIFO or device would block the read or never end
            sink.error("E110", f"`{display}` is not a regular file", span, "only plain text files are read")
            done[path] = None
            return
        else:  # a byte-order mark some editors write is not text
            from cardc import diskcache

            text = diskcache.read_text(path)
    except UnicodeDecodeError as err:
        raw = err.object if isinstance(err.object, bytes) else b""
        line = raw.count(b"\n", 0, err.start) + 1
        col = err.start - (raw.rfind(b"\n", 0, err.start) + 1) + 1
        sink.error("E110", f"`{display}` is not UTF-8 text: byte 0x{raw[err.start]:02x} cannot be decoded",
                   Span(display, line, col), "save the file as UTF-8")
        done[path] = None
        return
    except (OSError, ValueError) as err:
        sink.error("E110", f"`{display}` cannot be read: {_reason(err)}", span)
        done[path] = None
        return
    out.texts[display] = text
    out.real_paths[display] = path
    if path in out.overlay:  # an unsaved buffer changes with every key: not worth storing
        from cardc.parser import parse_text

        parsed = parse_text(text, display, sink)
    else:
        parsed = parse_cached(text, display, sink)
    done[path] = parsed
    if parsed is None:
        return
    stack.append(path)
    for imp in parsed.imports:
        try:
            target = _resolve(path.parent / imp.path, out.folders)
            found = target.is_file() or target in out.overlay
        except (OSError, ValueError) as err:  # a name too long for the file system, a NUL byte
            sink.error("E110", f"imported file `{imp.path}` cannot be opened: {_reason(err)}", imp.span)
            continue
        if not found:
            sink.error("E110", f"imported file `{imp.path}` does not exist", imp.span,
                       "imports are relative to the importing file")
            continue
        if target.suffix.lower() in SHEET_SUFFIXES:
            if imp.kind is None:
                sink.error("E116", f"the sheet `{imp.path}` is imported without its kind", imp.span,
                           f'say which kind its rows are: import "{imp.path}" as monster')
            else:
                out.sheets.append((target, imp.kind, parsed.module, imp.span))
            continue
        if imp.kind is not None:
            sink.error("E116", f"`as {imp.kind}` imports a spreadsheet, and `{imp.path}` is not one", imp.span,
                       "only .csv and .xlsx files take `as KIND`; import a .cardc file without it")
        _load_file(target, imp.span, out, done, sink, stack)
    stack.pop()
    out.files.append(parsed)


# Texts longer than this are parsed every time: pickling the tree of a generated 100,000-card file (33 MB) took
# as much memory again as the tree itself and wrote a 190 MB cache entry; the cache is for files people edit.
MAX_CACHED_TEXT = 2_000_000


def parse_cached(text: str, display: str, sink: DiagnosticSink, previous: str | None = None) -> s.FileS | None:
    """`parse_text`, remembered on disk under the text, its shown name (spans carry it) and the compiler's code.
    Only a parse without errors is stored, with its warnings (replayed into `sink`).

    `previous` is an earlier text of the same file: if its tree is stored and the two texts differ inside one
    string, number or name, the tree is made from that one (`cardc.literal_edit`) instead of parsing."""
    if len(text) > MAX_CACHED_TEXT:
        from cardc.parser import parse_text

        return parse_text(text, display, sink)
    stored = stored_parse(text, display)
    if stored is None and previous is not None:
        before = stored_parse(previous, display)
        if before is not None:
            stored = edited_parse(previous, before, display, text)
    if stored is not None:
        sink.items.extend(stored[1])
        return stored[0]
    from cardc.parser import parse_text

    own = DiagnosticSink()
    parsed = parse_text(text, display, own)
    sink.items.extend(own.items)
    if parsed is not None and not own.has_errors:
        _store_parse(text, display, (parsed, own.items))
    return parsed


def _parse_key(text: str, display: str) -> str:
    from cardc import diskcache

    return diskcache.digest(diskcache.code_fingerprint(), display, text)


def _memo_key(key: str) -> tuple[str, str]:
    from cardc import diskcache

    return str(diskcache.cache_root()), key


# Parses this process made or read, by parse key: the tree, its warnings, the hash of its pickle (None until it is
# asked for, while the parse's store is deferred: `diskcache.later`) and the text's length. A check whose cached
# result missed hashes every file's tree (`checkcache.lookup_trees`) and then loads the same files: without this,
# each tree was pickled twice (once to hash, once to store) and read back from disk. Bounded by the texts' length,
# for the language server and `watch`, which live long. Keyed by the cache folder too: a parse remembered for one
# folder is still stored into another.
_MEMO_CHARS = 4_000_000
_memo: dict[tuple[str, str], tuple[s.FileS, list[Diagnostic], str | None, int]] = {}
_memo_chars = 0
_pickled: dict[tuple[str, str], bytes] = {}  # a deferred parse's pickle, made early to hash it: for its store


def _remember(key: tuple[str, str], parsed: tuple[s.FileS, list[Diagnostic]], pickled: bytes | None,
              size: int) -> None:
    global _memo_chars
    from cardc import diskcache

    digest = None if pickled is None else diskcache.blake2b(pickled, digest_size=20).hexdigest()
    if key in _memo:
        _memo_chars -= _memo[key][3]
    _memo[key] = (parsed[0], parsed[1], digest, size)
    _memo_chars += size
    while _memo_chars > _MEMO_CHARS and len(_memo) > 1:
        _memo_chars -= _memo.pop(next(iter(_memo)))[3]


def parse_digest(text: str, display: str) -> str | None:
    """A hash of the stored parse of `text` (its tree and warnings, pickled), read without unpickling it;
    None if no parse of it is stored."""
    from cardc import diskcache

    if len(text) > MAX_CACHED_TEXT:
        return None
    key = _parse_key(text, display)
    memo_key = _memo_key(key)
    known = _memo.get(memo_key)
    if known is not None:
        if known[2] is not None:
            return known[2]
        made = _pickle_parse((known[0], known[1]))  # a parse whose store is deferred: pickled now, kept for it
        if made is None:
            return None
        _pickled[memo_key] = made
        _remember(memo_key, (known[0], known[1]), made, known[3])
        return _memo[memo_key][2]
    pickled = diskcache.load("parse", key)
    return diskcache.blake2b(pickled, digest_size=20).hexdigest() if isinstance(pickled, bytes) else None


def _store_parse(text: str, display: str, parsed: tuple[s.FileS, list[Diagnostic]]) -> None:
    from cardc import diskcache

    if diskcache.cache_root() is None:
        return
    key = _parse_key(text, display)
    memo_key = _memo_key(key)
    if not diskcache.deferring():
        pickled = _pickle_parse(parsed)
        if pickled is not None:
            diskcache.store("parse", key, pickled)  # stored pickled: the bytes whose hash `parse_digest` gives
            _remember(memo_key, parsed, pickled, len(text))
        return
    _remember(memo_key, parsed, None, len(text))  # found by `stored_parse` now, pickled when stored or hashed

    def store() -> None:
        pickled = _pickled.pop(memo_key, None) or _pickle_parse(parsed)
        if pickled is not None:
            diskcache.store("parse", key, pickled)
            if memo_key in _memo and _memo[memo_key][0] is parsed[0]:
                _remember(memo_key, parsed, pickled, len(text))

    diskcache.later(store)


def _pickle_parse(parsed: tuple[s.FileS, list[Diagnostic]]) -> bytes | None:
    """The parse pickled (`records.dumps`), or None if it cannot be."""
    import pickle

    from cardc.records import dumps  # pickle.dumps, the same bytes

    try:
        return dumps(parsed)
    except (pickle.PicklingError, TypeError, AttributeError, RecursionError):
        return None


def stored_parse(text: str, display: str) -> tuple[s.FileS, list[Diagnostic]] | None:
    """The stored parse of `text` (a tree and its parse warnings), or None (always with the cache off: nothing is
    stored then, and keying the text hashed every source of a check)."""
    from cardc import diskcache
    from cardc import syntax as s  # noqa: F811

    if len(text) > MAX_CACHED_TEXT or diskcache.cache_root() is None:
        return None
    key = _parse_key(text, display)
    known = _memo.get(_memo_key(key))
    if known is not None:
        return known[0], list(known[1])
    pickled = diskcache.load("parse", key)
    if not isinstance(pickled, bytes):
        return None
    try:
        entry = diskcache.unpickle(pickled)
    except diskcache.UNREADABLE:
        return None
    if isinstance(entry, tuple) and len(entry) == 2 and isinstance(entry[0], s.FileS) and isinstance(entry[1], list):
        _remember(_memo_key(key), (entry[0], entry[1]), pickled, len(text))
        return entry[0], list(entry[1])
    return None


def edited_parse(previous: str, before: tuple[s.FileS, list[Diagnostic]], display: str,
                 text: str) -> tuple[s.FileS, list[Diagnostic]] | None:
    """The tree and parse warnings of `text` made from `before`, those of `previous`, if an edit inside a few
    strings, numbers or names leads from one to the other (`cardc.literal_edit`); stored as `text`'s parse."""
    from cardc.literal_edit import patch

    if len(text) > MAX_CACHED_TEXT:
        return None
    made = patch(previous, before[0], before[1], text)
    if made is not None:
        _store_parse(text, display, made)
    return made


def parse_stored(text: str, display: str) -> tuple[s.FileS, list[Diagnostic]] | None:
    """`text` parsed (by the parser), stored like `parse_cached`'s; None when it has a syntax error."""
    from cardc.parser import parse_text

    own = DiagnosticSink()
    parsed = parse_text(text, display, own)
    if parsed is None or own.has_errors:
        return None
    if len(text) <= MAX_CACHED_TEXT:
        _store_parse(text, display, (parsed, own.items))
    return parsed, own.items


def _reason(err: Exception) -> str:
    return err.strerror if isinstance(err, OSError) and err.strerror else str(err)
