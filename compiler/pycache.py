"""Files kept beside the package's bytecode (the `__pycache__` of `cardc.dsl`), for what depends only on the
compiler's own code and the Python running it, as the bytecode does: so that a first `cardc check`, with an empty
or no cache folder, finds them too.

They are written as Python writes a `.pyc`: only when it writes bytecode (not under `PYTHONDONTWRITEBYTECODE`),
atomically (a reader sees the old file, the new one or none), and never with a word when the folder cannot be
written (a read-only install): the caller then falls back to the cache folder. `PYTHONPYCACHEPREFIX` is
followed. Each file starts with a header naming what it depends on; a file with another header is ignored.
"""

from __future__ import annotations

import os
import sys
from functools import lru_cache


def path(name: str) -> str | None:
    """The file `name` (with the interpreter's cache tag) beside this package's bytecode, or None where Python
    keeps no bytecode."""
    folder = _folder(sys.pycache_prefix)
    return None if folder is None else os.path.join(folder, f"{name}.{sys.implementation.cache_tag}")


@lru_cache(maxsize=4)
def _folder(prefix: str | None) -> str | None:
    """The bytecode folder of the language package `cardc.dsl` (`dsl/__pycache__` in a checkout): not the
    compiler's own folder, as these files hold the bundled catalogue's text and the content's patterns."""
    from importlib.util import cache_from_source

    from cardc.resources import DSL_DIR

    if sys.implementation.cache_tag is None:
        return None
    try:
        return os.path.dirname(cache_from_source(os.path.join(DSL_DIR, "__init__.py")))
    except (NotImplementedError, ValueError):
        return None


_refused: set[str] = set()  # folders a write failed in: not tried again by this process


def read(name: str, header: bytes) -> bytes | None:
    """What follows `header` in the file `name`, or None (missing, unreadable, another header)."""
    where = path(name)
    if where is None:
        return None
    try:
        with open(where, "rb") as f:
            data = f.read()
    except OSError:
        return None
    return data[len(header):] if data.startswith(header) else None


def sections(data: bytes) -> dict[str, bytes] | None:
    """The sections of a table file (a marshalled dict: section name -> marshalled entries), or None when the
    data cannot be read as one."""
    import marshal

    try:
        table = marshal.loads(data)
    except (EOFError, ValueError, TypeError):
        return None
    if not isinstance(table, dict):
        return None
    return {k: v for k, v in table.items() if isinstance(k, str) and isinstance(v, bytes)}


def writable(name: str) -> bool:
    """Whether the file `name` would be written (as far as the folder's permissions tell)."""
    where = path(name)
    if where is None or sys.dont_write_bytecode or os.path.dirname(where) in _refused:
        return False
    folder = os.path.dirname(where)
    while not os.path.isdir(folder):  # made by `write`
        parent = os.path.dirname(folder)
        if parent == folder:
            return False
        folder = parent
    return os.access(folder, os.W_OK)


def write(name: str, header: bytes, data: bytes) -> bool:
    """Write `header` and `data` to the file `name`; False when no bytecode is written or the folder cannot be
    written (then no other file is tried there by this process)."""
    where = path(name)
    if where is None or sys.dont_write_bytecode or os.path.dirname(where) in _refused:
        return False
    tmp = f"{where}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(where), exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_BINARY", 0), 0o644)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(header + data)
            os.replace(tmp, where)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
    except OSError:
        _refused.add(os.path.dirname(where))
        return False
    return True
