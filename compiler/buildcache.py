"""The build's cache: what a rebuild may reuse instead of making it again.

It lives in the output folder the build owns, as `.cardc-cache/` (tagged with a CACHEDIR.TAG, git-ignored,
never listed in the output's marker), and is replaced with the output on every build, holding only what that
build used. Three levels, from the cheapest check to the finest reuse:

- the whole build: a fingerprint of every input (each file of the content folder, the compiler's own files,
  the options, the working folder the paths are shown from). When it matches the last build's and the output
  is intact, nothing runs: the last build's diagnostics are shown again.
- a backend: a key over the checked IR, the options, the compiler and the content's other files (templates,
  images) and the keys of the backends it reads. When it matches, the backend's previous files are carried
  over (hard links) and its diagnostics replayed.
- an object (a card face's PNG, a sprite sheet): stored under the hash of what it is drawn from, so changing
  one card redraws only that card's faces. An object is the file the build wrote (a second name for it, its
  size and modification time recorded: one changed since, an output file edited by hand, is never reused);
  taken from the cache it is copied, so a backend writing its output cannot touch the previous output.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from cardc.diagnostics import Diagnostic, Severity, Span

CACHE_DIR = ".cardc-cache"
INDEX = "index.json"
TAG = "CACHEDIR.TAG"
TAG_TEXT = ("Signature: 8a477f597d28d172789f06886806bc55\n"
            "# This folder is the build cache of cardc (https://bford.info/cachedir/); the next build remakes it.\n")
VERSION = 1


def _sha(*parts: str | bytes) -> str:
    h = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8") if isinstance(part, str) else part
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()


@lru_cache(maxsize=1)
def compiler_fingerprint() -> str:
    """A hash of the compiler's own files (code, grammar, catalogue, templates, fonts): a changed compiler
    invalidates everything, whatever its version number says."""
    from cardc import __version__
    from cardc.resources import DSL_DIR

    package = Path(__file__).resolve().parent
    h = hashlib.sha256(__version__.encode())
    for base in (package, DSL_DIR.resolve()):
        for path in sorted(base.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and not path.name.endswith((".pyc", ".md")):
                h.update(path.relative_to(base).as_posix().encode())
                h.update(path.read_bytes())
    return h.hexdigest()


def content_files(root: Path) -> list[Path]:
    """Every file of the content folder a build may read, hidden files and folders left out."""
    out: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d != "__pycache__")
        out.extend(Path(dirpath) / f for f in sorted(filenames) if not f.startswith("."))
    return out


def assets_fingerprint(root: Path) -> str:
    """The content's files other than sources (templates, images, sheets): backends read them directly."""
    h = hashlib.sha256()
    for path in content_files(root):
        if path.suffix != ".cardc":
            h.update(path.relative_to(root).as_posix().encode())
            h.update(path.read_bytes())
    return h.hexdigest()


