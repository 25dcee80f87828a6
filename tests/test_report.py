"""How diagnostics are reported: summaries, -q, --select/--ignore, JSON, SARIF, colour."""

from __future__ import annotations

import io
import json
import os
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from cardc import cli
from cardc.diagnostics import Diagnostic, Severity, SourceIndex, Span
from cardc.report import Reporter, ReportOptions

CASE = Path(__file__).resolve().parent / "diagnostics" / "provisional_summarized"


def run(argv: list[str], cwd: Path = CASE, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    old = Path.cwd()
    saved = {k: os.environ.get(k) for k in (env or {})}
    os.environ.update(env or {})
    os.chdir(cwd)
    try:
        with redirect_stdout(out), redirect_stderr(err):
            try:
                code = cli.main(argv)
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
    finally:
        os.chdir(old)
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return code, out.getvalue(), err.getvalue()


def test_quiet_prints_nothing_without_errors() -> None:
    assert run(["check", "-q", "."]) == (0, "", "")


def test_quiet_prints_errors_only(tmp_path: Path) -> None:
    (tmp_path / "cardc.toml").write_text("")
    (tmp_path / "g.cardc").write_text((CASE / "game.cardc").read_text() + "\nitem x { name: { cs \"x\" en \"x\" } }\n")
    code, _, err = run(["check", "-q", "."], tmp_path)
    assert code == 1
    assert "error[E202]" in err and "warning[" not in err and "provisional" not in err
    assert err.rstrip().endswith("1 error, 0 warnings")


def test_json_lists_every_selected_diagnostic_on_stdout() -> None:
    code, out, err = run(["check", "--format", "json", "."])
    assert code == 0 and err == ""
    doc = json.loads(out)
    assert doc["version"] == 1
    codes = [d["code"] for d in doc["diagnostics"]]
    assert codes == ["W501", "W501", "W500", "W500", "W500"]  # machines get the provisional values listed
    first = doc["diagnostics"][0]
    assert first == {"file": "game.cardc", "line": 21, "col": 11, "end_line": 21, "end_col": 13,
                     "severity": "warning", "code": "W501",
                     "message": "the cs text of `ava` does not mention 2, which its effects use",
                     "hint": "update the hand-written text, or remove `text` to use the text generated from the "
                             "effects"}
    assert doc["summary"] == {"errors": 0, "warnings": 5, "shown": 5, "summarized": 0, "hidden": 0,
                              "by_code": {"W500": 3, "W501": 2}}


def test_json_respects_ignore_and_strict() -> None:
    code, out, _ = run(["check", "--format", "json", "--ignore", "W501", "--strict", "."])
    doc = json.loads(out)
    assert code == 1
    assert [(d["code"], d["severity"]) for d in doc["diagnostics"]] == [("W500", "error")] * 3
    assert doc["summary"]["hidden"] == 2


def test_sarif_has_rules_and_regions() -> None:
    code, out, _ = run(["check", "--format", "sarif", "--select", "W501", "."])
    doc = json.loads(out)
    assert code == 0 and doc["version"] == "2.1.0"
    run_ = doc["runs"][0]
    assert run_["tool"]["driver"]["name"] == "cardc"
    rule_ids = [r["id"] for r in run_["tool"]["driver"]["rules"]]
    assert "W501" in rule_ids
    result = run_["results"][0]
    assert result["ruleId"] == "W501" and rule_ids[result["ruleIndex"]] == "W501"
    assert result["locations"][0]["physicalLocation"]["region"] == {"startLine": 21, "startColumn": 11,
                                                                    "endLine": 21, "endColumn": 13}


def test_select_takes_prefixes_and_a_bad_code_is_a_usage_error() -> None:
    code, _, err = run(["check", "--select", "W5", "--show-provisional", "."])
    assert code == 0 and err.count("warning[W50") == 5
    code, _, err = run(["check", "--select", "W6", "."])
    assert "warning[" not in err and "5 hidden by --select/--ignore" in err
    code, _, err = run(["check", "--ignore", "Q1", "."])
    assert code == 2 and "`Q1` is no diagnostic code or prefix" in err


def test_a_bad_code_in_cardc_toml_is_reported(tmp_path: Path) -> None:
    (tmp_path / "cardc.toml").write_text('[check]\nselect = ["W999"]\n')
    (tmp_path / "g.cardc").write_text((CASE / "game.cardc").read_text())
    code, _, err = run(["check", "."], tmp_path)
    assert code == 2 and "cardc.toml [check] select: `W999`" in err


def test_colour_only_when_asked_or_on_a_terminal() -> None:
    code, _, err = run(["check", "--color", "always", "."])
    assert "\x1b[" in err  # ANSI colour
    assert "\x1b]8;" in err and "game.cardc" in err  # the location is a terminal hyperlink (OSC 8)
    plain = run(["check", "."])[2]
    assert "\x1b" not in plain  # not a terminal: plain text
    assert "\x1b" not in run(["check", "--color", "auto", "."], env={"NO_COLOR": "1"})[2]


class FakeTty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_auto_colour_follows_no_color() -> None:
    d = Diagnostic(Severity.ERROR, "E100", "bad", Span("a.cardc", 1, 1))
    tty = FakeTty()
    old = os.environ.pop("NO_COLOR", None)
    try:
        Reporter(ReportOptions(), stream=tty).report([d], {"a.cardc": "x\n"})
        assert "\x1b[" in tty.getvalue()
        os.environ["NO_COLOR"] = "1"
        tty = FakeTty()
        Reporter(ReportOptions(), stream=tty).report([d], {"a.cardc": "x\n"})
        assert "\x1b" not in tty.getvalue() and "a.cardc:1:1: error[E100]: bad" in tty.getvalue()
    finally:
        os.environ.pop("NO_COLOR", None)
        if old is not None:
            os.environ["NO_COLOR"] = old


def test_the_source_index_splits_each_file_once() -> None:
    text = "\n".join(f"line {n}" for n in range(1, 1001))
    index = SourceIndex({"big.cardc": text})
    diags = [Diagnostic(Severity.WARNING, "W500", "m", Span("big.cardc", n, 1, n, 5)) for n in range(1, 1001, 7)]
    rendered = [d.render(index=index) for d in diags]
    assert list(index._lines) == ["big.cardc"]
    assert rendered == [d.render({"big.cardc": text}) for d in diags]  # same text as without the index
    assert rendered[1].split("\n")[1] == " 8 | line 8"


@pytest.mark.parametrize("argv", [["build", "--help"], ["check", "--help"]])
def test_report_flags_are_documented(argv: list[str]) -> None:
    code, out, _ = run(argv)
    assert code == 0 and "--show-provisional" in out and "--format" in out
