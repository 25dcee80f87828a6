"""`cardc build`: run the backends into a temporary folder, then swap it in only if all succeeded.

The output folder is the designer's disk, so the build is careful in the way git is:

- It owns only folders it created. Each output folder holds a marker file (`.cardc-build.json`) listing every
  file the build wrote, per backend. A non-empty folder without the marker is refused, as are the content
  folder, the current and home folders, their ancestors, and paths that are not folders.
- Files it did not write are kept: they are carried into the new output. `--only X` rebuilds X's files and
  carries over the files of every other backend from the previous output.
- A failed or interrupted build leaves the previous output exactly as it was. The new folder replaces the old
  one in one atomic exchange where the system has it (Linux `renameat2`), so the output never goes missing;
  elsewhere two renames, and the next build puts the old folder back if a kill came between them.
- Temporary folders of killed builds are removed by the next build; a lock serializes builds into one parent.
- Folders get the modes the umask asks for, not the 0700 of a private temporary folder.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import dataclasses
import errno
import gc
import json
import os
import shutil
import signal
import sys
import tempfile
import traceback
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from cardc import backends, collector
from cardc.backends import BuildOptions, Writer
from cardc.buildcache import CACHE_DIR, BuildCache, ir_fingerprint, is_ours, up_to_date
from cardc.diagnostics import Diagnostic
from cardc.model import Project

MARKER = ".cardc-build.json"
_MARKER_NOTE = ("written by `cardc build`: the next build replaces the files listed here and keeps every "
                "other file in this folder")
_BUILD_INFIX = ".build-"
_OLD_INFIX = ".old-"
_PARTS = ".cardc-parts"  # in a build's temporary folder: one folder per backend running in a process


class BuildFailed(Exception):
    """A backend failed; the previous output is untouched. `diagnostics` says why."""

    def __init__(self, message: str, diagnostics: list[Diagnostic] | None = None) -> None:
        super().__init__(message)
        self.diagnostics = diagnostics or []


class OutputRefused(Exception):
    """The output folder may not be written (a command-line error, exit 2); nothing was touched."""


def check_output(out: Path, protected: Iterable[Path] = ()) -> Path:
    """The resolved output folder, or OutputRefused if building there could destroy files cardc did not write.

    `protected` are content folders: the output may be neither one of them, nor above, nor inside one.
    """
    target = out.resolve()
    cwd = Path.cwd().resolve()
    if target == cwd or target in cwd.parents:
        where = "the current folder" if target == cwd else "above the current folder"
        raise OutputRefused(f"refusing to build into {out}: it is {where}, which the build would replace; "
                            "choose a new folder such as `--out generated`")
    home = _home()
    if home is not None and (target == home or target in home.parents):
        raise OutputRefused(f"refusing to build into {out}: it is the home folder or above it; choose a new folder")
    for content in protected:
        root = content.resolve()
        if target == root or target in root.parents:
            raise OutputRefused(f"refusing to build into {out}: it {'is' if target == root else 'holds'} the "
                                f"content folder {content}; choose a folder outside the content")
        if root in target.parents:
            raise OutputRefused(f"refusing to build into {out}: it is inside the content folder {content}; "
                                "choose a folder outside the content")
    _check_state(out, target)
    return target


def _home() -> Path | None:
    try:
        return Path.home().resolve()
    except (RuntimeError, KeyError, OSError):
        return None


def _check_state(shown: Path, target: Path) -> None:
    """Refuse a path that is not a folder, or a non-empty folder that cardc did not create."""
    if target.is_symlink() or (target.exists() and not target.is_dir()):
        raise OutputRefused(f"refusing to build into {shown}: it is a file, not a folder")
    if not target.exists():
        return
    try:
        entries = list(target.iterdir())
    except OSError as err:
        raise OutputRefused(f"cannot read the output folder {shown}: {err.strerror}") from err
    if not entries:
        return
    if not (target / MARKER).is_file():
        raise OutputRefused(f"refusing to build into {shown}: the folder is not empty and was not written by "
                            f"`cardc build` (it has no {MARKER}); choose an empty or new folder")
    _read_manifest(target, shown)


def _read_manifest(folder: Path, shown: Path | None = None) -> dict[str, list[str]]:
    """Backend -> files it wrote (relative, '/'-separated), as the marker in `folder` lists them."""
    try:
        data = json.loads((folder / MARKER).read_text(encoding="utf-8"))
        files = data["files"]
        if not isinstance(files, dict) or not all(
                isinstance(k, str) and isinstance(v, list) and all(isinstance(x, str) for x in v)
                for k, v in files.items()):
            raise ValueError("files is not a map of lists of paths")
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise OutputRefused(f"refusing to build into {shown or folder}: its {MARKER} cannot be read ({err}); "
                            "move the folder away or choose another") from err
    return {backend: [p for p in paths if _is_safe_relative(p)] for backend, paths in files.items()}


def _is_safe_relative(rel: str) -> bool:
    """A marker lists paths inside the folder; anything else (absolute, `..`) is ignored, never deleted."""
    parts = rel.split("/")
    return bool(rel) and not rel.startswith("/") and all(p not in ("", ".", "..") for p in parts) and rel != MARKER


def build(project: Project, out: Path, options: BuildOptions, protected: Iterable[Path] = (),
          inputs: str | None = None, front: Iterable[Diagnostic] = (), modules: dict[str, str] | None = None,
          progress: Progress | None = None) -> list[Diagnostic]:
    """Build into `out`. OutputRefused (before anything is written) if `out` is not the build's to replace.

    `inputs` is the fingerprint of what the front end read and `front` its diagnostics: recorded in the cache
    so that the next build with the same inputs does nothing (see `cardc.buildcache`). `progress` is told when
    each backend starts and ends, and whether its previous output was reused.
    """
    protect = [project.root, *protected]
    target = check_output(out, protect)
    if options.destination is None:  # where the output will live, for outputs that must name it (TTS URLs)
        options = dataclasses.replace(options, destination=target)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise OutputRefused(f"cannot create the output folder {out}: {err.strerror}") from err
    with _lock(target.parent, out):
        _check_state(out, target)  # again: another build may have run while this one waited
        _clean_leftovers(target)
        old = _read_manifest(target, out) if (target / MARKER).is_file() else {}
        try:
            tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}{_BUILD_INFIX}", dir=target.parent))
        except OSError as err:
            raise OutputRefused(f"cannot write next to the output folder {out}: {err.strerror}") from err
        try:
            _write_manifest(tmp, {})  # marks the temporary folder as the build's, for the next build's cleanup
            cache = None
            if is_ours(target) or not (target / CACHE_DIR).exists():  # a `.cardc-cache` of the user's: no cache
                cache = BuildCache.open(target, tmp, project.root)
                options = dataclasses.replace(options, cache=cache)
            with frozen_heap():
                diagnostics, manifest = _run_backends(project, target, tmp, options, old, progress)
            if any(d.is_error for d in diagnostics):
                raise BuildFailed("a backend reported errors", diagnostics)
            _carry_user_files(target, tmp, old, manifest, out)
            if cache is not None:
                cache.stamp(tmp, manifest)
                cache.write_index(inputs, front, diagnostics, modules or {})
            _write_manifest(tmp, manifest)
            _apply_umask(tmp)
            _swap(tmp, target)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
    return diagnostics


@contextlib.contextmanager
def frozen_heap() -> Iterator[None]:
    """Move every object alive now (the IR and the front end's caches) out of the cyclic collector's sight.

    The backends allocate many short-lived objects; each full collection would otherwise walk the whole IR
    again, so a backend's cost per card grew with the project (0.45 -> 0.69 ms per card for `ir` from 1,000
    to 10,000 cards). The IR is acyclic and lives until the build ends, so freezing it loses nothing; forked
    backends also stop touching its pages (copy-on-write). Unfrozen afterwards, for `cardc watch`.

    The youngest generation is also collected less often (every BACKEND_YOUNG_THRESHOLD allocations instead of
    700): what a backend keeps (a reference's pages, a rulebook's flowables) grows with the cards, and with the
    default a full collection walked it 17 times in a 10,000-card reference (4.0 of its 13.7 s; once, 0.05 s,
    with this threshold), so its cost per card grew by a third from 1,000 to 10,000 cards."""
    threshold = gc.get_threshold()
    gc.set_threshold(max(threshold[0], BACKEND_YOUNG_THRESHOLD), *threshold[1:])
    try:
        with collector.frozen(), freed_memory_kept():
            yield
    finally:
        gc.set_threshold(*threshold)


BACKEND_YOUNG_THRESHOLD = 10_000


# glibc's mallopt parameters, and the values it starts with
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_DEFAULT_THRESHOLD = 128 * 1024
_KEPT_MMAP_THRESHOLD = 32 * 1024 * 1024  # the most glibc accepts on 64-bit systems
_KEPT_TRIM_THRESHOLD = 1024 * 1024 * 1024


@contextlib.contextmanager
def freed_memory_kept() -> Iterator[None]:
    """Keep freed memory in the process while the backends run, and give it back afterwards (glibc only).

    glibc hands every block of 128 KiB or more to the kernel when it is freed, and each new one is zero-filled by
    the kernel page by page when first touched. The image backends allocate and free such blocks by the thousand
    (face buffers, PNG rows, sprite sheets): the export of the bundled content took 98,700 page faults (0.26 s of
    system time), 22,000 (0.09 s) with freed memory kept for reuse. Nothing a backend computes changes."""
    libc = _glibc()
    if libc is None:
        yield
        return
    libc.mallopt(_M_MMAP_THRESHOLD, _KEPT_MMAP_THRESHOLD)
    libc.mallopt(_M_TRIM_THRESHOLD, _KEPT_TRIM_THRESHOLD)
    try:
        yield
    finally:
        libc.mallopt(_M_MMAP_THRESHOLD, _DEFAULT_THRESHOLD)
        libc.mallopt(_M_TRIM_THRESHOLD, _DEFAULT_THRESHOLD)
        libc.malloc_trim(0)  # what the build freed goes back to the system (`cardc watch` lives on)


def _glibc() -> Any:
    """The C library as ctypes sees it when it is glibc (which has `mallopt` and `malloc_trim`), else None."""
    try:
        if not os.confstr("CS_GNU_LIBC_VERSION"):
            return None
        libc = ctypes.CDLL(None)
        libc.mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
        libc.malloc_trim.argtypes = [ctypes.c_size_t]
    except (AttributeError, ValueError, OSError):  # no confstr name, no such symbol: not glibc
        return None
    return libc


def read_marker(out: Path) -> dict[str, list[str]]:
    """Backend -> files, as the output's marker lists them (empty if there is none or it is unreadable)."""
    try:
        return _read_manifest(out.resolve(), out) if (out / MARKER).is_file() else {}
    except OutputRefused:
        return {}


