"""The catalogue is checked like content: its own schema, diagnostics at its lines (never a traceback), and
every verb either runs in the generated rules or is marked descriptive, which generates no call and is listed
as not simulated in the rules reference."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from cardc import catalogue as cat
from cardc.backends import BuildOptions
from cardc.backends.python.generate import game_package
from cardc.backends.python.vocabulary import check_runtime, runtime_diagnostics
from cardc.backends.reference import write_reference
from cardc.catalogue import CatalogueError, default_catalogue, load_catalogue
from cardc.cli import main
from textutil import compile_source

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "dsl" / "catalogue.yaml"


def _line_of(text: str, needle: str) -> int:
    return text[:text.index(needle)].count("\n") + 1


def _broken(tmp_path: Path, old: str, new: str) -> Path:
    """A copy of the shipped catalogue with `old` replaced by `new`."""
    text = SHIPPED.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path = tmp_path / "catalogue.yaml"
    path.write_text(text.replace(old, new), encoding="utf-8")
    return path


def _errors(path: Path) -> list[str]:
    """The rendered diagnostics of loading `path`, each with the catalogue's line under it."""
    from cardc.diagnostics import SourceIndex

    with pytest.raises(CatalogueError) as info:
        load_catalogue(path)
    index = SourceIndex(info.value.sources)
    return [d.render(index=index) for d in info.value.diagnostics]


