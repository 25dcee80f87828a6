"""JSON Schemas: the dump validates, the generated files are current, violations land on DSL spans."""

from __future__ import annotations

import dataclasses
import io
import json
import os
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest
from cardc import cli, lower
from cardc import syntax as s
from cardc.catalogue import default_catalogue
from cardc.frontend import FrontEndResult
from cardc.irjson import project_json
from cardc.schema import (
    SCHEMA_DIR,
    effects_schema,
    generated_schemas,
    registry,
    validate_ir,
    validate_project,
)
from jsonschema import Draft202012Validator

ROOT = Path(__file__).resolve().parent.parent


def _committed(rel: str) -> dict[str, Any]:
    return json.loads((SCHEMA_DIR / rel).read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def _run(argv: list[str], cwd: Path) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    old = Path.cwd()
    os.chdir(cwd)
    try:
        with redirect_stdout(out), redirect_stderr(err):
            code = cli.main(argv)
    finally:
        os.chdir(old)
    return code, out.getvalue(), err.getvalue()


def test_committed_schemas_are_valid_draft_2020_12() -> None:
    for path in sorted(SCHEMA_DIR.rglob("*.schema.json")):
        schema = json.loads(path.read_text(encoding="utf-8"))
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema", path
        Draft202012Validator.check_schema(schema)


def test_generated_schemas_are_current(bundled: FrontEndResult) -> None:
    """The committed per-kind and effect schemas are what `cardc schemas` writes now."""
    stale = [rel for rel, text in generated_schemas(bundled.project).items()
             if not (SCHEMA_DIR / rel).is_file() or (SCHEMA_DIR / rel).read_text(encoding="utf-8") != text]
    assert not stale, f"run `cardc schemas` to regenerate: {stale}"


def test_dump_validates_against_committed_schemas(bundled: FrontEndResult) -> None:
    code, out, _ = _run(["dump", "content"], ROOT)
    assert code == 0
    dump = json.loads(out)
    fixed, effects = _committed("ir.schema.json"), _committed("effects.schema.json")
    assert validate_ir(dump, fixed, effects, None) == []
    games = [g["id"] for g in dump["games"]]
    assert games
    for game in games:
        part = {**dump, "games": [g for g in dump["games"] if g["id"] == game],
                "modules": [x for x in dump["modules"] if x["game"] == game],
                "kinds": [k for k in dump["kinds"] if k["game"] == game],
                "entities": [e for e in dump["entities"] if e["game"] == game]}
        assert validate_ir(part, fixed, effects, _committed(f"kinds/{game}.schema.json")) == []


def test_fast_validation_agrees_with_standalone_schemas() -> None:
    """`validate_ir`'s dispatch on kind and verb gives the verdict of the plain standalone schemas."""
    fixed, effects = _committed("ir.schema.json"), _committed("effects.schema.json")
    code, out, _ = _run(["dump", "content"], ROOT)
    dump = json.loads(out)
    game = dump["games"][0]["id"]
    with_effects = [e for e in dump["entities"] if e["game"] == game and e["effects"]][:3]
    with_attrs = [e for e in dump["entities"] if e["game"] == game and e["attrs"]][:3]
    part = {**dump, "games": [g for g in dump["games"] if g["id"] == game],
            "modules": [x for x in dump["modules"] if x["game"] == game],
            "kinds": [k for k in dump["kinds"] if k["game"] == game], "entities": with_effects + with_attrs}
    kinds = _committed(f"kinds/{game}.schema.json")
    standalone = Draft202012Validator(kinds, registry=registry([fixed, effects, kinds]))
    assert standalone.is_valid(part) and validate_ir(part, fixed, effects, kinds) == []
    broken = json.loads(json.dumps(part))
    broken["entities"][0]["attrs"]["undeclared"] = 1
    if with_effects:
        broken["entities"][0]["effects"][0]["trigger"]["args"]["bogus"] = 1
    assert not standalone.is_valid(broken)
    assert len(validate_ir(broken, fixed, effects, kinds)) >= 1 + bool(with_effects)


def test_bundled_content_has_no_schema_errors(bundled: FrontEndResult) -> None:
    assert validate_project(bundled.project) == []


def test_kind_schema_rejects_what_the_kind_forbids(bundled: FrontEndResult) -> None:
    """The generated kind schema is not vacuous: an undeclared attribute and a wrong type both fail."""
    game = sorted(bundled.project.games)[0]
    data = project_json(bundled.project, game)
    kinds = _committed(f"kinds/{game}.schema.json")
    fixed, effects = _committed("ir.schema.json"), _committed("effects.schema.json")
    entity = next(e for e in data["entities"] if e["attrs"])
    name = next(iter(entity["attrs"]))
    entity["attrs"]["no_such_attribute"] = 1
    entity["attrs"][name] = {"not a value": [1]}
    assert len(validate_ir(data, fixed, effects, kinds)) == 2


def test_effect_schema_covers_every_catalogue_verb() -> None:
    schema = effects_schema(default_catalogue())
    verbs = set(default_catalogue().verbs)
    assert set(schema["$defs"]["invocation"]["properties"]["verb"]["enum"]) == verbs
    assert {k.removeprefix("verb_") for k in schema["$defs"] if k.startswith("verb_")} == verbs


def _tampered(bundled: FrontEndResult) -> tuple[Any, Any, Any]:
    """The bundled project with one attribute of the wrong type and one bad effect argument."""
    entities = list(bundled.project.entities)
    typed = next(i for i, e in enumerate(entities) if any(isinstance(v, s.IntV) for v in e.attrs.values()))
    e = entities[typed]
    attr = next(k for k, v in e.attrs.items() if isinstance(v, s.IntV))
    bad_value = s.StrV("oops", e.attrs[attr].span)
    entities[typed] = dataclasses.replace(e, attrs={**e.attrs, attr: bad_value})
    with_args = next(i for i, e in enumerate(entities)
                     if e.effects and any(inv.args for inv in [e.effects[0].trigger, *_calls(e.effects[0].body)]))
    e2 = entities[with_args]
    eff = e2.effects[0]
    body = tuple(_break_args(st) for st in eff.body)
    entities[with_args] = dataclasses.replace(e2, effects=(dataclasses.replace(eff, body=body), *e2.effects[1:]))
    project = dataclasses.replace(bundled.project, entities=tuple(entities))
    return project, (e, attr, bad_value), e2


def _calls(body: Any) -> list[Any]:
    return [st.call for st in body if hasattr(st, "call")]


def _break_args(st: Any) -> Any:
    if hasattr(st, "call") and st.call.args:
        name, value = st.call.args[0]
        broken = dataclasses.replace(st.call, args=((name, s.ListV((), value.span)), *st.call.args[1:]))
        return dataclasses.replace(st, call=broken)
    return st


def test_violations_are_reported_at_dsl_spans(bundled: FrontEndResult) -> None:
    project, (entity, attr, bad_value), effect_entity = _tampered(bundled)
    diags = validate_project(project)
    assert diags and all(d.code == "E402" and d.is_error for d in diags)
    by_file_line = {(d.span.file, d.span.line, d.span.col): d for d in diags}
    d = by_file_line[(bad_value.span.file, bad_value.span.line, bad_value.span.col)]
    assert f"attribute `{attr}` of {entity.kind} `{entity.id}`" in d.message
    call = next(st.call for st in effect_entity.effects[0].body if hasattr(st, "call") and st.call.args)
    arg_name, arg_value = call.args[0]
    d2 = by_file_line[(arg_value.span.file, arg_value.span.line, arg_value.span.col)]  # at the argument itself
    assert f"argument `{arg_name}` of `{call.verb}`" in d2.message and f"`{effect_entity.id}`" in d2.message
    for d in diags:  # never raw JSON paths
        assert "$" not in d.message and "entities" not in d.message and "/" not in d.message
        assert d.span.file.endswith(".cardc")


KIND_PROJECT = """module g
game g { languages: [en] }
kind item { attr slot { type: enum(a, b) } }
kind monster {
  attr reward { type: ref(item)  default: 5 }
  attr loot { type: list(ref(item))  default: [x, 7] }
}
monster bat { name: { en "Bat" } }
"""

KIND_EXPECTED = """\
game.cardc:5:43: error[E402]: attribute `reward` of monster `bat` does not match the schema: 5 is not of type 'string'
 5 |   attr reward { type: ref(item)  default: 5 }
   |                                           ^
  = hint: the schema of game `g` is generated from its kind declarations and dsl/catalogue.yaml \
(`cardc schemas` writes it to dsl/schemas/)
game.cardc:6:51: error[E402]: attribute `loot` of monster `bat` does not match the schema: 7 is not of type 'string'
 6 |   attr loot { type: list(ref(item))  default: [x, 7] }
   |                                                   ^
  = hint: the schema of game `g` is generated from its kind declarations and dsl/catalogue.yaml \
(`cardc schemas` writes it to dsl/schemas/)
2 errors, 0 warnings
"""


@pytest.fixture()
def kind_project(tmp_path: Path) -> Path:
    (tmp_path / "cardc.toml").write_text("")
    (tmp_path / "game.cardc").write_text(KIND_PROJECT)
    return tmp_path


@pytest.fixture()
def checker_gap(monkeypatch: pytest.MonkeyPatch) -> None:
    """Simulate a checker that lets kind defaults through unchecked (as it once did for references):
    then only the schema stands between a wrong default and the IR."""
    real = lower.check_value

    def lenient(value: s.Value, t: Any, ctx: Any) -> None:
        if not ctx.where.endswith(".default"):
            real(value, t, ctx)

    monkeypatch.setattr(lower, "check_value", lenient)
    monkeypatch.setattr(lower, "_resolve_refs", lambda *args: None)


def test_the_checker_itself_rejects_wrong_defaults(kind_project: Path) -> None:
    code, _, err = _run(["check", "."], kind_project)
    assert code == 1
    assert "game.cardc:5:43: error[E203]: `reward.default` expects a reference to an item, not a number" in err
    assert "game.cardc:6:48: error[E206]: `loot` refers to unknown item `x`" in err


@pytest.mark.usefixtures("checker_gap")
def test_kind_declaration_violating_schema_fails_check_schema(kind_project: Path) -> None:
    """A wrong default that gets past the checker is caught by the schema, at its DSL span."""
    assert _run(["check", "."], kind_project)[0] == 0
    code, _, err = _run(["check", "--schema", "."], kind_project)
    assert code == 1
    assert err == KIND_EXPECTED


@pytest.mark.usefixtures("checker_gap")
def test_build_always_validates_against_schemas(kind_project: Path) -> None:
    out = kind_project.parent / f"{kind_project.name}-gen"  # outside the content folder, which is refused
    code, _, err = _run(["build", ".", "--out", str(out)], kind_project)
    assert code == 1
    assert "error[E402]" in err
    assert not out.exists()


@pytest.mark.usefixtures("checker_gap")
def test_schemas_command_writes_and_checks(kind_project: Path) -> None:
    folder = kind_project / "schemas"
    assert _run(["schemas", ".", "--out", str(folder), "--check"], kind_project)[0] == 1
    assert _run(["schemas", ".", "--out", str(folder)], kind_project)[0] == 0
    assert sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.json")) == \
        ["effects.schema.json", "kinds/g.schema.json"]
    kinds = json.loads((folder / "kinds/g.schema.json").read_text())
    assert set(kinds["$defs"]["kind_monster"]["properties"]["attrs"]["properties"]) >= {"reward", "loot"}
    assert _run(["schemas", ".", "--out", str(folder), "--check"], kind_project)[0] == 0
