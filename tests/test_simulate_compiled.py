"""The optional compiled runtime (`cardc simulate --runtime compiled`): the same games as the Python runtime,
game by game, and a fallback with a note (never a traceback) where it cannot be built or used."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cardc.backends.python import accel, compiled_rules

ROOT = Path(__file__).resolve().parent.parent

# Plays games of the bundled content in a fresh process (a process imports one runtime) and prints which runtime
# played them, whether the rules were compiled (compiled_rules.py), and a digest of every game's record.
PLAY = """
import hashlib, sys
from pathlib import Path
from cardc.backends.python.accel import is_compiled
from cardc.frontend import compile_paths
from cardc.simulation.jobs import Job, package_files
from cardc.simulation.runner import play_batch
from cardc.simulation.table import load_package, validate

bot, players, games = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
project = compile_paths([Path(sys.argv[4])]).project
files, digest = package_files(project, "karak")
job = validate(Job("karak", files, digest, players, ("regent",), (), bot))
records = play_batch(job, 11, list(range(games)))
rules = not any(str(m.__file__).endswith(".py") for m in load_package(job).MODULES)
print(is_compiled(), rules, hashlib.sha256(repr(records).encode()).hexdigest(), sum(r.turns for r in records))
"""


def _env(**changes: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CARDC_RUNTIME", accel.ENV)}
    for k, v in changes.items():
        if v is not None:
            env[k] = v
    return env


@pytest.fixture(scope="module")
def compiled() -> Path:
    notes: list[str] = []
    where = accel.build(notes.append)
    if where is None:
        pytest.skip(f"no compiled runtime on this machine: {'; '.join(notes)}")
    return where


@pytest.fixture(scope="module")
def fused(compiled: Path) -> Path:
    """The build of the runtime with the bundled Karak's rules (compiled_rules.py), as a big run makes it."""
    from cardc.frontend import compile_paths
    from cardc.simulation.jobs import package_files, package_name

    files, digest = package_files(compile_paths([ROOT / "content"]).project, "karak")
    notes: list[str] = []
    where = compiled_rules.build(files, package_name("karak", digest), digest, notes.append)
    if where is None:
        pytest.skip(f"no build of the runtime with the rules on this machine: {'; '.join(notes)}")
    return where


# A designer's bot: a plain class (no built-in bot as its base), from a file, which plays on either runtime.
OWN_BOT = """
class Cautious:
    def __init__(self, seed):
        self.seed = seed

    def choose(self, view, options):
        me = view.ctx.characters.get(view.chooser)
        if "stop" in options and me is not None and me.lives <= 2:
            return options.index("stop")
        return (self.seed + len(view.point)) % len(options)
"""


# A designer's bot derived from the greedy one (compiled on the compiled runtime, which allows it), bolder.
BOLD_BOT = """
from cardc_runtime.greedy import GreedyBot


class Bold(GreedyBot):
    WIN_ENOUGH = 0.05
    LOW_LIVES = 1
"""


@pytest.mark.parametrize("bot, players, games", [("sensible", 4, 12), ("random", 4, 12), ("sensible", 2, 6),
                                                 ("greedy", 4, 10), ("greedy", 2, 4), ("own", 3, 4),
                                                 ("bold", 4, 4)])
def test_compiled_runtime_plays_the_same_games(compiled: Path, fused: Path, tmp_path: Path, bot: str, players: int,
                                               games: int) -> None:
    if bot == "own":
        (tmp_path / "cautious.py").write_text(OWN_BOT, encoding="utf-8")
        bot = f"{tmp_path / 'cautious.py'}:Cautious"
    if bot == "bold":
        (tmp_path / "bold.py").write_text(BOLD_BOT, encoding="utf-8")
        bot = f"{tmp_path / 'bold.py'}:Bold"
    runs = {}
    settings = [("python", _env()), ("compiled", _env(**{accel.ENV: str(fused)})),
                ("runtime alone", _env(**{accel.ENV: str(compiled)}))]
    if players == 4:  # the build with the rules, its rules left Python by the switch, too
        settings.append(("python rules", _env(**{accel.ENV: str(fused), compiled_rules.ENV: "off"})))
    for name, env in settings:
        out = subprocess.run([sys.executable, "-c", PLAY, bot, str(players), str(games), str(ROOT / "content")],
                             env=env, capture_output=True, text=True, check=True).stdout.split()
        runs[name] = out
    assert runs["python"][:2] == ["False", "False"] and runs["compiled"][0] == "True"
    assert int(runs["python"][3]) > 0
    assert runs["compiled"][:2] == ["True", "True"]  # (the fixture skips where the build cannot be made)
    assert runs["runtime alone"][:2] == ["True", "False"]
    assert runs["compiled"][2:] == runs["python"][2:]  # every game's record the same
    assert runs["runtime alone"][2:] == runs["python"][2:]
    if "python rules" in runs:
        assert runs["python rules"][:2] == ["True", "False"] and runs["python rules"][2:] == runs["python"][2:]


