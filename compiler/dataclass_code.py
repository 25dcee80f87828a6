"""Compiled code for the methods `@dataclass` writes, remembered on disk between runs of the command line.

`@dataclass` writes the source of each class's `__init__`, `__repr__`, `__eq__`, `__hash__`, `__setattr__`...
and compiles it with `exec` whenever the module is imported: about 1 ms a class, a tenth of a second of every
`cardc check` for the parse tree, IR and diagnostic classes (bytecode caches do not cover code made at import
time). What a source text compiles to depends only on the text and the Python version, so the command line
keeps a table text -> code object of its own classes and hands `dataclasses` the compiled code for a text it
has seen: the same methods, a third of the time. The table is read once per process and
written back at exit only if a new text was compiled; a missing or damaged table is an empty one.

The table is kept where Python keeps the package's bytecode (`__pycache__`, beside this module's `.pyc`), as
the bytecode is: written when that folder can be written and Python writes bytecode, read even with the cache
off or an empty cache folder (a first `cardc check` compiled 320 texts, 12% of its time). Only when it cannot be
written there (a read-only install, `PYTHONDONTWRITEBYTECODE`) does the table go to the cache folder. A text is
its own key, so an entry can never be stale: an edited dataclass writes another text, compiled afresh; the file
name carries the interpreter's cache tag and its first bytes the bytecode's magic number and Python's version.
"""

from __future__ import annotations

import builtins
import marshal
import os
import sys
from types import CodeType
from typing import Any

MAX_ENTRIES = 1000  # texts written back, those the process ran first (importing every module runs ~720)

_code: dict[str, CodeType] = {}
_used: set[str] = set()  # the texts this process ran: kept first when the table is full
_unsaved = False
_beside_bytecode = False  # the table was read from beside the bytecode (not the cache folder's, or none)


def _exec(source: Any, globals: Any = None, locals: Any = None, /) -> None:  # noqa: A002 - exec's own names
    """`exec`, with the compiled code of a source text looked up first. Only the texts of this package's classes
    are remembered (dataclasses runs them with the class's module's globals): the table is the compiler's, not
    that of whatever else a process (a test run) defines."""
    global _unsaved
    if isinstance(source, str) and isinstance(globals, dict) and _ours(globals.get("__name__")):
        code = _code.get(source)
        _used.add(source)
        if code is None:
            code = compile(source, "<string>", "exec")
            _code[source] = code
            _unsaved = True
        source = code
    builtins.exec(source, globals, locals)  # noqa: S102 - the text dataclasses wrote, as it would run it


def _ours(module: object) -> bool:
    return isinstance(module, str) and (module == "cardc" or module.startswith("cardc."))


def _table_key() -> str:
    from cardc import diskcache

    return diskcache.blake2b(f"dataclass-code 1|{sys.version}|{sys.implementation.cache_tag}".encode(),
                           digest_size=20).hexdigest()


def _header() -> bytes:
    """What the table beside the bytecode starts with: what the marshalled code objects depend on."""
    from importlib.util import MAGIC_NUMBER

    return b"cardc dataclass-code 1\n" + MAGIC_NUMBER + f"\n{sys.version}\n".encode()


TABLE = "dataclass-code"  # the table's name beside the bytecode (`cardc.pycache`)


def _add(data: bytes) -> bool:
    try:
        table = marshal.loads(data)
    except (EOFError, ValueError, TypeError):
        return False
    if not isinstance(table, dict):
        return False
    _code.update((k, v) for k, v in table.items() if isinstance(k, str) and isinstance(v, CodeType))
    return True


def install() -> None:
    """Load the table and route `dataclasses`' `exec` through it (its module global shadows the builtin). The
    cache folder's table is read only when there is none beside the bytecode, and not with `CARDC_CACHE=off`."""
    import atexit
    import dataclasses

    if getattr(dataclasses, "exec", None) is _exec:
        return
    from cardc import pycache

    global _beside_bytecode
    data = pycache.read(TABLE, _header())
    _beside_bytecode = data is not None and _add(data)
    if not _beside_bytecode:
        from cardc import diskcache

        if diskcache.cache_root() is not None:
            data = diskcache.load("dataclass-code", _table_key())
            if isinstance(data, bytes):
                _add(data)
    setattr(dataclasses, "exec", _exec)  # noqa: B010 - the module has no such attribute in the stubs
    atexit.register(_save, os.getpid())


def _table() -> dict[str, CodeType]:
    """The texts to keep: those this process ran first, then the others up to MAX_ENTRIES."""
    table = {k: v for k, v in _code.items() if k in _used}
    for k, v in _code.items():
        if len(table) >= MAX_ENTRIES:
            break
        table.setdefault(k, v)
    return table


def _save(pid: int) -> None:
    """Write the table back if a text was compiled, or if it came from the cache folder and can now be kept
    beside the bytecode (written by an older version, or by a process that could not write there)."""
    from cardc import pycache

    if os.getpid() != pid or not (_unsaved or (_code and not _beside_bytecode and pycache.writable(TABLE))):
        return  # (a forked child exits through os._exit, but be sure)
    data = marshal.dumps(_table())
    if not pycache.write(TABLE, _header(), data) and _unsaved:
        from cardc import diskcache

        diskcache.store("dataclass-code", _table_key(), data)
