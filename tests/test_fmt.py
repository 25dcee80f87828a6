"""`cardc fmt`: one canonical layout, comments kept, idempotent, and never a change to the IR."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest
from cardc import cli
from cardc.fmt import FormatError, comments_of, format_text
from cardc.frontend import compile_paths
from cardc.irjson import iter_project_json
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parent.parent
CONTENT = ROOT / "content"
SOURCES = sorted(CONTENT.rglob("*.cardc"))


def run(argv: list[str], cwd: Path) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    old = Path.cwd()
    os.chdir(cwd)
    try:
        with redirect_stdout(out), redirect_stderr(err):
            code = cli.main(argv)
    finally:
        os.chdir(old)
    return code, out.getvalue(), err.getvalue()


def _without_spans(value: Any) -> Any:
    """The IR minus source positions, which move when lines do."""
    if isinstance(value, dict):
        return {k: _without_spans(v) for k, v in value.items() if k != "span"}
    if isinstance(value, list):
        return [_without_spans(v) for v in value]
    return value


def ir_of(paths: list[Path]) -> Any:
    result = compile_paths(paths)
    return _without_spans(json.loads("".join(iter_project_json(result.project, None)))), \
        [(d.code, d.message) for d in result.diagnostics]


SAMPLE = """// a game
module g   import "x.cardc"
kind   item{attr slot {type:enum( a,b ) required :true}
  // about copies
  copies : 3 # trailing hash comment
}


hero  ava   extends   base.hero {
  name:{cs "Ava"
  en "Ava"}
  on fight_total if a( 1 ) and not (b or c) { may reroll( all ) choose { x { f() } y { } } }
  on turn_start {
    if lives( 1 ) { heal(+1, to: 2d6) } else { end_turn() }   /* block */
  }
  list: [ 1 , 2,
     3 ]
}
"""

EXPECTED = """// a game
module g
import "x.cardc"
kind item {
  attr slot { type: enum(a, b)  required: true }
  // about copies
  copies: 3  # trailing hash comment
}

hero ava extends base.hero {
  name: {
    cs "Ava"
    en "Ava"
  }
  on fight_total if a(1) and not (b or c) { may reroll(all) choose { x { f() } y {} } }
  on turn_start {
    if lives(1) { heal(+1, to: 2d6) } else { end_turn() }  /* block */
  }
  list: [1, 2,
      3]
}
"""


def test_canonical_layout_of_a_sample() -> None:
    assert format_text(SAMPLE) == EXPECTED
    assert format_text(EXPECTED) == EXPECTED


def test_expanded_blocks_keep_else_on_the_closing_line() -> None:
    src = "x y {\n  on t {\n    if c {\n      f()\n    }\n    else { g() }\n  }\n}\n"
    assert format_text(src) == "x y {\n  on t {\n    if c {\n      f()\n    } else { g() }\n  }\n}\n"


def test_a_syntax_error_is_refused() -> None:
    with pytest.raises(FormatError):
        format_text("hero x { name: }")


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.relative_to(CONTENT).as_posix())
def test_bundled_content_is_formatted(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert format_text(text) == text, f"run `cardc fmt {path.relative_to(ROOT)}`"


def test_formatting_all_content_keeps_the_ir_and_comments(tmp_path: Path) -> None:
    """Messing up every file's layout, then formatting it back, gives the same IR and the same comments."""
    shutil.copytree(CONTENT, tmp_path / "content")
    before, before_diags = ir_of([CONTENT])
    for p in sorted((tmp_path / "content").rglob("*.cardc")):
        text = p.read_text(encoding="utf-8")
        messy = re.sub(r"\n([ \t]*)", lambda m: "\n" + " " * (len(m.group(1)) * 3 % 7), text)  # shuffled indents
        p.write_text(messy, encoding="utf-8")
    code, _, err = run(["fmt", "content"], tmp_path)
    assert code == 0, err
    for src in SOURCES:
        out = (tmp_path / "content" / src.relative_to(CONTENT)).read_text(encoding="utf-8")
        assert comments_of(out) == comments_of(src.read_text(encoding="utf-8"))
        assert out == src.read_text(encoding="utf-8"), "canonical whatever the indentation"
    old = Path.cwd()
    os.chdir(tmp_path)
    try:
        after, after_diags = ir_of([Path("content")])
    finally:
        os.chdir(old)
    assert after == before
    assert after_diags == before_diags


