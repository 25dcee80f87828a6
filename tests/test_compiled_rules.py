"""Generated rules compiled by mypyc with the runtime (compiled_rules.py): the rewrite made for mypyc, where a
run finds the build, and the fallbacks to the Python rules (none of these tests builds anything;
test_simulate_compiled.py compares the records of compiled and Python rules where mypyc is installed)."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cardc.backends.python import accel, compiled_rules, pgo

SOURCE = '''from __future__ import annotations

import operator as v


def f(x: int) -> int:
    return v.neg(x) + v.add(x, b=1) if False else v.neg(x) + v.mul(x, 3)


def g(v: int) -> int:
    return v + 1


def h(x: int) -> int:
    v = x
    return v * 2
'''


def test_rewrite_imports_the_verbs_from_their_modules_and_means_the_same() -> None:
    text = compiled_rules.for_mypyc(SOURCE, {"neg": "operator", "mul": "operator"})
    assert text.startswith('# mypy: disable-error-code="attr-defined"\n')  # (never ignore-errors: see for_mypyc)
    assert "from operator import neg as _v_neg" in text and "from operator import mul as _v_mul" in text
    assert "_v_add: Final = v.add" in text  # a verb of no known module: bound once
    f = next(n for n in ast.parse(text).body if isinstance(n, ast.FunctionDef) and n.name == "f")
    assert "v." not in ast.unparse(f)
    assert "def g(v: int) -> int:\n    return v + 1" in text and "v = x\n    return v * 2" in text  # own `v`s kept
    before: dict[str, object] = {}
    after: dict[str, object] = {}
    exec(compile(SOURCE, "before", "exec"), before)
    exec(compile(text, "after", "exec"), after)
    for name in ("f", "g", "h"):
        assert before[name](5) == after[name](5)  # type: ignore[operator]


def test_rewrite_leaves_context_calls_to_the_native_class() -> None:
    source = ("from __future__ import annotations\n\nfrom cardc_runtime import Context\n\n\n"
              "def f(ctx: Context) -> str:\n    return ctx.who() + ctx.owner + str(ctx.choose('p', ('a',)))\n")
    assert compiled_rules.for_mypyc(source, {}) == compiled_rules._HEADER + ast.unparse(ast.parse(source)) + "\n"


def test_verb_homes_are_where_the_runtime_defines_each_verb() -> None:
    """Every function `cardc_runtime.verbs` offers is imported by the compiled rules from the module named for it:
    the same function object there (a later module's verb replaces an earlier one's of the same name)."""
    import importlib

    from cardc.backends.python.loader import ensure_runtime

    ensure_runtime()
    verbs = importlib.import_module("cardc_runtime.verbs")
    homes = compiled_rules.verb_homes()
    assert len(homes) > 150 and homes["turn_over"] == "cardc_runtime.play_verbs"
    for name, home in homes.items():
        assert getattr(importlib.import_module(home), name) is getattr(verbs, name), name
        assert home == "cardc_runtime." + getattr(verbs, name).__module__.rsplit(".", 1)[1], name  # where defined


def test_generated_modules_rewrite(repo_root: Path) -> None:
    """Every generated module of the bundled games survives the rewrite as valid Python, with no `v.` call left
    in its functions."""
    for path in sorted((repo_root / "generated" / "python").glob("*/*.py")):
        if path.parent.name == "cardc_runtime" or path.name == "__init__.py":
            continue
        tree = ast.parse(compiled_rules.for_mypyc(path.read_text(encoding="utf-8")))
        for fn in (n for n in tree.body if isinstance(n, ast.FunctionDef)):
            assert not any(isinstance(a, ast.Attribute) and isinstance(a.value, ast.Name) and a.value.id == "v"
                           for a in ast.walk(fn)), (path, fn.name)
        assert "Final = v." not in ast.unparse(tree), path  # every verb imported from its module


FILES = (("game/__init__.py", "from . import base\n"), ("game/base.py", "X = 1\n"))


def test_python_runtime_keeps_python_rules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CARDC_CACHE_DIR", str(tmp_path))
    assert not accel.is_compiled()  # (the test process runs the Python runtime)
    assert compiled_rules.package(FILES, "_t_game", "d1") is None
    assert not list(tmp_path.iterdir())  # nothing built


def test_no_mypyc_no_cache_folder_or_a_failed_build_leave_the_rules_python(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CARDC_CACHE_DIR", str(tmp_path))
    notes: list[str] = []
    monkeypatch.setattr(accel, "_mypy_version", lambda: None)
    assert compiled_rules.build(FILES, "_t_game", "d1", notes.append) is None
    assert "mypyc is not installed" in notes[-1] and "stay Python" in notes[-1]
    monkeypatch.undo()
    monkeypatch.setenv("CARDC_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(accel, "missing_tools", lambda: "")
    calls: list[list[str]] = []

    def failing(cmd: list[str], **kw: object) -> subprocess.CompletedProcess[str]:
        calls.append(cmd)
        return subprocess.CompletedProcess(cmd, 1, "", "base.py:1: error: something mypy says\n")

    monkeypatch.setattr(accel.subprocess, "run", failing)
    monkeypatch.setattr(pgo, "kept", lambda kind, env: None)  # (no profile-guided build: tests/test_pgo.py)
    assert compiled_rules.build(FILES, "_t_game", "d1", notes.append) is None
    assert "could not compile the runtime with the rules (base.py:1: error: something mypy says)" in notes[-1]
    # the runtime's modules and the package's, not its `__init__`, in the group of builds with rules
    assert calls[0][3:] == [accel.GROUPS[1], *(f"cardc_runtime/{m}.py" for m in accel.COMPILED), "_t_game/base.py"]
    assert compiled_rules.build(FILES, "_t_game", "d1", notes.append) is None and len(calls) == 1  # not again
    assert [p.name for p in (tmp_path / "rules").iterdir()] == [f"{compiled_rules.key('d1', '_t_game')}.failed"]
    monkeypatch.setenv("CARDC_CACHE", "off")
    assert compiled_rules.build(FILES, "_t_game", "d1", notes.append) is None and "cache folder is off" in notes[-1]


def test_a_build_compiles_with_the_added_c_flags_before_the_users(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CARDC_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("CFLAGS", "-O1 -fsemantic-interposition")
    monkeypatch.setattr(accel, "missing_tools", lambda: "")
    envs: list[dict[str, str]] = []

    def failing(cmd: list[str], env: dict[str, str], **kw: object) -> subprocess.CompletedProcess[str]:
        envs.append(env)
        return subprocess.CompletedProcess(cmd, 1, "", "stop here\n")

    monkeypatch.setattr(accel.subprocess, "run", failing)
    monkeypatch.setattr(pgo, "kept", lambda kind, env: None)
    assert compiled_rules.build(FILES, "_t_game", "d1", lambda _: None) is None
    if sys.platform.startswith("linux"):
        assert accel.C_FLAGS == ("-fno-semantic-interposition", "-fno-plt")
        # (the user's flags last: gcc and clang take the last of two that disagree)
        assert envs[0]["CFLAGS"] == "-fno-semantic-interposition -fno-plt -O1 -fsemantic-interposition"
    else:
        assert accel.C_FLAGS == () and envs[0]["CFLAGS"] == "-O1 -fsemantic-interposition"


def test_a_damaged_build_is_not_used(tmp_path: Path) -> None:
    """A build whose import fails leaves nothing of it imported (the caller then imports the Python rules)."""
    (tmp_path / "_t_broken").mkdir()
    (tmp_path / "_t_broken" / "__init__.py").write_text("from . import base\n", encoding="utf-8")
    (tmp_path / "_t_broken" / "base.py").write_text("raise ImportError('damaged')\n", encoding="utf-8")
    (tmp_path / "built").write_text("x\n", encoding="utf-8")
    code = ("import sys; from pathlib import Path; from cardc.backends.python.compiled_rules import load; "
            f"print(load(Path({str(tmp_path)!r}), '_t_broken', ['base.py']), "
            "sorted(m for m in sys.modules if m.startswith('_t_broken')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["None", "[]"]
    # a build whose module is the Python source, not the compiled one, is not used either
    (tmp_path / "_t_broken" / "base.py").write_text("X = 1\n", encoding="utf-8")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["None", "[]"]


def test_mode_reads_the_switch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(compiled_rules.ENV, raising=False)
    assert compiled_rules.mode() == "build"
    for value, expected in (("off", "off"), ("Cached", "cached"), ("what", "build")):
        monkeypatch.setenv(compiled_rules.ENV, value)
        assert compiled_rules.mode() == expected


def test_old_builds_are_pruned(tmp_path: Path) -> None:
    for i, name in enumerate(["a", "b", "c", "d", "e", "f", "new"]):
        (tmp_path / name).mkdir()
        (tmp_path / name / "built").write_text("x\n", encoding="utf-8")
        os.utime(tmp_path / name / "built", (1000 + i, 1000 + i))
    (tmp_path / "build-left").mkdir()
    os.utime(tmp_path / "build-left", (1000, 1000))
    (tmp_path / "old.failed").write_text("x\n", encoding="utf-8")
    os.utime(tmp_path / "old.failed", (1000, 1000))
    (tmp_path / "build-running").mkdir()
    compiled_rules._prune(tmp_path / "new")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["build-running", "c", "d", "e", "f", "new"]


def test_simulate_builds_compiled_rules_for_big_runs_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`cardc simulate` on the compiled runtime: a run of BUILD_FROM games or more may build the compiled rules,
    a smaller one uses a finished build only; a switch the user set is kept."""
    import argparse

    from cardc.backends.python import loader
    from cardc.commands import simulate

    monkeypatch.setattr(accel, "choose", lambda *a: tmp_path)  # (as if the compiled runtime were built)
    monkeypatch.setattr(loader, "ensure_runtime", lambda: None)
    monkeypatch.setattr(accel, "is_compiled", lambda: True)
    monkeypatch.setenv(accel.ENV, "")
    for games, preset, expected in ((compiled_rules.BUILD_FROM, None, "build"), (100, None, "cached"),
                                    (10**6, "off", "off")):
        if preset is None:
            monkeypatch.delenv(compiled_rules.ENV, raising=False)
        else:
            monkeypatch.setenv(compiled_rules.ENV, preset)
        simulate.use_runtime(argparse.Namespace(bot="random", sweep=[], runtime="compiled", games=games))
        assert os.environ[compiled_rules.ENV] == expected
        assert os.environ[accel.ENV] == str(tmp_path)  # (no package: the compiled runtime alone)


