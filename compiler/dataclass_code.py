"""Compiled code for the methods `@dataclass` writes, remembered on disk between runs of the command line.

`@dataclass` writes the source of each class's `__init__`, `__repr__`, `__eq__`, `__hash__`, `__setattr__`...
and compiles it with `exec` whenever the module is imported: about 1 ms a class, a tenth of a second of every
`cardc check` for the parse tree, IR and diagnostic classes (bytecode caches do not cover code made at import
time). What a source text compiles to depends only on the text and the Python version, so the command line
keeps a table text -> code object of its own classes and hands `dataclasses` the compiled code for a text it
has seen: the same methods, a third of the time. The table is read once per process and written back at exit
only if a new text was compiled; a missing or damaged table is an empty one.

The table is kept where Python keeps bytecode (`cardc.pycache`: the `__pycache__` of `cardc.dsl`), as the
bytecode is: written when that folder can be written and Python writes bytecode, read even with the cache
off or an empty cache folder (a first `cardc check` compiled 320 texts, 12% of its time). Only when it cannot be
written there (a read-only install, `PYTHONDONTWRITEBYTECODE`) does the table go to the cache folder. A text is
its own key, so an entry can never be stale: an edited dataclass writes another text, compiled afresh; the file
name carries the interpreter's cache tag and its first bytes the bytecode's magic number and Python's version.

The table has a section per module, each unmarshalled only when that module defines its first dataclass: a
`cardc check` reads the code of the 60 modules it imports, not that of the build's backends. A section also
holds the signatures `dataclasses` makes docstrings from (`_Inspect`), so that it runs without `inspect`.
"""

from __future__ import annotations

import builtins
import marshal
import os
import sys
from types import CodeType
from typing import Any

MAX_MODULES = 500  # sections kept (modules renamed or removed leave theirs behind)
MIN_KEPT = 64  # texts kept per module beyond those this process ran (dataclasses made later, older edits)

_sections: dict[str, bytes] = {}  # module -> its texts and code, marshalled, as read
_code: dict[str, dict[str, CodeType]] = {}  # module -> text -> code, for the modules that made a dataclass
_docs: dict[str, dict[str, str]] = {}  # module -> `_doc_key` -> the class's signature, as `inspect` gives it
_used: dict[str, set[str]] = {}  # module -> the texts and doc keys this process used: kept first
_changed: set[str] = set()  # modules with a text compiled or a signature made by this process
_beside_bytecode = False  # the table was read from beside the bytecode (not the cache folder's, or none)


def _exec(source: Any, globals: Any = None, locals: Any = None, /) -> None:  # noqa: A002 - exec's own names
    """`exec`, with the compiled code of a source text looked up first. Only the texts of this package's classes
    are remembered (dataclasses runs them with the class's module's globals): the table is the compiler's, not
    that of whatever else a process (a test run) defines."""
    module = globals.get("__name__") if isinstance(globals, dict) else None
    if isinstance(source, str) and isinstance(module, str) and _ours(module):
        code_of = _code.get(module) or _load(module)
        code = code_of.get(source)
        _used[module].add(source)
        if code is None:
            code = compile(source, "<string>", "exec")
            code_of[source] = code
            _changed.add(module)
        source = code
    builtins.exec(source, globals, locals)  # noqa: S102 - the text dataclasses wrote, as it would run it


def _ours(module: str) -> bool:
    return module == "cardc" or module.startswith("cardc.")


def _load(module: str) -> dict[str, CodeType]:
    """`module`'s remembered code and signatures, read into `_code` and `_docs` (empty if none, or unreadable)."""
    code_of: dict[str, CodeType] = {}
    docs: dict[str, str] = {}
    _code[module], _docs[module], _used[module] = code_of, docs, set()
    data = _sections.get(module)
    if data is None:
        return code_of
    try:
        table = marshal.loads(data)
    except (EOFError, ValueError, TypeError):
        return code_of
    if isinstance(table, dict):
        for k, v in table.items():
            if isinstance(k, str) and isinstance(v, CodeType):
                code_of[k] = v
            elif isinstance(k, str) and k.startswith(_DOC) and isinstance(v, str):
                docs[k] = v
    return code_of


_DOC = "\0doc "  # what a signature's key starts with (a method's text never does)


class _Inspect:
    """What `dataclasses` sees as `inspect`. It asks it for one thing: the signature of a class without a
    docstring, for the docstring it makes (53 of the classes a check defines). Importing `inspect` (with `ast`,
    `dis`, `tokenize`...) was 3% of a first check and 15% of a cached one: a class's signature is remembered
    with its module's code, under everything `inspect.signature` reads to make it (`_doc_key`); any other class,
    and anything else asked of this object, is `inspect`'s own."""

    @staticmethod
    def signature(cls: Any) -> Any:
        key = _doc_key(cls)
        module = getattr(cls, "__module__", None)
        if key is not None and isinstance(module, str):
            if module not in _code:
                _load(module)
            known = _docs[module].get(key)
            _used[module].add(key)
            if known is not None:
                return known  # dataclasses takes str() of it
        import inspect

        made = inspect.signature(cls)
        if key is not None and isinstance(module, str):
            _docs[module][key] = str(made)
            _changed.add(module)
        return made

    def __getattr__(self, name: str) -> Any:
        import inspect

        return getattr(inspect, name)