def test_the_training_of_a_build_plays_games_on_it(compiled: Path, tmp_path: Path) -> None:
    """`training.trainer` plays the run's set-up on the build it is given, in another process (there the counters
    of a build compiled with them are written, tests/test_pgo.py); on a folder without a build it fails."""
    from cardc.frontend import compile_paths
    from cardc.simulation.jobs import Job, package_files
    from cardc.simulation.training import trainer

    files, digest = package_files(compile_paths([ROOT / "content"]).project, "karak")
    job = Job("karak", files, digest, 2, ("regent",), (), "greedy", 40)
    assert trainer(job, games=2)(compiled)
    assert not trainer(job, games=2)(tmp_path)
    assert not trainer(job.with_(expansions=("no_such_expansion",)), games=2)(compiled)  # (refused by `validate`)
    assert not list(compiled.glob("*.pickle")) and not list(tmp_path.glob("*.pickle"))


def test_simulate_command_compiled_and_python_report_the_same(fused: Path) -> None:
    """(`--runtime compiled` finds the build of the runtime with the rules that the fixture made, and uses it.)"""
    reports = {}
    for runtime in ("python", "compiled"):
        done = subprocess.run([sys.executable, "-m", "cardc", "simulate", "--game", "karak", "--players", "3",
                               "--games", "8", "--seed", "4", "--bot", "sensible", "--workers", "2", "--json",
                               "--no-progress", "--runtime", runtime, "--content", str(ROOT / "content")],
                              env=_env(), capture_output=True, text=True, check=True)
        reports[runtime] = json.loads(done.stdout)
    assert reports["python"]["runtime"] == "python" and reports["compiled"]["runtime"] == "compiled"
    for data in reports.values():
        del data["seconds"], data["runtime"]
    assert reports["compiled"] == reports["python"]


