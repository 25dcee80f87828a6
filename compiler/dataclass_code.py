"""Compiled code for the methods `@dataclass` writes, remembered on disk between runs of the command line.

`@dataclass` writes the source of each class's `__init__`, `__repr__`, `__eq__`, `__hash__`, `__setattr__`...
and compiles it with `exec` whenever the module is imported: about 1 ms a class, a tenth of a second of every
`cardc check` for the parse tree, IR and diagnostic classes (bytecode caches do not cover code made at import
time). What a source text compiles to depends only on the text and the Python version, so the command line
keeps a table text -> code object in the cache folder (`cardc.diskcache`) and hands `dataclasses` the compiled
code for a text it has seen: the same methods, a third of the time. The table is read once per process and
written back at exit only if a new text was compiled; a missing or damaged table is an empty one.
"""

from __future__ import annotations

import builtins
import marshal
import os
import sys
from types import CodeType
from typing import Any

MAX_ENTRIES = 5000  # texts kept; beyond it new ones are compiled each run (another library's dataclasses)

_code: dict[str, CodeType] = {}
_unsaved = False


def _exec(source: Any, globals: Any = None, locals: Any = None, /) -> None:  # noqa: A002 - exec's own names
    """`exec`, with the compiled code of a source text looked up first."""
    global _unsaved
    if isinstance(source, str):
        code = _code.get(source)
        if code is None:
            code = compile(source, "<string>", "exec")
            if len(_code) < MAX_ENTRIES:
                _code[source] = code
                _unsaved = True
        source = code
    builtins.exec(source, globals, locals)  # noqa: S102 - the text dataclasses wrote, as it would run it


def _table_key() -> str:
    from cardc import diskcache

    return diskcache.blake2b(f"dataclass-code 1|{sys.version}|{sys.implementation.cache_tag}".encode(),
                           digest_size=20).hexdigest()


def install() -> None:
    """Load the table and route `dataclasses`' `exec` through it (its module global shadows the builtin);
    nothing when caching is off (`CARDC_CACHE=off`)."""
    import atexit
    import dataclasses

    from cardc import diskcache

    if diskcache.cache_root() is None or getattr(dataclasses, "exec", None) is _exec:
        return
    data = diskcache.load("dataclass-code", _table_key())
    if isinstance(data, bytes):
        try:
            table = marshal.loads(data)
        except (EOFError, ValueError, TypeError):
            table = None
        if isinstance(table, dict):
            _code.update((k, v) for k, v in table.items() if isinstance(k, str) and isinstance(v, CodeType))
    setattr(dataclasses, "exec", _exec)  # noqa: B010 - the module has no such attribute in the stubs
    atexit.register(_save, os.getpid())


def _save(pid: int) -> None:
    if _unsaved and os.getpid() == pid:  # a forked child exits through os._exit, but be sure
        from cardc import diskcache

        diskcache.store("dataclass-code", _table_key(), marshal.dumps(dict(_code)))
