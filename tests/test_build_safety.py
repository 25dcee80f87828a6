"""`cardc build` never deletes what it did not write (issue 11.1).

Every case of the issue: a designer's folder with notes and photos, `--out .` from a project root, `--out` the
content folder or a file, the home folder, `--only X` into a full build, two builds at once, and the leftovers of
builds killed with SIGKILL. Refused cases must exit 2 and leave every byte as it was.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from cardc import cli
from cardc.build import MARKER
from cardc.buildcache import CACHE_DIR, TAG

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "export"
FAST = ["--png", "false", "--tts-images", "false"]


def snapshot(folder: Path) -> dict[str, str]:
    """Every path below `folder` -> its content hash ("dir" for folders, "link:" + target for symlinks).
    The build's own cache is left out: it is not an output (tests/test_build_cache.py checks it)."""
    out: dict[str, str] = {}
    for p in sorted(folder.rglob("*")):
        rel = p.relative_to(folder).as_posix()
        if rel.split("/")[0] == CACHE_DIR and (folder / CACHE_DIR / TAG).is_file():
            continue
        if p.is_symlink():
            out[rel] = "link:" + os.readlink(p)
        elif p.is_dir():
            out[rel] = "dir"
        else:
            out[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    """A project root: a small content folder, a README and a .git folder that must survive everything."""
    root = tmp_path / "project"
    shutil.copytree(FIXTURE, root / "content")
    (root / "README.md").write_text("my game\n")
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    return root


def run(argv: list[str], cwd: Path) -> tuple[int, str]:
    """`cardc ARGV` in-process from `cwd`: exit code and stderr."""
    old = Path.cwd()
    os.chdir(cwd)
    err = io.StringIO()
    try:
        with redirect_stdout(io.StringIO()), redirect_stderr(err):
            code = cli.main(argv)
    finally:
        os.chdir(old)
    return code, err.getvalue()


def run_process(argv: list[str], cwd: Path, **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cardc", *argv], cwd=cwd, capture_output=True, text=True,
                          timeout=300, **kw)  # type: ignore[call-overload]


def build_ir(out: str, cwd: Path, *extra: str) -> tuple[int, str]:
    return run(["build", "content", "--only", "ir", "--out", out, *extra], cwd)


# ---- refused: exit 2, nothing touched --------------------------------------------------------------------------


def test_designer_folder_with_notes_and_photos_is_refused(project: Path) -> None:
    mine = project / "mine"
    (mine / "photos").mkdir(parents=True)
    (mine / "notes.txt").write_text("ideas for the expansion\n")
    (mine / "photos" / "table.jpg").write_bytes(b"\xff\xd8 not really a jpeg")
    before = snapshot(project)
    code, err = build_ir("mine", project)
    assert code == 2
    assert "not empty and was not written by `cardc build`" in err
    assert snapshot(project) == before


def test_out_dot_from_project_root_is_refused(project: Path) -> None:
    before = snapshot(project)
    code, err = build_ir(".", project)
    assert code == 2
    assert "the current folder" in err
    assert snapshot(project) == before


def test_out_above_the_current_folder_is_refused(project: Path) -> None:
    before = snapshot(project)
    code, err = run(["build", "../content", "--only", "ir", "--out", ".."], project / "content")
    assert code == 2
    assert "above the current folder" in err
    assert snapshot(project) == before


@pytest.mark.parametrize("out", ["content", "content/tavern", "content/gen"])
def test_content_folder_inside_or_itself_is_refused(project: Path, out: str) -> None:
    before = snapshot(project)
    code, err = build_ir(out, project)
    assert code == 2
    assert "content folder" in err
    assert snapshot(project) == before


def test_a_missing_content_path_is_reported_not_taken_for_a_content_folder(project: Path) -> None:
    """A typo in the content path: the error names the missing path; nothing is written or refused as content."""
    before = snapshot(project)
    code, err = run(["build", "contnet", "--only", "ir", "--out", "gen"], project)
    assert code == 1
    assert "no such file or folder: contnet" in err
    assert "content folder" not in err
    assert snapshot(project) == before


def test_ancestor_of_the_content_folder_is_refused(project: Path) -> None:
    before = snapshot(project.parent)
    code, err = run(["build", "project/content", "--only", "ir", "--out", "project"], project.parent)
    assert code == 2
    assert "content folder" in err
    assert snapshot(project.parent) == before


def test_home_folder_is_refused(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = project.parent / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    code, err = build_ir(str(home), project)
    assert code == 2
    assert "home folder" in err
    assert list(home.iterdir()) == []


def test_out_that_is_a_file_is_refused(project: Path) -> None:
    (project / "out.txt").write_text("a file\n")
    before = snapshot(project)
    code, err = build_ir("out.txt", project)
    assert code == 2
    assert "is a file" in err
    assert snapshot(project) == before


def test_out_that_is_a_symlink_builds_into_its_target_when_that_may_be_written(project: Path) -> None:
    (project / "elsewhere").mkdir()
    (project / "link").symlink_to("elsewhere")
    assert build_ir("link", project)[0] == 0
    assert (project / "link").is_symlink() and (project / "elsewhere" / "ir" / "tavern.json").is_file()
    (project / "theirs").mkdir()
    (project / "theirs" / "notes.txt").write_text("x\n")
    (project / "link2").symlink_to("theirs")
    before = snapshot(project)
    assert build_ir("link2", project)[0] == 2
    assert snapshot(project) == before


def test_unreadable_marker_is_refused(project: Path) -> None:
    (project / "gen").mkdir()
    (project / "gen" / MARKER).write_text("{not json")
    (project / "gen" / "notes.txt").write_text("mine\n")
    before = snapshot(project)
    code, err = build_ir("gen", project)
    assert code == 2 and "cannot be read" in err
    assert snapshot(project) == before


def test_refused_before_any_work(project: Path) -> None:
    """The refusal comes before the content is compiled: broken content still gives exit 2, not 1."""
    (project / "content" / "broken.cardc").write_text("this is not cardc\n")
    (project / "mine").mkdir()
    (project / "mine" / "notes.txt").write_text("x\n")
    assert build_ir("mine", project)[0] == 2


# ---- owned folders ------------------------------------------------------------------------------------------------


def test_new_and_empty_folders_are_taken_and_marked(project: Path) -> None:
    (project / "empty").mkdir()
    for out in ("empty", "new/deeper"):
        assert build_ir(out, project)[0] == 0
        marker = json.loads((project / out / MARKER).read_text())
        assert marker["files"] == {"ir": ["ir/tavern.json"]}


def test_files_the_build_did_not_write_are_kept(project: Path) -> None:
    assert build_ir("gen", project)[0] == 0
    gen = project / "gen"
    (gen / "notes.txt").write_text("notes\n")
    (gen / "photos").mkdir()
    (gen / "photos" / "a.jpg").write_bytes(b"jpeg")
    (gen / "empty").mkdir()
    (gen / "ir" / "mine.json").write_text("{}\n")
    (gen / "ir" / "tavern.json").write_text("edited")  # the build's own: rewritten
    assert build_ir("gen", project)[0] == 0
    assert (gen / "notes.txt").read_text() == "notes\n"
    assert (gen / "photos" / "a.jpg").read_bytes() == b"jpeg"
    assert (gen / "empty").is_dir()
    assert (gen / "ir" / "mine.json").read_text() == "{}\n"
    assert (gen / "ir" / "tavern.json").read_text().startswith("{")


def test_a_file_of_the_user_the_build_would_overwrite_is_refused(project: Path) -> None:
    assert build_ir("gen", project)[0] == 0
    marker = project / "gen" / MARKER
    data = json.loads(marker.read_text())
    data["files"]["ir"] = []  # as if the user had put ir/tavern.json there by hand
    marker.write_text(json.dumps(data))
    (project / "gen" / "ir" / "tavern.json").write_text("the user's\n")
    before = snapshot(project)
    code, err = build_ir("gen", project)
    assert code == 2 and "ir/tavern.json" in err
    assert snapshot(project) == before


def test_marker_paths_outside_the_folder_are_never_touched(project: Path) -> None:
    assert build_ir("gen", project)[0] == 0
    marker = project / "gen" / MARKER
    data = json.loads(marker.read_text())
    data["files"]["print"] = ["../README.md", "/etc/hostname", "a/../../README.md"]
    marker.write_text(json.dumps(data))
    assert build_ir("gen", project)[0] == 0
    assert (project / "README.md").read_text() == "my game\n"


def test_only_reference_keeps_print_and_export(project: Path) -> None:
    assert run(["build", "content", "--out", "gen", *FAST], project)[0] == 0
    gen = project / "gen"
    full = snapshot(gen)
    assert any(k.startswith("print/") and k.endswith(".pdf") for k in full)
    assert any(k.startswith("export/") for k in full)
    (gen / "reference" / "index.html").write_text("stale")
    assert run(["build", "content", "--out", "gen", "--only", "reference"], project)[0] == 0
    again = snapshot(gen)
    assert again == full  # print/, export/, ir/ ... kept as they were; reference/ rebuilt to the same bytes
    marker = json.loads((gen / MARKER).read_text())
    assert set(marker["files"]) == {"ir", "print", "python", "balance", "reference", "export"}


def test_only_drops_the_stale_files_of_the_backend_it_rebuilds(project: Path) -> None:
    assert build_ir("gen", project)[0] == 0
    marker = project / "gen" / MARKER
    data = json.loads(marker.read_text())
    data["files"]["ir"].append("ir/old-game.json")
    marker.write_text(json.dumps(data))
    (project / "gen" / "ir" / "old-game.json").write_text("{}")
    assert build_ir("gen", project)[0] == 0
    assert not (project / "gen" / "ir" / "old-game.json").exists()


# ---- the same bytes from any folder ---------------------------------------------------------------------------


def test_outputs_do_not_depend_on_the_folder_the_build_ran_from(project: Path) -> None:
    """The same output folder (TTS decks name it in file:/// URLs), built from three different folders.
    A procedure is added: the rule modules name where it was written."""
    (project / "content" / "tavern" / "play.cardc").write_text(
        'module tavern\nimport "game.cardc"\n\nprocedure turn {\n  fire turn_start\n}\n', encoding="utf-8")
    out = project.parent / "out"
    outs = []
    for cwd, content in ((project, "content"), (project / "content" / "tavern", ".."), (Path("/"), None)):
        arg = content if content is not None else str(project / "content")
        assert run(["build", arg, "--out", str(out), *FAST], cwd)[0] == 0
        outs.append(snapshot(out))
    assert outs[0] == outs[1] == outs[2]
    text = "".join((out / rel).read_text(errors="replace") for rel, h in outs[0].items()
                   if h != "dir" and not rel.endswith((".pdf", ".png")) and not rel.startswith("export/tts/"))
    assert str(project) not in text and "content/tavern" not in text


# ---- modes, leftovers, two builds at once ---------------------------------------------------------------------


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o755), (0o002, 0o775), (0o077, 0o700)])
def test_output_folder_modes_follow_the_umask(project: Path, umask: int, mode: int) -> None:
    old = os.umask(umask)
    try:
        assert build_ir("gen", project)[0] == 0
    finally:
        os.umask(old)
    assert (project / "gen").stat().st_mode & 0o777 == mode
    assert (project / "gen" / "ir").stat().st_mode & 0o777 == mode
    assert (project / "gen" / "ir" / "tavern.json").stat().st_mode & 0o777 == mode & 0o666


