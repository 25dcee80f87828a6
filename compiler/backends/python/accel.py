"""An optional compiled runtime for whole games: most of `cardc_runtime`'s modules compiled by mypyc into C
extensions, built once per runtime source, Python and mypy version, and kept in the user's cache folder.

The compiled runtime is the same source, so it plays the same games (the tests compare the records of both);
it plays them about twice as fast. It is optional: without mypyc, a C compiler or a cache folder the games
run on the Python runtime, with a note saying why, never a traceback.

Every built-in bot plays on it, the greedy bot's decisions compiled too. Its exact odds stay Python modules
(`odds`, `run_state`, `fight_classes`, ...): on the compiled runtime they run every path of a fight to its end
(no paused states shared: those keys read Python frames, which compiled code has not got) and fight each
monster alone (no stand-in for a class of monsters: compiled classes refuse it); the same exact figures, so the
same games (and `cardc.simulation.odds_store` keeps them between runs). The greedy bot's win chance is made
there by `win_odds` (compiled): the same runs, with a few sums per node instead of distributions. A
designer's bot plays on it when asked (`--runtime compiled`), unless its class derives from a compiled one that
refuses it (the `random` and `sensible` bots of `engine`; `GreedyBot` allows it): then it says so; `auto` keeps
designers' bots on the Python runtime.

Where the C compiler is gcc 12 or later, the builds of the runtime with a game's rules (compiled_rules.py) are
profile-guided (pgo.py): trained on games once per cardc version, then guided by the counters kept.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from subprocess import CompletedProcess

from cardc.backends.python import RUNTIME_SOURCE, pgo

# The modules compiled (the greedy bot's decisions too: its class allows designers' subclasses, and its win chance,
# `win_odds`); the others stay Python: the package's `__init__`, `errors` (compiled classes cannot derive from
# RuntimeError) and the exact odds' machinery, which reads Python frames where it has them (run_state.py).
COMPILED = ("ability_verbs", "bots", "card_play_verbs", "chance_verbs", "characters", "context", "engine", "fight",
            "fights", "greedy", "inputs", "model", "play_verbs", "ring_verbs", "standing", "stat_verbs", "state",
            "table_verbs", "verbs", "win_odds")
BOTS = frozenset({"random", "sensible", "greedy"})  # the built-in bots: the same games on the compiled runtime
ENV = "CARDC_COMPILED_RUNTIME"  # the folder of a built runtime: processes started by a run load it
MODES = ("auto", "compiled", "python")
WORTH_IT = 1000  # games in a run from which `auto` says that a compiled runtime would help
# Games in a run from which `auto` builds the compiled runtime itself: the build costs about a minute of one core,
# and the compiled runtime saves 7-20 ms of CPU a game (random 7, sensible 9, greedy ~20 at 4 players), so from
# ~5,000 games the run alone pays for it (later runs of the same runtime version get it for nothing).
BUILD_FROM = 5000
_DONE = "built"  # the file that marks a finished build
KEEP = 3  # finished builds kept in the cache folder (this runtime's and the newest others)
# C flags added to a build's (before the user's own CFLAGS, which may undo them), on Linux where gcc and clang take
# them: calls into libpython go through its GOT entry instead of a PLT stub (`-fno-plt`), and the build's own
# functions call each other directly, inlined where the compiler sees fit, since no other library can interpose
# them (`-fno-semantic-interposition`). The same games, 2% fewer instructions (bench/README, "Issue 10.7: compiler
# flags for the compiled runtime, ...").
C_FLAGS = ("-fno-semantic-interposition", "-fno-plt") if sys.platform.startswith("linux") else ()


# The names of the builds' shared libraries (mypyc's group): the runtime alone, the runtime with a game's rules.
# Fixed, not mypyc's hash of the modules' names (which holds the rules package's digest): the C file of every
# build of a kind then has the same name, and the profile counters kept for that kind match it (pgo.py). Two
# builds are never imported by one process (their modules are `cardc_runtime.*` alike).
GROUPS = ("cardc_runtime_build", "cardc_rules_build")


def _mypy_version() -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mypy")
    except PackageNotFoundError:
        return None


@functools.cache
def key() -> str:
    """What a build depends on: the runtime's source, the modules compiled, Python, the platform, mypy (read and
    hashed once per process: a run asks for it when it looks for a build and again when it makes one)."""
    from cardc.diskcache import digest

    parts: list[str | bytes] = [" ".join(COMPILED), sys.version, sysconfig.get_platform(),
                                str(sysconfig.get_config_var("EXT_SUFFIX")), _mypy_version() or "-", " ".join(C_FLAGS),
                                " ".join(GROUPS)]
    for src in sorted(RUNTIME_SOURCE.glob("*.py")):
        parts += [src.name, src.read_bytes()]
    return digest(*parts)


def folder() -> Path | None:
    """Where this runtime's build lives (None when the user's cache is off)."""
    from cardc.diskcache import cache_root

    root = cache_root()
    return None if root is None else root / "runtime" / key()


def built() -> Path | None:
    """The finished build of this runtime, if there is one."""
    where = folder()
    return where if where is not None and (where / _DONE).is_file() else None


def _failed(where: Path) -> Path:
    """The file that says mypyc could not compile this build (this runtime version: `auto` does not try
    again)."""
    return where.parent / f"{where.name}.failed"


def missing_tools() -> str:
    """What a mypyc build lacks here (mypyc, a C compiler), or "" when it can be tried."""
    if _mypy_version() is None or importlib.util.find_spec("mypyc") is None:
        return "mypyc is not installed (`pip install mypy`)"
    compiler = pgo.compiler(dict(os.environ))
    if shutil.which(compiler) is None:
        return f"no C compiler ({compiler})"
    return ""


def build(note: Callable[[str], None] = lambda _: None, announce: bool = True) -> Path | None:
    """Compile the runtime (about a minute; once per runtime source) and return its folder, or None with a note
    saying why not (`announce`: also a note when it starts). Not trained (`run_mypyc`): the build is itself made
    once per runtime version, so a training would be paid for at each, by runs of a few thousand games."""
    where = folder()
    if where is None:
        note("the cache folder is off (CARDC_CACHE=off): no compiled runtime")
        return None
    if (where / _DONE).is_file():
        return where
    lacking = missing_tools()
    if lacking:
        note(f"{lacking}: playing on the Python runtime")
        return None
    if announce:
        note("compiling the runtime with mypyc (once per runtime version; about a minute)")

    def write(work: Path) -> list[str]:
        package = work / "cardc_runtime"
        package.mkdir()
        for src in sorted(RUNTIME_SOURCE.glob("*.py")):
            shutil.copyfile(src, package / src.name)
        return [f"cardc_runtime/{m}.py" for m in COMPILED]

    suffix = str(sysconfig.get_config_var("EXT_SUFFIX"))
    return run_mypyc(where, write, lambda work: [m for m in COMPILED
                                                 if not (work / "cardc_runtime" / f"{m}{suffix}").is_file()],
                     key(), "the runtime", "playing on the Python runtime", note, _prune, group=GROUPS[0])


def run_mypyc(where: Path, write: Callable[[Path], list[str]], left_out: Callable[[Path], list[str]], stamp: str,
              what: str, instead: str, note: Callable[[str], None], prune: Callable[[Path], None],
              env: dict[str, str] | None = None, group: str = GROUPS[0],
              train: Callable[[Path], bool] | None = None) -> Path | None:
    """One mypyc build into the cache folder `where`, shared by the runtime's and the rules' builds: `write`
    puts the sources into a new folder beside `where` and returns mypyc's arguments; `left_out` names what a
    finished build lacks. A finished build is marked done with `stamp`, moved to `where` (whoever finishes the
    same build first wins) and `prune` tidies the folders beside it; a failure leaves a note ("... `what` ...:
    `instead`") and a `.failed` mark, and returns None.

    `group` names the build's shared library (GROUPS). Where gcc allows it (pgo.py) the build is profile-guided
    by the counters kept for its group; with none kept yet and a `train`, the build is first compiled with
    counters, marked done in its work folder, `train(work)` plays games on it in another process (True when
    they were played), and the counters are kept; a training that fails, or a compile the counters make fail,
    leaves the build as without them."""
    try:
        where.parent.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix="build-", dir=where.parent))
    except OSError as e:
        note(f"cannot write the cache folder ({e}): {instead}")
        return None
    try:
        targets = write(work)
        run_env = {**os.environ, "MYPY_CACHE_DIR": str(work / ".mypy_cache"), **(env or {})}
        flags = C_FLAGS
        counters = pgo.kept(f"{key()} {group}", run_env)
        if counters is not None and not pgo.counted(counters) and train is not None:
            note("profile-guided build: compiling with counters and training it on games first (once per cardc "
                 "version; a few minutes)")
            trial = _mypyc(targets, work, run_env, (*flags, *pgo.generate_flags(work)), group)
            if trial.returncode == 0 and not left_out(work):
                (work / _DONE).write_text("training\n", encoding="utf-8")  # (loaders take only a finished build)
                if train(work):
                    pgo.keep(work, counters)
            _clean(work)
        done = None
        if counters is not None and pgo.counted(counters):
            done = _mypyc(targets, work, run_env, (*flags, *pgo.use_flags(work, counters)), group)
            if done.returncode != 0:  # (damaged counters, say: the build is made without them)
                _clean(work)
        if done is None or done.returncode != 0:
            done = _mypyc(targets, work, run_env, flags, group)
        if done.returncode != 0:
            last = (done.stderr.strip() or done.stdout.strip() or "?").splitlines()[-1]
            note(f"mypyc could not compile {what} ({last}): {instead}")
            _failed(where).write_text(last + "\n", encoding="utf-8")
            return None
        shutil.rmtree(work / "build", ignore_errors=True)
        shutil.rmtree(work / ".mypy_cache", ignore_errors=True)
        shutil.rmtree(work / pgo.PROFILE, ignore_errors=True)
        missing = left_out(work)
        if missing:
            note(f"mypyc left out {', '.join(missing)}: {instead}")
            _failed(where).write_text(f"left out {', '.join(missing)}\n", encoding="utf-8")
            return None
        (work / _DONE).write_text(stamp + "\n", encoding="utf-8")
        try:
            work.rename(where)
        except OSError:  # another process finished the same build first
            if not (where / _DONE).is_file():
                raise
        prune(where)
        return where
    except OSError as e:
        note(f"cannot build {what} ({e}): {instead}")
        return None
    finally:
        shutil.rmtree(work, ignore_errors=True)


# mypyc's build of `targets` (what `python -m mypyc` does), with the group (the shared library's name) fixed
_SETUP = """
import os, sys
from setuptools import setup
from mypyc.build import mypycify

setup(name="cardc_build", script_args=["build_ext", "--inplace"],
      ext_modules=mypycify(sys.argv[2:], opt_level=os.environ.get("MYPYC_OPT_LEVEL", "3"),
                           debug_level=os.environ.get("MYPYC_DEBUG_LEVEL", "1"), group_name=sys.argv[1]))
"""


def _mypyc(targets: list[str], work: Path, env: dict[str, str], flags: tuple[str, ...],
           group: str) -> CompletedProcess[str]:
    """Run mypyc on `targets` in `work`, `flags` before the user's own CFLAGS (which come last and win)."""
    run_env = dict(env)
    if flags:
        run_env["CFLAGS"] = " ".join((*flags, env.get("CFLAGS", ""))).strip()
    return subprocess.run([sys.executable, "-c", _SETUP, group, *targets], cwd=work, env=run_env,
                          capture_output=True, text=True)


def _clean(work: Path) -> None:
    """Remove what a compile made in `work` (its C and objects, the libraries, the done mark), so the next one
    compiles everything again: setuptools skips an object newer than its C file, and mypyc leaves a C file it
    would write the same untouched."""
    shutil.rmtree(work / "build", ignore_errors=True)
    suffix = str(sysconfig.get_config_var("EXT_SUFFIX"))
    for built_file in work.rglob(f"*{suffix}"):
        built_file.unlink()
    (work / _DONE).unlink(missing_ok=True)


def _prune(keep: Path) -> None:
    """Remove all but the newest KEEP builds of other runtime versions (5 MB each) and builds left unfinished
    more than a day ago (a failure mark stays: `auto` does not try that version again)."""
    prune(keep, KEEP, failures=False)


def prune(keep: Path, count: int, failures: bool) -> None:
    """Beside the finished build `keep`: remove all but the newest `count` finished builds, folders of builds
    left unfinished more than a day ago, and (`failures`) failure marks more than a day old."""
    import time

    done, stale = [], []
    for other in keep.parent.iterdir():
        try:
            if (other / _DONE).is_file():
                if other != keep:
                    done.append(((other / _DONE).stat().st_mtime, other))
            elif other.name.startswith("build-") or (failures and other.name.endswith(".failed")):
                if other.stat().st_mtime < time.time() - 86400:
                    stale.append(other)
        except OSError:
            continue
    for _, other in sorted(done, reverse=True)[count - 1:]:
        stale.append(other)
    for other in stale:
        if other.is_dir():
            shutil.rmtree(other, ignore_errors=True)
        else:
            other.unlink(missing_ok=True)


def load(where: Path) -> bool:
    """Import the compiled runtime in `where` as `cardc_runtime` (every module of it); False, with nothing
    left imported, when it cannot be (no runtime may have been imported in this process yet)."""
    if "cardc_runtime" in sys.modules or not (where / _DONE).is_file():
        return False
    package = where / "cardc_runtime"
    if str(where) not in sys.path:
        sys.path.append(str(where))  # the modules' shared library is a top-level module of its own
    try:
        spec = importlib.util.spec_from_file_location("cardc_runtime", package / "__init__.py",
                                                      submodule_search_locations=[str(package)])
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["cardc_runtime"] = module
        spec.loader.exec_module(module)
        for src in sorted(package.glob("*.py")):
            if src.stem != "__init__":
                importlib.import_module(f"cardc_runtime.{src.stem}")
        if any(not str(sys.modules[f"cardc_runtime.{m}"].__file__).startswith(str(package)) for m in COMPILED):
            raise ImportError("a module of the compiled runtime came from elsewhere")
    except (ImportError, OSError, AttributeError, TypeError, ValueError):  # a damaged or foreign build: not used
        for name in [n for n in sys.modules if n == "cardc_runtime" or n.startswith("cardc_runtime.")]:
            del sys.modules[name]
        return False
    return True


def is_compiled() -> bool:
    """Whether this process runs the compiled runtime."""
    engine = sys.modules.get("cardc_runtime.engine")
    return engine is not None and not str(getattr(engine, "__file__", "")).endswith(".py")


def may_compile(mode: str, bots: Iterable[str]) -> bool:
    """Whether a run in `mode` with `bots` may play on a compiled runtime at all: never under `python`, and under
    `auto` only with the built-in bots (a designer's bot is compiled only when asked: see `choose`)."""
    return mode == "compiled" or (mode == "auto" and set(bots) <= BOTS)


def choose(mode: str, bots: Iterable[str], games: int, note: Callable[[str], None]) -> Path | None:
    """The compiled runtime a run should use, or None for the Python one. `python` never uses one; `compiled`
    builds one if needed; `auto` uses a finished build (for the built-in bots) and builds one, with a one-line
    note, for a run of `BUILD_FROM` games or more (unless mypyc failed on this runtime version before); a run
    of `WORTH_IT` games or more that does not build says that `--runtime compiled` would help."""
    if not may_compile(mode, bots):
        return None
    if mode == "compiled":
        return build(note)
    where = built()
    if where is not None:
        return where
    if games >= BUILD_FROM:
        at = folder()
        if at is not None and _failed(at).is_file():
            return None  # (mypyc could not compile this version: not tried at every run; `--runtime compiled` does)
        note(f"{games:,} games: compiling the runtime with mypyc first, about a minute, once per runtime version "
             "(`--runtime python` skips it)")
        return build(note, announce=False)
    if games >= WORTH_IT:
        note("`--runtime compiled` would play these games about twice as fast (it compiles the runtime once, "
             "about a minute)")
    return None