def current_output(out: Path, inputs: str) -> tuple[list[Diagnostic], list[Diagnostic], dict[str, str]] | None:
    """The last build's diagnostics (front end, backends) and modules (file -> module) if `out` was built from
    exactly `inputs` and every file it wrote is still there: then there is nothing to do."""
    target = out.resolve()
    current = up_to_date(target, inputs, read_marker(out))
    if current is not None:
        with _lock(target.parent, out):
            _clean_leftovers(target)  # what killed builds left, as any build removes it
    return current


# Backends that read what another wrote in the same build: the reference shows the balance tables and
# (in its gallery) the print backend's card images, the Tabletop Simulator export reuses those images.
READS = {"reference": ("balance", "print"), "export": ("print",)}
# Backends that print the effects as sentences (`cardc.textgen`): when two or more of them run, a parallel build
# renders the sentences before it forks them.
TEXT_BACKENDS = frozenset({"print", "reference", "export", "python"})

# Backends whose files name the folder they end up in (TTS image URLs): its key includes that folder.
NAMES_DESTINATION = ("export",)

Progress = Callable[[str, str], None]  # (backend, "start" | "done" | "reused")


def _run_backends(project: Project, target: Path, tmp: Path, options: BuildOptions, old: dict[str, list[str]],
                  progress: Progress | None = None) -> tuple[list[Diagnostic], dict[str, list[str]]]:
    """Run the wanted backends into `tmp`, after carrying over the previous files of those not wanted.

    With a cache, a backend whose inputs are those of its previous run is not run: its previous files are
    carried over and its diagnostics repeated."""
    manifest: dict[str, list[str]] = {}
    for name, kept in old.items():
        if not options.wants(name):
            manifest[name] = [rel for rel in kept if _carry(target / rel, tmp / rel)]
    cache = options.cache if isinstance(options.cache, BuildCache) else None
    common: tuple[str, ...] = ()
    if cache is not None:
        common = (ir_fingerprint(project), cache.assets, json.dumps(options.settings, sort_keys=True))
    keys: dict[str, str] = {}
    diagnostics: list[Diagnostic] = []
    before = set(_files(tmp))
    if options.jobs > 1:
        return _run_parallel(project, target, tmp, options, old, manifest, cache, common, progress)
    for name, write in backends.BACKENDS:  # looked up now: tests and plugins may replace the list
        if not options.wants(name):
            continue
        again = _reused(name, cache, keys, common, options, target, tmp, old, manifest, progress)
        if again is not None:
            diagnostics.extend(again)
            before = set(_files(tmp))
            continue
        if progress:
            progress(name, "start")
        hits = cache.hits if cache is not None else 0
        found = write(project, tmp, options)
        diagnostics.extend(found)
        if cache is not None:
            cache.record(name, keys[name], found, reused=cache.hits - hits)
        if progress:
            progress(name, "done")
        after = set(_files(tmp))
        manifest[name] = sorted(after - before)
        before = after
    return diagnostics, manifest


