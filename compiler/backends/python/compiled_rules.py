"""Generated rule modules compiled by mypyc together with the runtime, for games played on the compiled
runtime (accel.py).

On the compiled runtime the rules are what is left of the interpreter in a game, and the calls between them and
the runtime cost more than most verbs do: a verb called through a Python object parses its arguments, a
`ctx.<method>(...)` looks the method up. Compiled in one mypyc build with the runtime's modules (one C
library), a verb imported from the module that defines it and a method of the native `Context` are called as
C functions: 8-13% fewer instructions per game than rules compiled on their own (15-24% fewer than Python
rules). The rules' meaning does not change (the tests compare the records of both).

Such a build holds the runtime too, so a process must choose it before it imports any runtime
(`runtime_for`, called by `cardc simulate` and the benchmarks; the processes a run starts find it through
accel's environment variable). It is made once per generated package (its digest, which names the package)
and runtime source, about two minutes of one core, and kept in the user's cache folder. It is optional:
without mypyc, a C compiler or a cache folder, or when mypyc cannot compile the modules, the games run on the
compiled runtime alone with the rules Python (the same games), with a note saying why.

`CARDC_COMPILED_RULES` says what a process does on the compiled runtime: `build` (the default) uses a build and
makes one if there is none, `cached` only uses a finished build, `off` keeps the rules Python.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import os
import shutil
import sys
import sysconfig
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import ModuleType

from cardc.backends.python import RUNTIME_SOURCE, accel

ENV = "CARDC_COMPILED_RULES"
CHOICES = ("build", "cached", "off")
# Games in a `cardc simulate` run from which it builds one (for fewer it uses a finished build only): the build
# costs about two minutes of one core per content version, and saves about 1.5-2 ms of CPU a game (random, sensible
# at 4 players: 24% and 15% of their instructions) against the compiled runtime with Python rules.
BUILD_FROM = 50_000
REWRITE = "4"  # the version of `for_mypyc`'s rewrite and of the build's layout: a change makes new builds
_DONE = "built"
KEEP = 5  # finished builds kept (the newest)
_HEADER = '# mypy: disable-error-code="attr-defined"\n'  # (a verb of no module (see `for_mypyc`) stays `v.<verb>`)
_VERBS = "v"  # the name generated modules import `cardc_runtime.verbs` as
_RUNTIME = "cardc_runtime"


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


def for_mypyc(text: str, homes: Mapping[str, str] | None = None) -> str:
    """A generated module as compiled with the runtime: every `v.<verb>` read in a function becomes the verb
    imported from the module that defines it (`homes`: verb -> module; by default the runtime's, `verb_homes`),
    which mypyc calls as a C function; a verb of no module (not a function) is bound once to a module `Final`.
    `ctx.<method>(...)` is left as it is: `Context` is a native class of the same build. A function with a name
    `v` of its own is left as it is.

    mypy must check the bodies: `# mypy: ignore-errors` would make mypy skip them, and mypyc would then compile
    each function as an empty one that returns None (games that end at once, or never)."""
    known = verb_homes() if homes is None else homes
    tree = ast.parse(text)
    imported: dict[str, str] = {}  # local name -> its import
    bound: dict[str, str] = {}  # local name -> what it is bound to

    class Bind(ast.NodeTransformer):
        def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
            self.generic_visit(node)
            if isinstance(node.value, ast.Name) and node.value.id == _VERBS and isinstance(node.ctx, ast.Load):
                local = f"_v_{node.attr}"
                home = known.get(node.attr)
                if home is None:
                    bound[local] = f"{_VERBS}.{node.attr}"
                else:
                    imported[local] = f"from {home} import {node.attr} as {local}\n"
                return ast.copy_location(ast.Name(local, ast.Load()), node)
            return node

    for i, stmt in enumerate(tree.body):
        if isinstance(stmt, ast.FunctionDef) and not _rebinds(stmt, _VERBS):
            tree.body[i] = Bind().visit(stmt)
    imports = [i for i, s in enumerate(tree.body) if isinstance(s, (ast.Import, ast.ImportFrom))]
    if (imported or bound) and imports:
        lines = "".join(sorted(imported.values()))
        if bound:
            lines += "from typing import Final\n" + "".join(f"{name}: Final = {what}\n" for name, what in bound.items())
        tree.body[imports[-1] + 1:imports[-1] + 1] = ast.parse(lines).body
    return _HEADER + ast.unparse(tree) + "\n"


@functools.cache
def verb_homes() -> dict[str, str]:
    """Each function `cardc_runtime.verbs` offers -> the runtime module that defines it (`cardc_runtime.<module>`):
    `verbs` gathers the verbs of several modules at import, which mypy cannot follow. Read from the Python
    runtime's own modules, imported under their package name (whatever runtime this process plays on)."""
    import importlib
    from types import FunctionType

    package = "cardc.backends.python.runtime.cardc_runtime"
    verbs = importlib.import_module(f"{package}.verbs")
    return {name: _RUNTIME + fn.__module__[len(package):] for name, fn in vars(verbs).items()
            if not name.startswith("_") and isinstance(fn, FunctionType) and fn.__module__.startswith(package + ".")}


def _rebinds(fn: ast.FunctionDef, name: str) -> bool:
    """Whether the function has a local `name` (a parameter, or an assignment)."""
    for node in ast.walk(fn):
        if isinstance(node, ast.arg) and node.arg == name:
            return True
        if isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load):
            return True
    return False


