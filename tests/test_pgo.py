"""Profile-guided mypyc builds (pgo.py, accel.run_mypyc): the first build of a kind is compiled with counters,
trained and compiled again guided by them; the counters are kept for later builds of that kind, which are not
trained again; a training that fails leaves a build without a profile. A tiny module stands in for the runtime
(the same code path; `tests/test_simulate_compiled.py` trains on the runtime's own build)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cardc.backends.python import accel, pgo

SOURCE = """
def work(n: int) -> int:
    total = 0
    for i in range(n):
        if i % 3 == 0:
            total += i
        else:
            total -= {step}
    return total
"""


def _writer(step: int) -> Any:
    def write(work: Path) -> list[str]:
        (work / "_t_tiny.py").write_text(SOURCE.format(step=step), encoding="utf-8")
        return ["_t_tiny.py"]

    return write


def _left_out(work: Path) -> list[str]:
    return [] if list(work.glob("_t_tiny.*.so")) + list(work.glob("_t_tiny.*.pyd")) else ["_t_tiny"]


def _call(where: Path, n: int) -> int:
    """`work(n)` of the module built in `where`, in a new process; also that it is the compiled one."""
    code = f"import _t_tiny; assert not _t_tiny.__file__.endswith('.py'); print(_t_tiny.work({n}))"
    return int(subprocess.run([sys.executable, "-c", code], cwd=where, capture_output=True, text=True,
                              check=True).stdout)


@pytest.fixture()
def builds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, ...]]:
    """The cache in `tmp_path`; the flags of every compile made, in order."""
    monkeypatch.setenv("CARDC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("CARDC_CACHE", raising=False)
    if accel.missing_tools():
        pytest.skip(f"no mypyc build here: {accel.missing_tools()}")
    if pgo.kept("k", {}) is None:
        pytest.skip("the C compiler here is not gcc 12 or later: builds are not profile-guided")
    flags: list[tuple[str, ...]] = []
    real = accel._mypyc

    def spy(targets: list[str], work: Path, env: dict[str, str], given: tuple[str, ...],
            group: str) -> subprocess.CompletedProcess[str]:
        flags.append(given)
        return real(targets, work, env, given, group)

    monkeypatch.setattr(accel, "_mypyc", spy)
    return flags


def _build(tmp_path: Path, name: str, step: int, train: Any) -> Path | None:
    notes: list[str] = []
    return accel.run_mypyc(tmp_path / "cache" / "tiny" / name, _writer(step), _left_out, name, "the tiny module",
                           "none", notes.append, lambda _: None, group="_t_tiny_group", train=train)


def test_the_first_build_is_trained_and_later_ones_take_its_counters(tmp_path: Path,
                                                                    builds: list[tuple[str, ...]]) -> None:
    trained: list[Path] = []

    def train(work: Path) -> bool:
        trained.append(work)
        assert _call(work, 1000) == 166833 - 666  # (the build with counters, marked done for the loaders)
        return True

    first = _build(tmp_path, "v1", 1, train)
    assert first is not None and _call(first, 30) == 135 - 20
    counters = pgo.kept(f"{accel.key()} _t_tiny_group", {})
    assert counters is not None and pgo.counted(counters) and len(trained) == 1
    generate, use = builds
    assert any(f.startswith("-fprofile-generate=") for f in generate)
    assert f"-fprofile-use={counters}" in use and "-fprofile-partial-training" in use
    assert not (first / pgo.PROFILE).exists() and not (first / "build").exists()
    # an edited module (another version of the rules): compiled once, guided by the counters kept, not trained
    builds.clear()
    second = _build(tmp_path, "v2", 2, lambda work: pytest.fail("trained again"))
    assert second is not None and _call(second, 30) == 135 - 40
    assert len(builds) == 1 and f"-fprofile-use={counters}" in builds[0]


def test_a_failed_training_leaves_a_build_without_a_profile(tmp_path: Path, builds: list[tuple[str, ...]]) -> None:
    where = _build(tmp_path, "v1", 1, lambda work: False)
    assert where is not None and _call(where, 30) == 115
    assert len(builds) == 2 and not any(f.startswith("-fprofile-use") for f in builds[1])
    counters = pgo.kept(f"{accel.key()} _t_tiny_group", {})
    assert counters is not None and not pgo.counted(counters)
    # without a `train` nothing is compiled twice
    builds.clear()
    assert _build(tmp_path, "v2", 1, None) is not None and len(builds) == 1


def test_damaged_counters_leave_a_build_without_them(tmp_path: Path, builds: list[tuple[str, ...]]) -> None:
    assert _build(tmp_path, "v1", 1, lambda work: _call(work, 1000) > 0) is not None
    counters = pgo.kept(f"{accel.key()} _t_tiny_group", {})
    assert counters is not None and pgo.counted(counters)
    for gcda in counters.rglob("*.gcda"):
        gcda.write_bytes(b"not what gcc writes" * 20)
    builds.clear()
    where = _build(tmp_path, "v2", 2, None)
    assert where is not None and _call(where, 30) == 135 - 40
    # gcc refuses the damaged counters: the build is made again without them
    assert len(builds) == 2 and any(f.startswith("-fprofile-use") for f in builds[0])
    assert not any(f.startswith("-fprofile") for f in builds[1])


def test_only_gcc_12_or_later_guides_a_build(monkeypatch: pytest.MonkeyPatch) -> None:
    versions = {"gcc-11": ("gcc (Debian 11.4.0-1) 11.4.0\nCopyright (C) 2021 Free Software Foundation, Inc.", "11.4.0"),
                "gcc-13": ("gcc (GCC) 13.2.1\nCopyright (C) 2023 Free Software Foundation, Inc.", "13.2.1"),
                "clang": ("Debian clang version 14.0.6\nTarget: x86_64-pc-linux-gnu", "4.2.1")}

    def fake(cmd: list[str], **kw: Any) -> subprocess.CompletedProcess[str]:
        about, version = versions[cmd[0]]
        return subprocess.CompletedProcess(cmd, 0, about if cmd[1] == "--version" else version + "\n", "")

    monkeypatch.setattr(pgo.subprocess, "run", fake)
    pgo.gcc_version.cache_clear()
    try:
        assert [pgo.gcc_version(cc) for cc in ("gcc-11", "gcc-13", "clang")] == [None, "13.2.1", None]
    finally:
        pgo.gcc_version.cache_clear()