RUN = {"players": 4, "expansion": [], "variant": [], "turn_cap": None, "heroes": None}  # (the rest of a run's options)


def test_simulate_imports_the_build_of_the_runtime_with_the_rules(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """With the game's package, a run on the compiled runtime imports the build that holds its rules, when
    `runtime_for` has one (built for a big run, a finished one otherwise), else the compiled runtime alone."""
    import argparse

    from cardc.backends.python import loader
    from cardc.commands import simulate

    fused = tmp_path / "fused"
    asked: list[tuple[str, str, str]] = []

    def runtime_for(files: object, name: str, digest: str, note: object, train: object) -> Path | None:
        assert callable(train)  # (a build made for the run is trained on its set-up: training.py)
        asked.append((name, digest, os.environ[compiled_rules.ENV]))
        return fused if os.environ[compiled_rules.ENV] == "build" else None

    alone: list[int] = []  # the runs that asked for the compiled runtime alone (built, if need be)
    real_choose = accel.choose

    def choose(mode: str, bots: object, games: int, note: object) -> Path:
        alone.append(games)
        return tmp_path

    monkeypatch.setattr(accel, "choose", choose)
    monkeypatch.setattr(loader, "ensure_runtime", lambda: None)
    monkeypatch.setattr(accel, "is_compiled", lambda: True)
    monkeypatch.setattr(compiled_rules, "runtime_for", runtime_for)
    monkeypatch.setenv(accel.ENV, "")
    for games, expected in ((compiled_rules.BUILD_FROM, fused), (100, tmp_path)):
        monkeypatch.delenv(compiled_rules.ENV, raising=False)
        simulate.use_runtime(argparse.Namespace(bot="random", sweep=[], runtime="compiled", games=games,
                                                game="g", **RUN), (FILES, "d" * 64))
        assert os.environ[accel.ENV] == str(expected)
    assert asked == [(f"_cardc_sim_{'d' * 16}_g", "d" * 64, "build"), (f"_cardc_sim_{'d' * 16}_g", "d" * 64, "cached")]
    # the big run took the build with the rules without compiling the runtime alone first (a minute for nothing)
    assert alone == [100]
    # a designer's bot plays on the Python runtime unless told otherwise: no build of either kind is asked for
    asked.clear()
    alone.clear()
    monkeypatch.setattr(accel, "choose", real_choose)  # (which answers at once for a designer's bot)
    monkeypatch.delenv(compiled_rules.ENV, raising=False)
    monkeypatch.setenv(accel.ENV, "")
    simulate.use_runtime(argparse.Namespace(bot="mine", sweep=[], runtime=None, games=compiled_rules.BUILD_FROM,
                                            game="g", **RUN), (FILES, "d" * 64))
    assert asked == [] and alone == [] and os.environ[accel.ENV] == ""


def test_runtime_for_follows_the_switch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A finished build is used unless the switch is off; none is made unless it says `build`."""
    monkeypatch.setenv("CARDC_CACHE_DIR", str(tmp_path))
    builds: list[str] = []
    monkeypatch.setattr(compiled_rules, "build", lambda files, name, digest, note, train: builds.append(name))
    for value in ("off", "cached"):
        monkeypatch.setenv(compiled_rules.ENV, value)
        assert compiled_rules.runtime_for(FILES, "_t_game", "d1") is None
    assert builds == []
    monkeypatch.setenv(compiled_rules.ENV, "build")
    compiled_rules.runtime_for(FILES, "_t_game", "d1")
    assert builds == ["_t_game"]
    where = compiled_rules.folder("d1", "_t_game")
    assert where is not None
    where.mkdir(parents=True)
    (where / "built").write_text("x\n", encoding="utf-8")
    for value in ("cached", "build"):
        monkeypatch.setenv(compiled_rules.ENV, value)
        assert compiled_rules.runtime_for(FILES, "_t_game", "d1") == where
    monkeypatch.setenv(compiled_rules.ENV, "off")
    assert compiled_rules.runtime_for(FILES, "_t_game", "d1") is None
    assert builds == ["_t_game"]


def test_compiled_runtime_prefers_the_build_with_the_rules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The benchmarks' runtime: the build with the rules when `runtime_for` gives one (the runtime alone is then
    not built), else the runtime compiled alone."""
    built: list[str] = []
    monkeypatch.setattr(accel, "build", lambda note: built.append("runtime") or tmp_path / "alone")
    monkeypatch.setattr(compiled_rules, "runtime_for", lambda *a: tmp_path / "fused")
    assert compiled_rules.compiled_runtime(FILES, "_t_game", "d1") == tmp_path / "fused" and built == []
    monkeypatch.setattr(compiled_rules, "runtime_for", lambda *a: None)
    assert compiled_rules.compiled_runtime(FILES, "_t_game", "d1") == tmp_path / "alone" and built == ["runtime"]