def _backend_key(name: str, cache: BuildCache, keys: dict[str, str], common: tuple[str, ...],
                 options: BuildOptions) -> str:
    """What backend `name`'s output depends on: the IR, assets and options, where the output goes if its files
    name it, and the keys of the backends it reads."""
    deps = [keys.get(d) or cache.previous_key(d) or "" for d in READS.get(name, ())]
    where = str(options.destination) if name in NAMES_DESTINATION else ""
    return cache.backend_key(name, *common, where, *deps)


def _reused(name: str, cache: BuildCache | None, keys: dict[str, str], common: tuple[str, ...],
            options: BuildOptions, target: Path, tmp: Path, old: dict[str, list[str]],
            manifest: dict[str, list[str]], progress: Progress | None) -> list[Diagnostic] | None:
    """With a cache: record backend `name`'s key in `keys`; if it ran on that key last time and its files are as
    it wrote them, copy them into `tmp`, list them in `manifest` and return that run's diagnostics. None if it
    must run."""
    if cache is None:
        return None
    key = keys[name] = _backend_key(name, cache, keys, common, options)
    again = cache.previous(name, key)
    if again is None or name not in old or not cache.unchanged(name, target, old[name]):
        return None
    for rel in old[name]:
        _copy_in(target / rel, tmp / rel)  # a copy: nothing this build does can reach the old output
    cache.record(name, key, again)
    manifest[name] = list(old[name])
    if progress:
        progress(name, "reused")
    return again