def inputs_fingerprint(root: Path, options: Mapping[str, Any]) -> str:
    """Everything one `cardc build` reads, before it reads it."""
    h = hashlib.sha256(compiler_fingerprint().encode())
    h.update(json.dumps(options, sort_keys=True, default=str).encode())
    h.update(str(Path.cwd()).encode())  # diagnostics show paths relative to it
    for path in content_files(root):
        h.update(path.relative_to(root).as_posix().encode())
        h.update(hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()


def ir_fingerprint(project: object) -> str:
    """What the checked IR is made of: the content folder and the source texts it was lowered from, by file, with
    the names outputs give them. The IR is a function of these and of the compiler (its fingerprint is in every
    backend's key; cardc.toml is among the assets), spans included. Hashing the texts takes milliseconds; the
    IR's repr took 1.2 s at 10,000 cards, and it left the procedures out."""
    from cardc.model import Project

    assert isinstance(project, Project)
    texts = sorted(project.sources.items())
    return _sha(str(project.root), json.dumps(sorted(project.source_names.items())),
                *(part for path, text in texts for part in (path, text)))


# ---- diagnostics as JSON ---------------------------------------------------------------


def diagnostic_to_json(d: Diagnostic) -> dict[str, Any]:
    sp = d.span
    return {"severity": d.severity.value, "code": d.code, "message": d.message, "hint": d.hint,
            "span": [sp.file, sp.line, sp.col, sp.end_line, sp.end_col]}


def diagnostic_from_json(data: Mapping[str, Any]) -> Diagnostic:
    file, line, col, end_line, end_col = data["span"]
    return Diagnostic(Severity(data["severity"]), str(data["code"]), str(data["message"]),
                      Span(str(file), int(line), int(col), int(end_line), int(end_col)),
                      None if data.get("hint") is None else str(data["hint"]))


# ---- the cache ---------------------------------------------------------------------------


@dataclass
class BuildCache:
    """The previous build's cache (read from the output) and the one this build makes (in its temporary
    folder, swapped in with the output)."""

    old: Path | None  # the previous output's cache folder, if it is ours and readable
    new: Path  # this build's cache folder
    assets: str = ""  # fingerprint of the content's files other than sources
    index: dict[str, Any] = field(default_factory=dict)  # the previous index
    backends: dict[str, dict[str, Any]] = field(default_factory=dict)  # this build's: name -> key, diagnostics
    objects: dict[str, list[int] | None] = field(default_factory=dict)  # this build's: key -> size, mtime
    hits: int = 0
    misses: int = 0

    @classmethod
    def open(cls, target: Path, tmp: Path, content: Path) -> BuildCache:
        old = target / CACHE_DIR
        index = read_index(target)
        new = tmp / CACHE_DIR
        new.mkdir(parents=True, exist_ok=True)
        (new / TAG).write_text(TAG_TEXT, encoding="utf-8")
        return cls(old if index is not None else None, new, assets_fingerprint(content), index or {})

    def key(self, *parts: str | bytes) -> str:
        """The key of an object drawn from `parts` by this compiler from this content's assets."""
        return _sha(compiler_fingerprint(), self.assets, *parts)

    # ---- objects ----

    def _object(self, base: Path, key: str) -> Path:
        return base / "objects" / key[:2] / key

    def _source(self, key: str) -> Path | None:
        """The object `key` as this build or the previous one made it, None if neither did or it changed since
        (its size or modification time differ from those recorded when it was made)."""
        kept = self._object(self.new, key)
        if key in self.objects and _stat(kept) == self.objects[key]:
            return kept
        old = self._old_objects()
        if self.old is not None and key in old and _stat(self._object(self.old, key)) == old[key]:
            return self._object(self.old, key)
        return None

    def has(self, key: str) -> bool:
        """Whether the object `key` was made by this build already or by the previous one, unchanged since."""
        return self._source(key) is not None

    def fetch(self, key: str, dest: Path) -> bool:
        """Put a copy of the object `key` at `dest` (a new path) if this build or the previous one made it; keep
        it for the next build."""
        kept = self._object(self.new, key)
        src = self._source(key)
        if src is None:
            self.misses += 1
            return False
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dest)  # a copy: the output shares no file with the previous output or cache
        if not kept.exists():
            kept.parent.mkdir(parents=True, exist_ok=True)
            _link(src, kept)
            self.objects[key] = _stat(kept)
        self.hits += 1
        return True

    def _old_objects(self) -> dict[str, Any]:
        objects = self.index.get("objects")
        return objects if isinstance(objects, dict) else {}

    def store(self, key: str, made: Path) -> None:
        """Remember the file just written at `made` as the object `key`. `made` is never written again."""
        kept = self._object(self.new, key)
        if not kept.exists():
            kept.parent.mkdir(parents=True, exist_ok=True)
            # A second name for the file, not a copy: copying the bundled content's 1,384 objects (62 MB) cost
            # about 1 s of kernel time on a first build. The output file and the object are then one file, so
            # its size and modification time are kept: an object edited since (an output file changed by hand)
            # is never reused, it is drawn again.
            _link(made, kept)
            self.objects[key] = _stat(kept)

    # ---- backends ----

    def backend_key(self, name: str, *parts: str) -> str:
        return _sha(name, compiler_fingerprint(), *parts)

    def previous_key(self, name: str) -> str | None:
        entry = (self.index.get("backends") or {}).get(name)
        return str(entry["key"]) if isinstance(entry, dict) and "key" in entry else None

    def previous(self, name: str, key: str) -> list[Diagnostic] | None:
        """The diagnostics of the previous run of backend `name`, if it ran on the same key."""
        entry = (self.index.get("backends") or {}).get(name)
        if not isinstance(entry, dict) or entry.get("key") != key:
            return None
        try:
            return [diagnostic_from_json(d) for d in entry.get("diagnostics") or []]
        except (KeyError, TypeError, ValueError):
            return None

    def record(self, name: str, key: str, diagnostics: Iterable[Diagnostic], reused: int = 0) -> None:
        """What backend `name` did: its key, its diagnostics, and how many files it took from the cache."""
        self.backends[name] = {"key": key, "diagnostics": [diagnostic_to_json(d) for d in diagnostics],
                               "reused": reused}

    def stamp(self, folder: Path, manifest: Mapping[str, list[str]]) -> None:
        """Size and modification time of every file each backend wrote: a file changed by hand since is
        made again, never reused."""
        for name, entry in self.backends.items():
            entry["files"] = {rel: _stat(folder / rel) for rel in manifest.get(name, [])}

    def unchanged(self, name: str, folder: Path, listed: Iterable[str]) -> bool:
        """Whether the files the output's marker lists for backend `name` are exactly those it wrote last
        time, each in `folder` as it was written."""
        return _unchanged((self.index.get("backends") or {}).get(name), folder, listed)

    def write_index(self, inputs: str | None, front: Iterable[Diagnostic], backend_diags: Iterable[Diagnostic],
                    modules: Mapping[str, str]) -> None:
        data = {"version": VERSION, "inputs": inputs, "front": [diagnostic_to_json(d) for d in front],
                "modules": dict(modules),
                "diagnostics": [diagnostic_to_json(d) for d in backend_diags], "backends": self.backends,
                "objects": self.objects}
        (self.new / INDEX).write_text(json.dumps(data, ensure_ascii=False, sort_keys=True), encoding="utf-8")


