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
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from cardc import backends
from cardc.backends import BuildOptions
from cardc.diagnostics import Diagnostic
from cardc.model import Project

MARKER = ".cardc-build.json"
_MARKER_NOTE = ("written by `cardc build`: the next build replaces the files listed here and keeps every "
                "other file in this folder")
_BUILD_INFIX = ".build-"
_OLD_INFIX = ".old-"


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


def build(project: Project, out: Path, options: BuildOptions, protected: Iterable[Path] = ()) -> list[Diagnostic]:
    """Build into `out`. OutputRefused (before anything is written) if `out` is not the build's to replace."""
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
            diagnostics, manifest = _run_backends(project, target, tmp, options, old)
            if any(d.is_error for d in diagnostics):
                raise BuildFailed("a backend reported errors", diagnostics)
            _carry_user_files(target, tmp, old, manifest, out)
            _write_manifest(tmp, manifest)
            _apply_umask(tmp)
            _swap(tmp, target)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
    return diagnostics


def _run_backends(project: Project, target: Path, tmp: Path, options: BuildOptions,
                  old: dict[str, list[str]]) -> tuple[list[Diagnostic], dict[str, list[str]]]:
    """Run the wanted backends into `tmp`, after carrying over the previous files of those not wanted."""
    manifest: dict[str, list[str]] = {}
    for name, kept in old.items():
        if not options.wants(name):
            manifest[name] = [rel for rel in kept if _carry(target / rel, tmp / rel)]
    diagnostics: list[Diagnostic] = []
    before = set(_files(tmp))
    for name, write in backends.BACKENDS:  # looked up now: tests and plugins may replace the list
        if options.wants(name):
            diagnostics.extend(write(project, tmp, options))
            after = set(_files(tmp))
            manifest[name] = sorted(after - before)
            before = after
    return diagnostics, manifest


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
    """Every file (and symlink) below `folder`, relative and '/'-separated, the marker left out."""
    for dirpath, dirnames, filenames in os.walk(folder):
        rel_dir = Path(dirpath).relative_to(folder)
        for name in filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
            rel = (rel_dir / name).as_posix()
            if rel != MARKER:
                yield rel


def _entries(folder: Path) -> Iterator[str]:
    """Like `_files`, plus empty folders (a designer may keep an empty `photos/` there)."""
    yield from _files(folder)
    for dirpath, dirnames, filenames in os.walk(folder):
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