def _run_parallel(project: Project, target: Path, tmp: Path, options: BuildOptions, old: dict[str, list[str]],
                  manifest: dict[str, list[str]], cache: BuildCache | None, common: tuple[str, ...],
                  progress: Progress | None) -> tuple[list[Diagnostic], dict[str, list[str]]]:
    """Run the wanted backends up to `options.jobs` at a time, each in a forked process writing into a folder of
    its own beside the output (so the files of each are known and relative paths are those of the output).

    A backend starts once the backends it reads (`READS`) are done, and sees only their files: the outputs are
    those of a serial build. Diagnostics and summary notes are gathered in the order of `BACKENDS`."""
    import multiprocessing
    from multiprocessing.connection import wait

    try:
        context = multiprocessing.get_context("fork")
    except ValueError:  # no fork on this platform: one backend after another
        return _run_backends(project, target, tmp, dataclasses.replace(options, jobs=1), old, progress)
    order = [(name, write) for name, write in backends.BACKENDS if options.wants(name)]
    keys: dict[str, str] = {}
    found: dict[str, list[Diagnostic]] = {}
    notes: dict[str, list[str]] = {}
    pending: list[tuple[str, Writer]] = []
    for name, write in order:
        again = _reused(name, cache, keys, common, options, target, tmp, old, manifest, progress)
        if again is not None:
            found[name] = again
            continue
        pending.append((name, write))
    if len(TEXT_BACKENDS.intersection(name for name, _ in pending)) >= 2:
        from cardc.textgen import warm

        warm(project)  # rendered once here, inherited by each backend's process instead of rendered in each
    running: dict[Any, tuple[str, Any, Path]] = {}  # connection -> (backend, process, its folder)
    try:
        while pending or running:
            for name, write in list(pending):
                if len(running) >= options.jobs:
                    break
                if any(d in dict(pending) or d in {n for n, _, _ in running.values()} for d in READS.get(name, ())):
                    continue  # waits for what it reads
                pending.remove((name, write))
                part = tmp / _PARTS / name  # inside the build's folder: a killed build leaves one folder
                part.mkdir(parents=True)
                for dep in READS.get(name, ()):
                    for top in sorted({rel.split("/")[0] for rel in manifest.get(dep, [])}):
                        if not (part / top).exists():
                            os.symlink(tmp / top, part / top)
                mine, theirs = context.Pipe(duplex=False)
                child_options = dataclasses.replace(options, notes=[])
                proc = context.Process(target=_backend_process, name=f"cardc-build-{name}",
                                       args=(theirs, write, project, part, child_options, os.getpid()))
                if progress:
                    progress(name, "start")
                proc.start()
                theirs.close()
                running[mine] = (name, proc, part)
            for conn in wait(list(running)):
                name, proc, part = running.pop(conn)
                try:
                    result: tuple[Any, ...] = _received(conn)
                except EOFError:
                    proc.join()
                    result = ("crash", f"its process stopped without a result (exit code {proc.exitcode})", "")
                proc.join()
                if result[0] == "interrupted":
                    raise KeyboardInterrupt
                if result[0] != "ok":
                    raise BackendCrashed(name, result[1], result[2])
                _, diags, lines, hits, objects = result
                if cache is not None:
                    cache.hits += hits
                    cache.objects.update(objects)  # what the backend kept, for the next build to check
                    cache.record(name, keys[name], diags, reused=hits)
                found[name], notes[name] = diags, lines
                manifest[name] = _move_in(part, tmp)
                if progress:
                    progress(name, "done")
    finally:
        for conn, (_, proc, _) in running.items():
            proc.terminate()
            proc.join()
            conn.close()
        shutil.rmtree(tmp / _PARTS, ignore_errors=True)
    for name, _ in order:
        options.notes.extend(notes.get(name, []))
    return [d for name, _ in order for d in found.get(name, [])], manifest