def _modules(files: Sequence[tuple[str, str]]) -> list[str]:
    """The package's files compiled: every module but the packages' `__init__` (paths below the package)."""
    return [rel.split("/", 1)[1] for rel, _ in files
            if rel.endswith(".py") and "/" in rel and not rel.endswith("__init__.py")]


def build(files: Sequence[tuple[str, str]], name: str, digest: str,
          note: Callable[[str], None] = lambda _: None, train: Callable[[Path], bool] | None = None) -> Path | None:
    """Compile the runtime's modules and the package's (`files`: paths `<game>/...` and texts, imported as the
    package `name`) in one mypyc build, and return the build's folder (its `cardc_runtime` and `name`
    beside each other, as accel.load and `load` import them), or None with a note saying why not."""
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
    note("compiling the runtime and the game's rules together with mypyc (once per content version; about two "
         "minutes)")

    def write(work: Path) -> list[str]:
        (work / _RUNTIME).mkdir()
        for src in sorted(RUNTIME_SOURCE.glob("*.py")):
            shutil.copyfile(src, work / _RUNTIME / src.name)
        for rel, text in files:
            path = work / name / rel.split("/", 1)[1]
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(for_mypyc(text) if rel.split("/", 1)[1] in modules else text, encoding="utf-8")
        return [f"{_RUNTIME}/{m}.py" for m in accel.COMPILED] + [f"{name}/{m}" for m in modules]

    suffix = str(sysconfig.get_config_var("EXT_SUFFIX"))

    def left_out(work: Path) -> list[str]:
        return ([m for m in accel.COMPILED if not (work / _RUNTIME / f"{m}{suffix}").is_file()]
                + [m for m in modules if not (work / name / f"{m[:-3]}{suffix}").is_file()])

    return accel.run_mypyc(where, write, left_out, key(digest, name), "the runtime with the rules",
                           "the rules stay Python", note, _prune, group=accel.GROUPS[1], train=train)


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


def runtime_for(files: Sequence[tuple[str, str]], name: str, digest: str,
                note: Callable[[str], None] = lambda _: None,
                train: Callable[[Path], bool] | None = None) -> Path | None:
    """The build of the runtime with this package's rules that a run should import as its compiled runtime
    (before any runtime is imported), as `CARDC_COMPILED_RULES` allows: made first under `build`, a finished one
    under `cached`; None: the compiled runtime alone, the rules Python."""
    how = mode()
    if how == "off" or not files:
        return None
    where = folder(digest, name)
    if where is not None and (where / _DONE).is_file():
        return where
    return build(files, name, digest, note, train) if how == "build" else None


def compiled_runtime(files: Sequence[tuple[str, str]], name: str, digest: str,
                     note: Callable[[str], None] = lambda _: None,
                     train: Callable[[Path], bool] | None = None) -> Path | None:
    """The compiled runtime a big run of this package plays on, made if needed: the build with its rules (as
    `runtime_for`), else the runtime compiled alone (accel.build); None when neither can be made. `train`: the
    build with the rules is profile-guided (accel.run_mypyc)."""
    return runtime_for(files, name, digest, note, train) or accel.build(note)


def package(files: Sequence[tuple[str, str]], name: str, digest: str,
            note: Callable[[str], None] = lambda _: None) -> ModuleType | None:
    """The package compiled, imported as `name`, when this process runs the compiled runtime of a build that
    holds it (`runtime_for`) and `CARDC_COMPILED_RULES` allows it; else None: the caller imports the Python
    rules."""
    if not accel.is_compiled() or mode() == "off":
        return None
    runtime = sys.modules[_RUNTIME]
    where = Path(str(runtime.__file__)).parent.parent
    if not (where / name / "__init__.py").is_file():
        return None  # (the compiled runtime alone, or built with another package)
    module = load(where, name, _modules(files))
    if module is None:
        note("the compiled rules could not be imported: they stay Python")
    return module