def test_unbuilt_runs_and_designers_bots_stay_on_python(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CARDC_CACHE_DIR", str(tmp_path))
    notes: list[str] = []
    assert accel.choose("python", {"greedy"}, 10**6, notes.append) is None
    assert accel.choose("auto", {"sensible"}, 10, notes.append) is None and not notes  # nothing built
    assert accel.choose("auto", {"greedy"}, accel.WORTH_IT, notes.append) is None  # not big enough to build
    assert "--runtime compiled" in notes[-1]
    # a designer's bot stays on Python unless asked (its class may derive from a compiled one), without a note
    assert accel.choose("auto", {"mine.py:Mine"}, 10**5, notes.append) is None and len(notes) == 1
    monkeypatch.setattr(accel, "_mypy_version", lambda: None)  # a machine without mypyc
    assert accel.choose("compiled", {"greedy"}, 10, notes.append) is None
    assert "mypyc is not installed" in notes[-1]
    assert accel.choose("auto", {"greedy"}, accel.BUILD_FROM, notes.append) is None  # a big run: it tries
    assert "compiling the runtime" in notes[-2] and "mypyc is not installed" in notes[-1]
    monkeypatch.setenv("CARDC_CACHE", "off")
    assert accel.build(notes.append) is None and "cache folder is off" in notes[-1]


def test_auto_builds_for_a_big_run_once_and_not_after_a_failure(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """`auto` builds the compiled runtime for a run of BUILD_FROM games or more (one note), not for a smaller one,
    and not again after mypyc failed on this runtime version (`--runtime compiled` still tries)."""
    monkeypatch.setenv("CARDC_CACHE_DIR", str(tmp_path))
    builds: list[bool] = []

    def fake_build(note: object, announce: bool = True) -> None:
        builds.append(announce)
        where = accel.folder()
        assert where is not None
        accel._failed(where).parent.mkdir(parents=True, exist_ok=True)
        accel._failed(where).write_text("mypyc: error\n", encoding="utf-8")  # as a failed build leaves it

    monkeypatch.setattr(accel, "build", fake_build)
    notes: list[str] = []
    assert accel.choose("auto", {"sensible", "greedy"}, accel.BUILD_FROM - 1, notes.append) is None and not builds
    assert accel.choose("auto", {"greedy"}, accel.BUILD_FROM, notes.append) is None
    assert builds == [False] and len(notes) == 2 and "5,000 games: compiling the runtime" in notes[-1]
    assert accel.choose("auto", {"greedy"}, 10 * accel.BUILD_FROM, notes.append) is None and builds == [False]
    assert accel.choose("compiled", {"greedy"}, 10, notes.append) is None and builds == [False, True]


def test_command_without_a_compiler_plays_on_python(tmp_path: Path) -> None:
    """`--runtime compiled` where nothing can be compiled: the games, on the Python runtime, and a note."""
    env = _env(CARDC_CACHE_DIR=str(tmp_path), PATH=str(tmp_path), CC="no-such-cc")
    done = subprocess.run([sys.executable, "-m", "cardc", "simulate", "--game", "karak", "--players", "2",
                           "--games", "2", "--turn-cap", "40", "--bot", "random", "--workers", "1", "--json",
                           "--no-progress", "--runtime", "compiled", "--content", str(ROOT / "content")],
                          env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["runtime"] == "python"
    assert "note:" in done.stderr and "Traceback" not in done.stderr


def test_a_damaged_build_is_not_used(tmp_path: Path) -> None:
    (tmp_path / "cardc_runtime").mkdir()
    (tmp_path / "cardc_runtime" / "__init__.py").write_text("raise ImportError('damaged')\n", encoding="utf-8")
    (tmp_path / "built").write_text("x\n", encoding="utf-8")
    code = ("import sys; from pathlib import Path; from cardc.backends.python.accel import load; "
            f"print(load(Path({str(tmp_path)!r})), sorted(m for m in sys.modules if m.startswith('cardc_runtime')))")
    out = subprocess.run([sys.executable, "-c", code], env=_env(), capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "[]"]


def test_old_builds_are_pruned(tmp_path: Path) -> None:
    for i, name in enumerate(["a", "b", "c", "d", "new"]):
        (tmp_path / name).mkdir()
        (tmp_path / name / "built").write_text("x\n", encoding="utf-8")
        os.utime(tmp_path / name / "built", (1000 + i, 1000 + i))
    (tmp_path / "build-left").mkdir()
    os.utime(tmp_path / "build-left", (1000, 1000))
    (tmp_path / "build-running").mkdir()
    accel._prune(tmp_path / "new")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["build-running", "c", "d", "new"]


def test_a_compiled_process_plays_greedy_after_sensible_and_refuses_a_derived_bot_in_words(
        compiled: Path, tmp_path: Path) -> None:
    """One compiled process plays every built-in bot; a designer's class derived from a compiled bot class cannot
    run there, and the error says so (not a TypeError from inside the game)."""
    (tmp_path / "derived.py").write_text("from cardc_runtime.engine import SensibleBot\n\n"
                                         "class Derived(SensibleBot):\n    pass\n", encoding="utf-8")
    code = PLAY.replace("records = play_batch", "print(len(play_batch(job.with_(bot='sensible'), 1, [0])))\n"
                        "print(len(play_batch(job.with_(bot='greedy'), 1, [0])))\n"
                        "try:\n    play_batch(job.with_(bot=sys.argv[5]), 1, [0])\n"
                        "except LookupError as e:\n    print('refused:', e)\n    raise SystemExit\n"
                        "records = play_batch")
    out = subprocess.run([sys.executable, "-c", code, "sensible", "2", "1", str(ROOT / "content"),
                          f"{tmp_path / 'derived.py'}:Derived"],
                         env=_env(**{accel.ENV: str(compiled)}), capture_output=True, text=True, check=True).stdout
    assert out.splitlines()[:2] == ["1", "1"], out
    assert out.splitlines()[2].startswith("refused:") and "derives from `SensibleBot`" in out, out