class BackendCrashed(RuntimeError):
    """A backend running in a process of its own raised: what it raised and its traceback, for the crash report."""

    def __init__(self, backend: str, message: str, trace: str) -> None:
        super().__init__(f"backend {backend}: {message}")
        self.trace = trace  # the child's traceback: the crash report carries it, the one-line message does not


def _backend_process(conn: Any, write: Writer, project: Project, part: Path, options: BuildOptions,
                     parent: int) -> None:
    """Run one backend in a forked process and send back ("ok", diagnostics, notes, cache hits, the objects it
    kept) or why not."""
    _die_with(parent)
    cache = options.cache if isinstance(options.cache, BuildCache) else None
    hits = cache.hits if cache is not None else 0
    known = set(cache.objects) if cache is not None else set()
    try:
        diags = write(project, part, options)
        kept = {k: v for k, v in cache.objects.items() if k not in known} if cache is not None else {}
        conn.send(("ok", diags, options.notes, (cache.hits - hits) if cache is not None else 0, kept))
    except KeyboardInterrupt:
        conn.send(("interrupted", "", ""))
    except BaseException as err:  # noqa: BLE001 - sent to the parent, which raises it as a crash of the build
        conn.send(("error", f"{type(err).__name__}: {err}", traceback.format_exc()))
    finally:
        conn.close()


