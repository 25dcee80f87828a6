"""Generated rule modules compiled by mypyc, for games played on the compiled runtime (accel.py).

On the compiled runtime the interpreted rule modules are what is left of the CPython eval loop in a game. Compiled
as they are, they are no faster: mypyc reads `v.<verb>` as a lookup of `v` in the module's dict and then of the
verb in `cardc_runtime.verbs`' dict at every call, and `ctx.<method>(...)` as a method lookup on the object,
which the interpreter's inline caches do for less. So the copy compiled binds every verb and `Context` method its
functions call once, at import, to a `Final` name of the module (a C static in the compiled module), and calls
that. The rules' meaning does not change (the tests compare the records of both).

A build is made once per generated package (its digest, which names the package) and compiled runtime, about
20 s for a game of a few thousand lines, and kept in the user's cache folder beside the runtime's builds. It is
optional: without mypyc, a C compiler or a cache folder, or when mypyc cannot compile the modules, the rules
stay Python (the same games), with a note saying why.

`CARDC_COMPILED_RULES` says what a process does on the compiled runtime: `build` (the default) uses a build and
makes one if there is none, `cached` only uses a finished build, `off` keeps the rules Python.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import sys
import sysconfig
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType

from cardc.backends.python import RUNTIME_SOURCE, accel

ENV = "CARDC_COMPILED_RULES"
CHOICES = ("build", "cached", "off")
# Games in a `cardc simulate` run from which it builds compiled rules (for fewer it uses a finished build only):
# the build costs about 20 s of one core per content version, compiled rules save about 1 ms a game.
BUILD_FROM = 20_000
REWRITE = "2"  # the version of `for_mypyc`'s rewrite: a change makes new builds
_DONE = "built"
KEEP = 5  # finished rules builds kept (the newest)
_HEADER = '# mypy: disable-error-code="attr-defined"\n'  # (`verbs` fills its namespace at import: mypy sees no verb)
_VERBS = "v"  # the name generated modules import `cardc_runtime.verbs` as


def mode() -> str:
    """`CARDC_COMPILED_RULES`, or `build` when it is unset or not one of CHOICES."""
    value = os.environ.get(ENV, "build").strip().lower()
    return value if value in CHOICES else "build"


def key(digest: str, name: str) -> str:
    """What a build depends on: the package's files (their digest), its import name, the compiled runtime's key
    (runtime source, Python, platform, mypy) and the rewrite."""
    from cardc.diskcache import digest as hashed

    return hashed(REWRITE, accel.key(), name, digest)


def folder(digest: str, name: str) -> Path | None:
    """Where the build of this package lives (None when the user's cache is off)."""
    from cardc.diskcache import cache_root

    root = cache_root()
    return None if root is None else root / "rules" / key(digest, name)


def for_mypyc(text: str) -> str:
    """A generated module as compiled: every `v.<verb>` read in a function becomes a module `Final` bound once,
    and so does every `ctx.<method>(...)` call of a `Context` method (`Context.<method>(ctx, ...)`: mypyc would
    look the method up on the object at each call; nothing derives from `Context`). A function with a name `v`
    or `ctx` of its own is left as it is. mypy is told not to look for the verbs.

    mypy must check the bodies: `# mypy: ignore-errors` would make mypy skip them, and mypyc would then compile
    each function as an empty one that returns None (games that end at once, or never)."""
    tree = ast.parse(text)
    bound: dict[str, str] = {}  # module name -> what it is bound to
    methods = _context_methods() if _imports_context(tree) else frozenset()

    class Bind(ast.NodeTransformer):
        def __init__(self, ctx: bool) -> None:
            self.ctx = ctx  # the function's `ctx` is its `Context` parameter, never rebound

        def visit_Call(self, node: ast.Call) -> ast.AST:
            f = node.func
            if (self.ctx and isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "ctx"
                    and f.attr in methods):
                self.generic_visit(node)
                bound[f"_ctx_{f.attr}"] = f"Context.{f.attr}"
                return ast.copy_location(ast.Call(ast.Name(f"_ctx_{f.attr}", ast.Load()),
                                                  [ast.Name("ctx", ast.Load()), *node.args], node.keywords), node)
            self.generic_visit(node)
            return node

        def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
            self.generic_visit(node)
            if isinstance(node.value, ast.Name) and node.value.id == _VERBS and isinstance(node.ctx, ast.Load):
                bound[f"_v_{node.attr}"] = f"{_VERBS}.{node.attr}"
                return ast.copy_location(ast.Name(f"_v_{node.attr}", ast.Load()), node)
            return node

    for i, stmt in enumerate(tree.body):
        if isinstance(stmt, ast.FunctionDef) and not _rebinds(stmt, _VERBS):
            tree.body[i] = Bind(_takes_context(stmt)).visit(stmt)
    imports = [i for i, s in enumerate(tree.body) if isinstance(s, (ast.Import, ast.ImportFrom))]
    if bound and imports:
        binds = ast.parse("from typing import Final\n" +
                          "".join(f"{name}: Final = {what}\n" for name, what in bound.items())).body
        tree.body[imports[-1] + 1:imports[-1] + 1] = binds
    return _HEADER + ast.unparse(tree) + "\n"


def _context_methods() -> frozenset[str]:
    """The names of `Context`'s plain methods (Python functions, or a compiled class's method descriptors; not
    static or class methods, properties or fields), of the runtime this process runs."""
    import inspect
    from types import FunctionType

    from cardc.backends.python.loader import ensure_runtime

    context = ensure_runtime().Context
    return frozenset(n for n in dir(context) if not n.startswith("__")
                     and (isinstance(raw := inspect.getattr_static(context, n), FunctionType)
                          or type(raw).__name__ == "method_descriptor"))


def _imports_context(tree: ast.Module) -> bool:
    """Whether the module imports `Context` by that name from the runtime."""
    return any(isinstance(s, ast.ImportFrom) and s.module == "cardc_runtime"
               and any(a.name == "Context" and a.asname is None for a in s.names) for s in tree.body)


def _takes_context(fn: ast.FunctionDef) -> bool:
    """Whether the function's first parameter is `ctx: Context`, and nothing in it rebinds `ctx`."""
    args = fn.args.posonlyargs + fn.args.args
    return (bool(args) and args[0].arg == "ctx" and isinstance(args[0].annotation, ast.Name)
            and args[0].annotation.id == "Context" and not _rebinds(fn, "ctx", skip=args[0]))


def _rebinds(fn: ast.FunctionDef, name: str, skip: ast.arg | None = None) -> bool:
    """Whether the function has a local `name` (a parameter other than `skip`, or an assignment)."""
    for node in ast.walk(fn):
        if isinstance(node, ast.arg) and node.arg == name and node is not skip:
            return True
        if isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load):
            return True
    return False