@pytest.fixture
def use_catalogue(monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    """Make `default_catalogue()` read another file (for the command line and the backends)."""
    def use(path: Path) -> None:
        monkeypatch.setattr(cat, "CATALOGUE_PATH", path)
        default_catalogue.cache_clear()

    yield use
    default_catalogue.cache_clear()


def test_the_shipped_catalogue_passes_its_schema_and_every_verb_runs() -> None:
    catalogue = load_catalogue(SHIPPED)
    assert len(catalogue.verbs) > 200
    assert runtime_diagnostics(catalogue) == []
    assert all(v.span.line > 1 for v in catalogue.verbs.values())


def test_the_shipped_catalogue_has_no_descriptive_condition_and_no_fallback_helper() -> None:
    from cardc.backends.python.runtime.cardc_runtime import verbs

    catalogue = default_catalogue()
    assert not any(v.descriptive for v in catalogue.of_role("condition"))
    assert not [n for n in vars(verbs) if n.startswith("fallback")]


@pytest.mark.parametrize(("old", "new", "expect"), [
    ("      - {name: steps, type: int}\n    text:\n      en: \"move up to",
     "      - {name: steps, type: itn}\n    text:\n      en: \"move up to", "unknown type `itn`"),
    ("  move:\n    doc: Move up to a number of steps.",
     "  move:\n    doc: Move up to a number of steps.\n    colour: red", "'colour' was unexpected"),
    ("  move:\n    doc: Move up to a number of steps.", "  move:\n    docs: Move up to a number of steps.",
     "'doc' is a required property"),
    ("  move:\n    doc: Move up to a number of steps.", "  move:\n    doc: [Move up: to steps.",
     "not valid YAML"),
])
def test_a_broken_catalogue_gives_a_diagnostic_at_its_line(tmp_path: Path, old: str, new: str,
                                                             expect: str) -> None:
    path = _broken(tmp_path, old, new)
    rendered = _errors(path)
    assert rendered and all("error[E150]" in r for r in rendered), rendered
    assert any(expect in r for r in rendered), rendered
    line = _line_of(path.read_text(encoding="utf-8"), "  move:")
    for r in rendered:
        m = re.match(r"(\S*catalogue\.yaml):(\d+):(\d+): ", r)
        assert m is not None, r
        assert line <= int(m.group(2)) <= line + 6, (line, r)


def test_a_verb_declared_twice_is_reported_at_the_second(tmp_path: Path) -> None:
    path = _broken(tmp_path, "  move:\n    doc: Move up to", "  heal_full:\n    doc: Move up to")
    assert any("`heal_full` is given twice in one mapping" in r for r in _errors(path))
    path = _broken(tmp_path, "  move:\n    doc: Move up to", "  cursed:\n    doc: Move up to")
    rendered = _errors(path)
    assert any("verb `cursed` is declared twice (also a condition" in r for r in rendered), rendered


def test_a_condition_cannot_be_descriptive(tmp_path: Path) -> None:
    path = _broken(tmp_path, "  final_battle:\n    doc: The final battle is under way.",
                      "  final_battle:\n    doc: The final battle is under way.\n    descriptive: no rule for it here")
    rendered = _errors(path)
    assert any("'descriptive' was unexpected" in r and "its value decides" in r for r in rendered), rendered


def test_a_broken_catalogue_fails_check_with_its_line_not_a_traceback(
        tmp_path: Path, use_catalogue: object, capsys: pytest.CaptureFixture[str]) -> None:
    path = _broken(tmp_path, "      - {name: steps, type: int}\n    text:\n      en: \"move up to",
                      "      - {name: steps, type: itn}\n    text:\n      en: \"move up to")
    use_catalogue(path)  # type: ignore[operator]
    assert main(["check", str(ROOT / "content")]) == 1
    err = capsys.readouterr().err
    line = _line_of(path.read_text(encoding="utf-8"), "type: itn")
    assert f"catalogue.yaml:{line}:" in err and "error[E150]" in err and "Traceback" not in err, err
    assert "type: itn" in err  # the line itself is shown, with a caret


def _without_function(tmp_path: Path) -> Path:
    data = yaml.safe_load(SHIPPED.read_text(encoding="utf-8"))
    data["actions"]["ring_the_bell"] = {"doc": "The player rings the bell.", "text": {"en": "ring the bell"}}
    path = tmp_path / "catalogue.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path


def test_a_verb_without_runtime_function_fails_check_and_build(
        tmp_path: Path, use_catalogue: object, capsys: pytest.CaptureFixture[str]) -> None:
    path = _without_function(tmp_path)
    catalogue = load_catalogue(path)
    with pytest.raises(CatalogueError) as info:
        check_runtime(catalogue)
    [diag] = info.value.diagnostics
    assert diag.code == "E151" and "ring_the_bell" in diag.message
    assert diag.span.line == _line_of(path.read_text(encoding="utf-8"), "  ring_the_bell:")
    use_catalogue(path)  # type: ignore[operator]
    assert main(["check", str(ROOT / "content")]) == 1
    err = capsys.readouterr().err
    assert "error[E151]" in err and "ring_the_bell" in err and "Traceback" not in err
    assert main(["build", str(ROOT / "content"), "--out", str(tmp_path / "out")]) == 1
    assert not (tmp_path / "out").exists()


def test_a_descriptive_verb_with_a_runtime_function_is_an_error(tmp_path: Path) -> None:
    path = _broken(tmp_path, "  move:\n    doc: Move up to a number of steps.",
                      "  move:\n    doc: Move up to a number of steps.\n    descriptive: not modelled on this board")
    with pytest.raises(CatalogueError) as info:
        check_runtime(load_catalogue(path))
    assert "marked descriptive, but the runtime has a function" in info.value.diagnostics[0].message


GAME = """module g
game g { name: { en "Game" cs "Hra" } languages: [en, cs] fallback: en }
kind rule { }
rule bell { name: { en "Bell" cs "Zvonek" } on turn_start { ring_the_bell lose_life(1) } }
"""


def test_a_descriptive_verb_generates_no_call_and_is_listed_as_not_simulated(
        tmp_path: Path, use_catalogue: object) -> None:
    data = yaml.safe_load(SHIPPED.read_text(encoding="utf-8"))
    data["actions"]["ring_the_bell"] = {
        "doc": "The player rings the bell.", "descriptive": "the bell is not part of the simulated table",
        "text": {"en": "ring the bell", "cs": "zazvoň na zvonek"}}
    path = tmp_path / "catalogue.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    use_catalogue(path)  # type: ignore[operator]
    result = compile_source(tmp_path, GAME)
    assert result.ok, [d.render() for d in result.diagnostics]
    source = game_package(result.project, default_catalogue(), "g")["g/base.py"]
    assert "pass  # not simulated (descriptive in the catalogue): ring_the_bell" in source
    assert "v.ring_the_bell" not in source and "v.lose_life(ctx, 1)" in source
    compile(source, "base.py", "exec")
    write_reference(result.project, tmp_path / "out", BuildOptions())
    for lang, title in (("en", "Not simulated"), ("cs", "Nesimulováno")):
        page = (tmp_path / "out" / "reference" / "g" / lang / "provisional.md").read_text(encoding="utf-8")
        assert title in page and "the bell is not part of the simulated table" in page, page
    cs = (tmp_path / "out" / "reference" / "g" / "cs" / "provisional.md").read_text(encoding="utf-8")
    assert "zazvoň na zvonek" in cs


def test_the_reference_has_a_not_simulated_section_in_every_language(tmp_path: Path) -> None:
    strings = yaml.safe_load((ROOT / "compiler" / "backends" / "reference" / "strings.yaml").read_text("utf-8"))
    for lang in ("en", "cs", "sk", "de", "pl", "fr"):
        for key in ("not_simulated", "not_simulated_intro", "not_simulated_rule", "not_simulated_reason"):
            assert strings[lang].get(key), (lang, key)


def _descriptive_uses(project: object) -> dict[str, set[tuple[str, str]]]:
    """{verb: {(game, entity id)}} for every use of a descriptive verb in the project's effects."""
    from cardc.textcheck import effect_invocations

    verbs = default_catalogue().verbs
    uses: dict[str, set[tuple[str, str]]] = {}
    for e in project.entities:  # type: ignore[attr-defined]
        for fx in e.effects:
            for inv in effect_invocations(fx):
                if inv.verb in verbs and verbs[inv.verb].descriptive:
                    uses.setdefault(inv.verb, set()).add((e.game, e.id))
    return uses


def test_karak_uses_no_descriptive_verb_and_coverage_names_every_prophecy_one() -> None:
    from test_coverage import parse_coverage
    from test_rules_support import bundled_project

    uses = _descriptive_uses(bundled_project())
    assert not [(v, e) for v, es in uses.items() for g, e in es if g == "karak"]
    table = parse_coverage((ROOT / "content" / "COVERAGE.md").read_text(encoding="utf-8"))
    listed = {row.replace("`", "").strip(): set(ids) for row, ids in
              table["Not simulated: descriptive verbs"].items() if row != "(none)"}
    assert listed == {v: {e for _, e in es} for v, es in uses.items()}