def _die_with(parent: int) -> None:
    """A backend's process ends when the build's does, even by SIGKILL: it would hold the build lock (an
    inherited descriptor) and keep writing into a folder the next build removes."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:  # the build ended before the line above
        os._exit(1)


def _move_in(part: Path, tmp: Path) -> list[str]:
    """Move what a backend wrote in its own folder into the build's folder; its files, relative, sorted.
    The links to the folders it read are dropped first."""
    for entry in part.iterdir():
        if entry.is_symlink():
            entry.unlink()
    files = sorted(_files(part))
    for rel in files:
        dest = tmp / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        os.replace(part / rel, dest)
    shutil.rmtree(part, ignore_errors=True)
    return files


def _carry_user_files(target: Path, tmp: Path, old: dict[str, list[str]], manifest: dict[str, list[str]],
                      shown: Path) -> None:
    """Carry every file of the old output that no build wrote into the new one; refuse to overwrite one."""
    if not target.is_dir():
        return
    ours = {rel for paths in old.values() for rel in paths}
    written = {rel for paths in manifest.values() for rel in paths}
    for rel in _entries(target):
        if rel in ours or rel == MARKER:
            continue
        if rel in written:
            raise OutputRefused(f"refusing to build into {shown}: `{rel}` there was not written by `cardc build` "
                                "and this build would overwrite it; move it away first")
        _carry(target / rel, tmp / rel)


def _files(folder: Path) -> Iterator[str]:
    """Every file (and symlink) below `folder`, relative and '/'-separated, the marker and cache left out."""
    for dirpath, dirnames, filenames in os.walk(folder):
        if Path(dirpath) == folder and CACHE_DIR in dirnames and is_ours(folder):
            dirnames.remove(CACHE_DIR)
        rel_dir = Path(dirpath).relative_to(folder)
        for name in filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
            rel = (rel_dir / name).as_posix()
            if rel != MARKER:
                yield rel


def _entries(folder: Path) -> Iterator[str]:
    """Like `_files`, plus empty folders (a designer may keep an empty `photos/` there)."""
    yield from _files(folder)
    for dirpath, dirnames, filenames in os.walk(folder):
        if Path(dirpath) == folder and CACHE_DIR in dirnames and is_ours(folder):
            dirnames.remove(CACHE_DIR)
        if not dirnames and not filenames and Path(dirpath) != folder:
            yield Path(dirpath).relative_to(folder).as_posix()


def _carry(src: Path, dst: Path) -> bool:
    """Put `src` at `dst` without copying where possible (a hard link); False if `src` is gone."""
    if not src.is_symlink() and not src.exists():
        return False
    dst.parent.mkdir(parents=True, exist_ok=True)
    if src.is_symlink():
        os.symlink(os.readlink(src), dst)
    elif src.is_dir():
        dst.mkdir(exist_ok=True)
    else:
        try:
            os.link(src, dst)
        except OSError:
            shutil.copy2(src, dst)
    return True


def _copy_in(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    if src.is_symlink():
        os.symlink(os.readlink(src), dst)
    else:
        shutil.copyfile(src, dst)


def _write_manifest(folder: Path, manifest: dict[str, list[str]]) -> None:
    data = {"note": _MARKER_NOTE, "files": {k: sorted(v) for k, v in sorted(manifest.items())}}
    (folder / MARKER).write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def _apply_umask(folder: Path) -> None:
    """mkdtemp makes a private (0700) folder; the output should look like any folder the user makes."""
    mask = os.umask(0o22)
    os.umask(mask)
    folder.chmod(0o777 & ~mask)


@contextlib.contextmanager
def _lock(parent: Path, shown: Path) -> Iterator[None]:
    """Hold an exclusive lock on the output's parent folder: a second build waits for the first."""
    try:
        import fcntl
    except ImportError:  # not on POSIX: no lock, builds are still atomic one by one
        yield
        return
    fd = os.open(parent, os.O_RDONLY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print(f"waiting for another build into {shown.parent} to finish", file=sys.stderr)
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def _clean_leftovers(target: Path) -> None:
    """Remove the temporary folders of builds that were killed; put back an output a kill left aside."""
    prefix = f".{target.name}"
    for entry in sorted(target.parent.iterdir()):
        name = entry.name
        if not name.startswith(prefix) or entry.is_symlink() or not entry.is_dir():
            continue
        rest = name[len(prefix):]
        if not (rest.startswith(_BUILD_INFIX) or rest.startswith(_OLD_INFIX)):
            continue
        if not ((entry / MARKER).is_file() or not any(entry.iterdir())):
            continue  # not a folder this tool made: leave it alone
        if rest.startswith(_OLD_INFIX) and not target.exists():
            entry.rename(target)  # a kill came between the two renames of the fallback swap
        else:
            shutil.rmtree(entry, ignore_errors=True)


def _swap(new: Path, out: Path) -> None:
    """Put `new` in place of `out` so that `out` is never half-written and never missing; delete the old one."""
    if not out.exists() or _is_empty_dir(out):
        new.replace(out)  # rename(2) may replace an empty folder; atomic
        return
    if _exchange(new, out):
        shutil.rmtree(new, ignore_errors=True)  # `new` now holds the previous output
        return
    old = out.parent / f".{out.name}{_OLD_INFIX}{os.getpid()}"
    out.rename(old)
    try:
        new.rename(out)
    except BaseException:
        if old.exists():
            old.rename(out)
        raise
    shutil.rmtree(old, ignore_errors=True)


def _is_empty_dir(path: Path) -> bool:
    return path.is_dir() and not path.is_symlink() and not any(path.iterdir())


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(a: Path, b: Path) -> bool:
    """Atomically exchange two paths (Linux renameat2 RENAME_EXCHANGE); False where the system cannot."""
    if not hasattr(os, "uname") or os.uname().sysname != "Linux":
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    renameat2.restype = ctypes.c_int
    if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        return False  # the file system cannot exchange: fall back to two renames
    raise OSError(err, os.strerror(err), str(b))


def _received(conn: Any) -> tuple[Any, ...]:
    """What a backend's process sent back (a connection from `multiprocessing.connection.wait`)."""
    result: tuple[Any, ...] = conn.recv()
    return result