def _doc_key(cls: Any) -> str | None:
    """What `inspect.signature(cls)` is made from, for a class of this package whose signature is that of its
    own `__init__`, a plain function: that function's parameters, annotations and defaults (by their reprs);
    None for any other class, or one whose reprs name a place in memory."""
    import types

    init = cls.__dict__.get("__init__") if isinstance(cls, type) else None
    if (type(cls) is not type or not _ours(getattr(cls, "__module__", "")) or "__new__" in cls.__dict__
            or type(init) is not types.FunctionType or hasattr(init, "__wrapped__")
            or hasattr(init, "__signature__") or hasattr(cls, "__signature__")):
        return None
    code = init.__code__
    try:
        key = repr((cls.__qualname__, code.co_varnames[:code.co_argcount + code.co_kwonlyargcount],
                    code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount, code.co_flags,
                    init.__annotations__, init.__defaults__, init.__kwdefaults__))
    except (TypeError, ValueError, AttributeError, LookupError, ArithmeticError, RuntimeError):
        return None  # a repr that fails: inspect's own signature (which fails as it does)
    return None if " at 0x" in key else _DOC + key


def _import_dataclasses() -> Any:
    """`dataclasses`, imported without importing `inspect` (its `import inspect` is given a placeholder, removed
    again from `sys.modules`, and its `inspect` is then `_Inspect`); as usual when either is imported already."""
    import types

    if "dataclasses" in sys.modules or "inspect" in sys.modules:
        import dataclasses
    else:
        placeholder = types.ModuleType("inspect")
        sys.modules["inspect"] = placeholder
        try:
            import dataclasses
        finally:
            if sys.modules.get("inspect") is placeholder:
                del sys.modules["inspect"]
            if "dataclasses" in sys.modules:
                setattr(sys.modules["dataclasses"], "inspect", _Inspect())  # noqa: B010 - its module global
    return dataclasses


def _table_key() -> str:
    from cardc import diskcache

    return diskcache.blake2b(f"dataclass-code 3|{sys.version}|{sys.implementation.cache_tag}".encode(),
                           digest_size=20).hexdigest()


def _header() -> bytes:
    """What the table beside the bytecode starts with: what the marshalled code objects depend on."""
    from importlib.util import MAGIC_NUMBER

    return b"cardc dataclass-code 3\n" + MAGIC_NUMBER + f"\n{sys.version}\n".encode()


TABLE = "dataclass-code"  # the table's name beside the bytecode (`cardc.pycache`)


def _add(data: bytes) -> bool:
    """Take the sections of a table; False when it cannot be read."""
    from cardc import pycache

    found = pycache.sections(data)
    if found is None:
        return False
    _sections.update(found)
    return True


def install() -> None:
    """Load the table and route `dataclasses`' `exec` through it (its module global shadows the builtin). The
    cache folder's table is read only when there is none beside the bytecode, and not with `CARDC_CACHE=off`."""
    global _beside_bytecode
    import atexit

    dataclasses = _import_dataclasses()
    if getattr(dataclasses, "exec", None) is _exec:
        return
    from cardc import pycache

    data = pycache.read(TABLE, _header())
    _beside_bytecode = data is not None and _add(data)
    if not _beside_bytecode:
        from cardc import diskcache

        if diskcache.cache_root() is not None:
            data = diskcache.load("dataclass-code", _table_key())
            if isinstance(data, bytes):
                _add(data)
    setattr(dataclasses, "exec", _exec)  # noqa: B010 - the module has no such attribute in the stubs
    setattr(dataclasses, "inspect", _Inspect())  # noqa: B010 - its module global, read when a class is made
    atexit.register(_save, os.getpid())


def _kept(module: str) -> dict[str, CodeType | str]:
    """The texts and signatures of `module` to keep: those this process used, then others up to MIN_KEPT
    more."""
    entries: dict[str, CodeType | str] = {**_code[module], **_docs.get(module, {})}
    used = _used.get(module, set())
    kept = {k: v for k, v in entries.items() if k in used}
    limit = len(kept) + MIN_KEPT
    for k, v in entries.items():
        if len(kept) >= limit:
            break
        kept.setdefault(k, v)
    return kept


def _table() -> dict[str, bytes]:
    """The sections to write: the changed modules' made again, the others as read; the modules this process
    used first."""
    sections = {m: marshal.dumps(_kept(m)) for m in _code if m in _changed}
    sections.update((m, _sections[m]) for m in _code if m in _sections and m not in sections)
    for m, data in _sections.items():
        if len(sections) >= MAX_MODULES:
            break
        sections.setdefault(m, data)
    return sections


def _save(pid: int) -> None:
    """Write the table back if a text was compiled, or if it came from the cache folder and can now be kept
    beside the bytecode (written by an older version, or by a process that could not write there)."""
    from cardc import pycache

    if os.getpid() != pid:  # a forked child exits through os._exit, but be sure
        return
    if not (_changed or (_sections and not _beside_bytecode and pycache.writable(TABLE))):
        return
    data = marshal.dumps(_table())
    if not pycache.write(TABLE, _header(), data) and _changed:
        from cardc import diskcache

        diskcache.store("dataclass-code", _table_key(), data)