def read_index(target: Path) -> dict[str, Any] | None:
    """The cache index of an output folder, if the cache there is cardc's (tagged) and readable."""
    folder = target / CACHE_DIR
    if folder.is_symlink() or not (folder / TAG).is_file():
        return None
    try:
        data = json.loads((folder / INDEX).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("version") == VERSION else None


def is_ours(target: Path) -> bool:
    folder = target / CACHE_DIR
    return folder.is_dir() and not folder.is_symlink() and (folder / TAG).is_file()


def _unchanged(entry: object, folder: Path, listed: Iterable[str]) -> bool:
    files = entry.get("files") if isinstance(entry, dict) else None
    if not isinstance(files, dict) or set(files) != set(listed):
        return False
    return all(_stat(folder / rel) == stat for rel, stat in files.items())


def up_to_date(target: Path, inputs: str, marker: Mapping[str, list[str]]
               ) -> tuple[list[Diagnostic], list[Diagnostic], dict[str, str]] | None:
    """The last build's diagnostics (front end, backends) and modules if it had exactly these inputs and the
    output holds exactly the files it wrote (`marker`: backend -> files), none edited since; else None."""
    index = read_index(target)
    if index is None or index.get("inputs") != inputs or not marker:
        return None
    backends = index.get("backends") or {}
    if set(backends) != set(marker) or not all(_unchanged(backends[n], target, marker[n]) for n in marker):
        return None
    try:
        return ([diagnostic_from_json(d) for d in index.get("front") or []],
                [diagnostic_from_json(d) for d in index.get("diagnostics") or []],
                {str(k): str(v) for k, v in (index.get("modules") or {}).items()})
    except (KeyError, TypeError, ValueError):
        return None


def _stat(path: Path) -> list[int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns]


def _link(src: Path, dest: Path) -> None:
    try:
        os.link(src, dest)
    except OSError:
        shutil.copyfile(src, dest)
