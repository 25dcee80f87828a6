"""Compiled regular expressions, remembered beside the package's bytecode between runs of the command line.

`re.compile` turns a pattern into the regular-expression engine's code in pure Python (`re._parser` and
`re._compiler`): a first `cardc check` compiled 42 patterns (the lexer's, the text checks', and those of the
standard modules it imports: argparse, fractions, json, gettext, tomllib), about 4% of its time. What a pattern
compiles to depends only on the pattern, its flags and the Python running it, so the code, flags and group names
are kept in a table beside the bytecode (`cardc.pycache`), and a pattern found there is handed to the engine
(`_sre.compile`) directly: the same pattern object `re.compile` makes. The table is read once per process,
written back at exit when a pattern compiled by this package's code (one of its frames on the stack) was not in
it; the file's header names the Python version and the engine's magic number. Python versions other than those
whose `re._compiler.compile` this copies (3.11 to 3.13) compile as usual.

The table has a section per command (`check`, `build`...; one for any other process), each unmarshalled only by
that command: a check does not read the patterns of the build's libraries; and within it, a pattern's code is
unmarshalled only when the pattern is compiled (`check --schema` compiles jsonschema's 250 too).
"""

from __future__ import annotations

import marshal
import os
import sys
from typing import Any

MAX_ENTRIES = 1000  # patterns written back, those the process used first
TABLE = "regex-code"  # the table's name beside the bytecode (`cardc.pycache`)

_sections: dict[str, bytes] = {}  # command -> its patterns, marshalled, as read
Entry = tuple[int, list[int], int, dict[str, int], tuple[str | None, ...]]  # what `_sre.compile` is handed
# (pattern, flags) -> its entry, or the entry marshalled as read (unmarshalled when the pattern is compiled)
_table: dict[tuple[str | bytes, int], Entry | bytes] = {}
_used: set[tuple[str | bytes, int]] = set()
_unsaved = False
_real_compile: Any = None


def _header() -> bytes:
    from re import _compiler  # type: ignore[attr-defined]

    return f"cardc regex-code 2\n{_compiler._sre.MAGIC}\n{sys.version}\n".encode()


def _compile(p: Any, flags: Any = 0) -> Any:
    """`re._compiler.compile`, with the engine's code of a pattern looked up first."""
    global _unsaved
    from re import _compiler, _parser  # type: ignore[attr-defined]

    if not isinstance(p, str | bytes) or type(flags) is not int or flags & _compiler.SRE_FLAG_DEBUG:
        return _real_compile(p, flags)
    key = (p, flags)
    found = _table.get(key)
    if isinstance(found, bytes):
        found = _entry(found)
        if found is None:
            del _table[key]
    if found is None:  # as re._compiler.compile does it, keeping what it hands the engine
        parsed = _parser.parse(p, flags)
        code = [int(c) for c in _compiler._code(parsed, flags)]  # plain ints (the opcodes are an int subclass)
        names: list[str | None] = [None] * parsed.state.groups
        for k, i in parsed.state.groupdict.items():
            names[i] = k
        found = (int(flags | parsed.state.flags), code, parsed.state.groups - 1, dict(parsed.state.groupdict),
                 tuple(names))
        if _ours():
            _table[key] = found
            _unsaved = True
    _used.add(key)
    final_flags, code, groups, groupindex, indexgroup = found
    try:  # the engine checks the code it is given (`_validate`): a damaged entry raises
        return _compiler._sre.compile(p, final_flags, code, groups, groupindex, indexgroup)
    except (RuntimeError, TypeError, ValueError, OverflowError, IndexError):
        _table.pop(key, None)
        return _real_compile(p, flags)


def _ours() -> bool:
    """Whether this package's code is on the stack (not that of a test run or another library alone)."""
    frame = sys._getframe(2)
    while frame is not None:
        name = frame.f_globals.get("__name__")
        if isinstance(name, str) and (name == "cardc" or name.startswith("cardc.")):
            return True
        frame = frame.f_back  # type: ignore[assignment]
    return False


def install() -> None:
    """Load the table and route `re`'s compiling through it (nothing on another Python version)."""
    global _real_compile
    import atexit
    from re import _compiler  # type: ignore[attr-defined]

    if sys.version_info[:2] not in ((3, 11), (3, 12), (3, 13)) or _compiler.compile is _compile:
        return
    from cardc import pycache

    data = pycache.read(TABLE, _header())
    if data is not None:
        _add(data)
    if _sections.get(_group()):
        _add_patterns(_sections[_group()])
    _real_compile = _compiler.compile
    _compiler.compile = _compile
    atexit.register(_save, os.getpid())


def _group() -> str:
    """The command this process runs (`cardc check ...`, `python -m cardc check ...`), or "" for any other."""
    command = sys.argv[1] if len(sys.argv) > 1 else ""
    return command if command.isascii() and command.isalpha() and len(command) <= 20 else ""


def _add(data: bytes) -> None:
    """Take the sections of a table."""
    from cardc import pycache

    _sections.update(pycache.sections(data) or {})


def _add_patterns(data: bytes) -> None:
    """Take a section's patterns, each entry still marshalled: only the patterns compiled are unmarshalled."""
    try:
        table = marshal.loads(data)
    except (EOFError, ValueError, TypeError):
        return
    if isinstance(table, dict):
        _table.update((k, v) for k, v in table.items() if isinstance(k, tuple) and len(k) == 2
                      and isinstance(k[0], str | bytes) and type(k[1]) is int and isinstance(v, bytes))


def _entry(data: bytes) -> Entry | None:
    """An entry as read, or None when it is not one (its code is checked by the engine when it is used)."""
    try:
        value = marshal.loads(data)
    except (EOFError, ValueError, TypeError):
        return None
    if (isinstance(value, tuple) and len(value) == 5 and type(value[0]) is int and isinstance(value[1], list)
            and type(value[2]) is int and isinstance(value[3], dict) and isinstance(value[4], tuple)):
        return value
    return None


def _kept() -> dict[tuple[str | bytes, int], bytes]:
    """The patterns to keep, each marshalled: those this process used first, then the others up to
    MAX_ENTRIES."""
    kept = {k: v for k, v in _table.items() if k in _used}
    for k, v in _table.items():
        if len(kept) >= MAX_ENTRIES:
            break
        kept.setdefault(k, v)
    return {k: v if isinstance(v, bytes) else marshal.dumps(v) for k, v in kept.items()}


def _save(pid: int) -> None:
    from cardc import pycache

    if _unsaved and os.getpid() == pid and pycache.writable(TABLE):  # (a forked child exits by os._exit)
        sections = {**_sections, _group(): marshal.dumps(_kept())}
        pycache.write(TABLE, _header(), marshal.dumps(sections))
