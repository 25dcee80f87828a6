"""Designer templates stay inside the content and within bounds (issue 11.6).

Each case builds the small print fixture with one user template (`templates/card.j2`) and expects a template
diagnostic (E601) or, for images outside the content, the missing-image warning, never a hang or a traceback.
"""

from __future__ import annotations

import io
import os
import shutil
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from cardc import cli

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "print"
FRAME = "fill color=#ffffff\n"


def build(tmp_path: Path, template: str) -> tuple[int, str, Path]:
    content = tmp_path / "content"
    shutil.copytree(FIXTURE, content)
    (content / "dungeon" / "templates").mkdir()
    (content / "dungeon" / "templates" / "card.j2").write_text(template, encoding="utf-8")
    old = Path.cwd()
    os.chdir(tmp_path)
    err = io.StringIO()
    try:
        with redirect_stdout(io.StringIO()), redirect_stderr(err):
            code = cli.main(["build", "content", "--only", "print", "--png", "false", "--duplex", "none",
                             "--out", "gen"])
    finally:
        os.chdir(old)
    return code, err.getvalue(), content


@pytest.mark.parametrize(("template", "message"), [
    (FRAME + "text t x=1 y=1 w=10 h=10 size=0 text=\"a\"\n", "`size` must be more than 0"),
    (FRAME + "rect x=inf y=1 w=10 h=10\n", "`x=inf` is not a number"),
    (FRAME + "rect x=nan y=1 w=10 h=10\n", "`x=nan` is not a number"),
    (FRAME + "rect x=1e300 y=1 w=10 h=10\n", "is not a number from"),
    ("{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}" + FRAME, "loops of more"),
    ("{{ 'x' * 1000000000 }}\n" + FRAME, "repeated 1000000000 times"),
    ("{{ 9 ** 999999999 }}\n" + FRAME, "exponents go up to 64"),
    ("{% for i in range(5000) %}" + FRAME + "{% endfor %}{% for i in range(5000) %}" + FRAME + "{% endfor %}"
     + "{% for i in range(9000) %}" + FRAME + "{% endfor %}", "loops of more"),
])
def test_template_limits_are_diagnostics(tmp_path: Path, template: str, message: str) -> None:
    code, err, _ = build(tmp_path, template)
    assert code == 1, err
    assert "error[E601]" in err and message in err, err
    assert "Traceback" not in err and "internal error" not in err


def test_art_outside_the_content_is_not_embedded(tmp_path: Path) -> None:
    secret = tmp_path / "secret.png"
    shutil.copy(FIXTURE / "dungeon" / "art" / "ambush.png", secret)
    code, err, _ = build(tmp_path, FRAME + f'art a x=1 y=1 w=20 h=20 image="{secret}"\n'
                         'art b x=1 y=1 w=20 h=20 image="../../secret.png"\n')
    assert code == 0, err
    assert "W604" in err and "secret.png" in err  # reported as a missing image, never read


def test_symlinked_template_outside_the_content_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside.j2"
    outside.write_text(FRAME)
    content = tmp_path / "content"
    shutil.copytree(FIXTURE, content)
    (content / "dungeon" / "templates").mkdir()
    (content / "dungeon" / "templates" / "card.j2").symlink_to(outside)
    old = Path.cwd()
    os.chdir(tmp_path)
    err = io.StringIO()
    try:
        with redirect_stdout(io.StringIO()), redirect_stderr(err):
            code = cli.main(["build", "content", "--only", "print", "--png", "false", "--out", "gen"])
    finally:
        os.chdir(old)
    assert code == 1
    assert "leads outside the templates folder" in err.getvalue()


def test_include_of_a_symlink_outside_is_refused(tmp_path: Path) -> None:
    (tmp_path / "evil.j2").write_text("fill color=#000000\n")
    code, err, content = build(tmp_path, FRAME)
    (content / "dungeon" / "templates" / "inc.j2").symlink_to(tmp_path / "evil.j2")
    (content / "dungeon" / "templates" / "card.j2").write_text('{% include "inc.j2" %}\n')
    shutil.rmtree(tmp_path / "gen", ignore_errors=True)
    old = Path.cwd()
    os.chdir(tmp_path)
    out = io.StringIO()
    try:
        with redirect_stdout(io.StringIO()), redirect_stderr(out):
            code = cli.main(["build", "content", "--only", "print", "--png", "false", "--out", "gen2"])
    finally:
        os.chdir(old)
    assert code == 1
    assert "leads outside the templates folder" in out.getvalue()