def test_check_and_write_modes(tmp_path: Path) -> None:
    (tmp_path / "cardc.toml").write_text("")
    f = tmp_path / "a.cardc"
    f.write_text("module  g\n")
    code, _, err = run(["fmt", "--check", "."], tmp_path)
    assert code == 1 and "would reformat a.cardc" in err
    assert f.read_text() == "module  g\n", "--check writes nothing"
    code, out, _ = run(["fmt", "--diff", "."], tmp_path)
    assert code == 1 and "-module  g" in out and "+module g" in out
    code, _, err = run(["fmt", "."], tmp_path)
    assert code == 0 and "formatted a.cardc" in err and f.read_text() == "module g\n"
    code, _, err = run(["fmt", "--check", "."], tmp_path)
    assert code == 0 and err == ""


def test_a_file_with_a_syntax_error_is_reported_and_left_alone(tmp_path: Path) -> None:
    (tmp_path / "cardc.toml").write_text("")
    f = tmp_path / "a.cardc"
    f.write_text("module g\nhero x { name: }\n")
    code, _, err = run(["fmt", "."], tmp_path)
    assert code == 1 and "a.cardc:2:16: error[E100]" in err
    assert f.read_text() == "module g\nhero x { name: }\n"


# ---- generated programs: the bundled sources with their layout and tokens mutated
LAYOUT = ["\n", "\n\n", " ", "   ", "\t", " // note\n", "\n# note\n", " /* c */ "]
TOKEN_RE = re.compile(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*|#[^\n]*|/\*.*?\*/|[+-]?\d[\w.]*|[A-Za-z_]\w*|\s+|.', re.DOTALL)
edit = st.tuples(st.sampled_from(["layout", "drop_space", "drop", "dup"]), st.integers(0, 10**9),
                 st.sampled_from(LAYOUT))


def mutate(text: str, edits: list[tuple[str, int, str]]) -> str:
    for op, at, piece in edits:
        toks = TOKEN_RE.findall(text)
        i = at % len(toks)
        if op == "layout" and not toks[i].startswith(("//", "#")):
            toks.insert(i, piece)
        elif op == "drop_space" and toks[i].isspace() and "\n" not in toks[i]:
            toks[i] = "" if i and toks[i - 1] in "{}()[],:" else toks[i]
        elif op == "drop":
            del toks[i]
        elif op == "dup":
            toks.insert(i, toks[i])
        text = "".join(toks)
    return text


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("gen")
    shutil.copytree(CONTENT, base / "content")
    return base


@settings(max_examples=60, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(pick=st.integers(0, 10**6), edits=st.lists(edit, min_size=1, max_size=6))
def test_generated_programs_format_idempotently_to_the_same_ir(workdir: Path, pick: int,
                                                                edits: list[tuple[str, int, str]]) -> None:
    src = SOURCES[pick % len(SOURCES)]
    original = src.read_text(encoding="utf-8")
    text = mutate(original, edits)
    try:
        once = format_text(text)
    except FormatError:
        return  # a syntax error: `cardc fmt` reports it and leaves the file (test above)
    assert format_text(once) == once
    assert comments_of(once) == comments_of(text)
    rel = Path("content") / src.relative_to(CONTENT)
    old = Path.cwd()
    os.chdir(workdir)
    try:
        (workdir / rel).write_text(text, encoding="utf-8")
        before = ir_of([rel])
        (workdir / rel).write_text(once, encoding="utf-8")
        after = ir_of([rel])
    finally:
        os.chdir(old)
        (workdir / rel).write_text(original, encoding="utf-8")
    assert after[0] == before[0]
    assert [c for c, _ in after[1]] == [c for c, _ in before[1]]