def _modules(files: Sequence[tuple[str, str]]) -> list[str]:
    """The package's files compiled: every module but the packages' `__init__` (paths below the package)."""
    return [rel.split("/", 1)[1] for rel, _ in files
            if rel.endswith(".py") and "/" in rel and not rel.endswith("__init__.py")]


def build(files: Sequence[tuple[str, str]], name: str, digest: str,
          note: Callable[[str], None] = lambda _: None) -> Path | None:
    """Compile the package's modules (`files`: paths `<game>/...` and texts) as the package `name`, and return
    the build's folder, or None with a note saying why not."""
    where = folder(digest, name)
    if where is None:
        note("the cache folder is off (CARDC_CACHE=off): the rules stay Python")
        return None
    if (where / _DONE).is_file():
        return where
    if _failed(where).is_file():
        return None  # (mypyc failed on this package before: not tried again at every run)
    missing = accel.missing_tools()
    if missing:
        note(f"{missing}: the rules stay Python")
        return None
    modules = _modules(files)
    if not modules:
        return None
    note("compiling the game's rules with mypyc (once per content version; about 20 seconds)")

    def write(work: Path) -> list[str]:
        for rel, text in files:
            path = work / name / rel.split("/", 1)[1]
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(for_mypyc(text) if rel.split("/", 1)[1] in modules else text, encoding="utf-8")
        return [f"{name}/{m}" for m in modules]

    suffix = str(sysconfig.get_config_var("EXT_SUFFIX"))
    return accel.run_mypyc(where, write, lambda work: [m for m in modules
                                                       if not (work / name / f"{m[:-3]}{suffix}").is_file()],
                           key(digest, name), "the rules", "the rules stay Python", note, _prune,
                           {"MYPYPATH": str(RUNTIME_SOURCE.parent)})


def _failed(where: Path) -> Path:
    return accel._failed(where)  # (the mark `accel.run_mypyc` leaves)


def _prune(keep: Path) -> None:
    """Remove all but the newest KEEP builds (a content edit makes a new one) and builds or failure marks left
    more than a day ago."""
    accel.prune(keep, KEEP, failures=True)


def load(where: Path, name: str, modules: Sequence[str]) -> ModuleType | None:
    """Import the build in `where` as the package `name`; None, with nothing of it left imported, when it
    cannot be or a module of it is not the compiled one."""
    if not (where / _DONE).is_file():
        return None
    init = where / name / "__init__.py"
    if str(where) not in sys.path:
        sys.path.append(str(where))  # the modules' shared library is a top-level module of its own
    try:
        spec = importlib.util.spec_from_file_location(name, init, submodule_search_locations=[str(init.parent)])
        if spec is None or spec.loader is None:
            return None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        for m in modules:
            sub = importlib.import_module(f"{name}.{m[:-3].replace('/', '.')}")
            if str(getattr(sub, "__file__", "")).endswith(".py"):
                raise ImportError(f"{sub.__name__} is not the compiled module")
    # a damaged build, or a module whose import fails (a verb it binds missing): the Python rules are used
    except (ImportError, OSError, AttributeError, TypeError, ValueError):
        for n in [n for n in sys.modules if n == name or n.startswith(f"{name}.")]:
            del sys.modules[n]
        return None
    return module


def package(files: Sequence[tuple[str, str]], name: str, digest: str,
            note: Callable[[str], None] = lambda _: None) -> ModuleType | None:
    """The package compiled, imported as `name`, when this process runs the compiled runtime and
    `CARDC_COMPILED_RULES` allows it (built first under `build`); else None: the caller imports the Python
    rules."""
    if not accel.is_compiled():
        return None
    how = mode()
    if how == "off":
        return None
    where = folder(digest, name)
    if where is None:
        return None
    if not (where / _DONE).is_file():
        if how == "cached":
            return None
        built = build(files, name, digest, note)
        if built is None:
            return None
        where = built
    module = load(where, name, _modules(files))
    if module is None:
        note("the compiled rules could not be imported: they stay Python")
    return module