SLOW_BUILD = """
import sys, time
from pathlib import Path
from cardc import backends, cli

def stall(project, out, options):
    (out / "partial").mkdir()
    (out / "partial" / "big.bin").write_bytes(b"x" * 1_000_000)
    Path(sys.argv[1]).write_text("stalled")
    time.sleep(600)
    return []

backends.BACKENDS = [*backends.BACKENDS[:1], ("stall", stall)]
sys.exit(cli.main(["build", "content", "--out", "gen"]))
"""


def _start_stalled_build(project: Path) -> subprocess.Popen[bytes]:
    flag = project.parent / "stalled.flag"
    flag.unlink(missing_ok=True)
    proc = subprocess.Popen([sys.executable, "-c", SLOW_BUILD, str(flag)], cwd=project,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while not flag.exists():
        assert proc.poll() is None, "the stalled build exited early"
        assert time.monotonic() < deadline
        time.sleep(0.05)
    return proc


def test_killed_builds_leave_temp_folders_the_next_build_removes(project: Path) -> None:
    assert build_ir("gen", project)[0] == 0
    before = snapshot(project / "gen")
    seen: list[list[str]] = []
    for _ in range(3):
        proc = _start_stalled_build(project)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        seen.append(sorted(p.name for p in project.iterdir() if p.name.startswith(".gen.build-")))
        assert snapshot(project / "gen") == before  # the output is untouched
    # SIGKILL cannot be caught, so each killed build leaves its temporary folder, but only until the next one
    assert [len(names) for names in seen] == [1, 1, 1]
    assert len({names[0] for names in seen}) == 3
    (project / ".gen.build-mine").mkdir()
    (project / ".gen.build-mine" / "notes.txt").write_text("not the build's: no marker\n")
    assert build_ir("gen", project)[0] == 0
    left = sorted(p.name for p in project.iterdir() if p.name.startswith(".gen."))
    assert left == [".gen.build-mine"]  # the next build removed its own leftovers, and only those


def test_output_set_aside_by_a_killed_swap_is_put_back(project: Path) -> None:
    """Where two renames stand in for an atomic exchange, a kill between them leaves the output aside."""
    assert build_ir("gen", project)[0] == 0
    before = snapshot(project / "gen")
    (project / "gen").rename(project / ".gen.old-12345")
    (project / ".gen.old-12345" / "notes.txt").write_text("kept\n")
    assert build_ir("gen", project)[0] == 0
    assert not (project / ".gen.old-12345").exists()
    assert snapshot(project / "gen") == {**before, "notes.txt": snapshot(project / "gen")["notes.txt"]}


def test_a_second_build_waits_for_the_first(project: Path) -> None:
    """While a build runs, another into the same place waits on the lock, then both succeed in turn."""
    proc = _start_stalled_build(project)
    try:
        second = subprocess.Popen([sys.executable, "-m", "cardc", "build", "content", "--only", "ir", "--out", "gen"],
                                  cwd=project, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        assert second.stderr is not None
        seen = []
        for line in second.stderr:  # up to the line saying it waits (EOF would mean it never waited)
            seen.append(line)
            if "waiting for another build" in line:
                break
        assert "waiting for another build" in seen[-1], seen
        assert second.poll() is None and not (project / "gen").exists()
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    _, err = second.communicate(timeout=300)
    assert second.returncode == 0, err
    assert json.loads((project / "gen" / MARKER).read_text())["files"] == {"ir": ["ir/tavern.json"]}
    assert not [p.name for p in project.iterdir() if p.name.startswith(".gen.")]


def test_interleaved_builds_both_succeed(project: Path) -> None:
    procs = [subprocess.Popen([sys.executable, "-m", "cardc", "build", "content", "--out", "gen", *FAST],
                              cwd=project, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
             for _ in range(3)]
    for p in procs:
        _, err = p.communicate(timeout=600)
        assert p.returncode == 0, err
    assert (project / "gen" / "ir" / "tavern.json").is_file()
    assert not [p.name for p in project.iterdir() if p.name.startswith(".gen.")]
