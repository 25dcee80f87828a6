"""The engine-neutral export (`export/<game>.json`): published schema, typed values, fallback, errata,
effects as data, escaping of hostile names, determinism. Fixture: tests/fixtures/export (a tiny game)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from cardc.backends import BACKENDS, BuildOptions
from cardc.backends.export import dumps, write_export
from cardc.backends.export.document import export_document
from cardc.build import build
from cardc.frontend import FrontEndResult, compile_paths
from cardc.model import Project
from jsonschema import Draft202012Validator

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "export"
SCHEMA = ROOT / "dsl" / "schemas" / "export.schema.json"
HOSTILE = {"cs": "\"; import os", "en": "{{ x }}", "de": "<script>alert(1)</script>"}


@pytest.fixture(scope="module")
def tavern() -> Project:
    old = Path.cwd()
    os.chdir(FIXTURE)
    try:
        result = compile_paths([Path(".")])
    finally:
        os.chdir(old)
    assert result.ok, [d.render() for d in result.diagnostics if d.is_error]
    return result.project


@pytest.fixture(scope="module")
def doc(tavern: Project) -> dict[str, Any]:
    return export_document(tavern, "tavern")


@pytest.fixture(scope="module")
def validator() -> Draft202012Validator:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def _entity(doc: dict[str, Any], key: str) -> dict[str, Any]:
    found = [e for e in doc["entities"] if e["key"] == key]
    assert len(found) == 1, key
    return found[0]


def _errors(validator: Draft202012Validator, data: Any) -> list[str]:
    return [f"{list(e.absolute_path)}: {e.message[:200]}" for e in validator.iter_errors(data)]


# ---- schema ------------------------------------------------------------------


def test_bundled_exports_validate_against_published_schema(bundled: FrontEndResult,
                                                           validator: Draft202012Validator) -> None:
    project = bundled.project
    assert project.games, "the bundled content has games"
    for game in project.games:
        data = json.loads(dumps(export_document(project, game)))
        assert _errors(validator, data) == [], game
        ir_keys = [e.key for e in project.entities_of(game)]
        assert [e["key"] for e in data["entities"]] == ir_keys


def test_fixture_export_validates(doc: dict[str, Any], validator: Draft202012Validator) -> None:
    assert _errors(validator, json.loads(dumps(doc))) == []


def test_schema_rejects_a_bare_guessed_number(doc: dict[str, Any], validator: Draft202012Validator) -> None:
    """A consumer can rely on the schema: a provisional value written as a plain number is invalid."""
    bad = json.loads(dumps(doc))
    hostile = next(e for e in bad["entities"] if e["id"] == "hostile")
    hostile["attrs"]["thirst"] = 2
    assert _errors(validator, bad)


# ---- content -----------------------------------------------------------------


def test_game_and_modules(doc: dict[str, Any]) -> None:
    assert doc["format"] == "cardc-export" and doc["format_version"] == 2
    assert doc["game"]["publish"] == ["cs", "en", "de"] and doc["game"]["fallback"] == "en"
    assert doc["game"]["name"]["de"] == {"text": "The Yellow Horse Tavern", "lang": "en", "fallback": True}
    assert [(m["id"], m["key"], m["base"]) for m in doc["modules"]] == [("base", "tavern", True),
                                                                      ("cellar", "tavern.cellar", False)]
    assert doc["modules"][1]["languages"] == ["cs", "en"]


def test_names_fall_back_and_are_flagged(doc: dict[str, Any]) -> None:
    slivovice = _entity(doc, "slivovice")
    assert slivovice["name"]["de"] == {"text": "Zwetschgenbrand", "lang": "de", "fallback": False}
    beer = _entity(doc, "beer")
    assert beer["name"]["de"] == {"text": "Beer", "lang": "en", "fallback": True}
    assert beer["name"]["cs"] == {"text": "Pivo", "lang": "cs", "fallback": False}
    assert _entity(doc, "zdenka")["name"]["cs"]["text"] == "Zdeňka Ťuková"


def test_typed_attribute_values(doc: dict[str, Any]) -> None:
    karel = _entity(doc, "karel")
    assert karel["attrs"]["favourite"] == {"type": "ref", "id": "slivovice", "kind": "drink"}
    assert karel["attrs"]["band"] == {"type": "range", "min": 2, "max": 5}
    assert karel["attrs"]["dice"] == {"type": "dice", "count": 2, "sides": 6}
    assert karel["attrs"]["mood"] == {"type": "enum", "value": "merry"}  # the kind's default, filled in
    assert karel["tags"] == ["local", "loud"]
    assert _entity(doc, "beer")["attrs"]["price"] == {"type": "number", "value": 1.5, "text": "1.5"}


def test_provisional_and_unknown_values_carry_their_note(doc: dict[str, Any]) -> None:
    zdenka = _entity(doc, "zdenka")
    assert zdenka["attrs"]["thirst"] == {"type": "unknown", "note": "not in the rulebook"}
    hostile = _entity(doc, "hostile")
    assert hostile["attrs"]["thirst"] == {"type": "provisional", "value": {"type": "int", "value": 2},
                                          "note": "guessed from a photo"}
    assert {"path": "thirst", "note": "guessed from a photo"} in hostile["provisional"]
    beer = _entity(doc, "beer")
    assert (beer["copies"], beer["copies_provisional"]) == (12, "the box count is not confirmed")
    assert _entity(doc, "slivovice")["copies_provisional"] is None


def test_kinds_ancestors_and_variant(doc: dict[str, Any]) -> None:
    kinds = {k["id"]: k for k in doc["kinds"]}
    assert kinds["regular"]["ancestors"] == ["guest"] and kinds["regular"]["extends"] == "guest"
    assert kinds["guest"]["attrs"]["mood"]["type"] == "enum(merry, grumpy)"
    assert kinds["guest"]["attrs"]["favourite"]["type_tree"] == {"name": "ref", "args": [{"name": "drink", "args": []}]}
    assert kinds["variant"]["builtin"] is True
    zdenka = _entity(doc, "zdenka")
    assert (zdenka["kind"], zdenka["ancestors"], zdenka["copies"]) == ("regular", ["guest"], 1)
    assert _entity(doc, "hostile")["variant"] == "rowdy_night"
    assert _entity(doc, "rowdy_night")["kind"] == "variant"


def test_errata_replace_their_entity(doc: dict[str, Any]) -> None:
    errata = _entity(doc, "cellar:karel")
    assert errata["errata"] is True and errata["module"] == "cellar"
    assert errata["replaces"] == {"id": "karel", "key": "karel", "module": "base"}
    assert errata["attrs"]["thirst"] == {"type": "int", "value": 5}
    base = _entity(doc, "karel")
    assert base["replaces"] is None and base["replaced_by"] == ["cellar:karel"]


def test_effects_are_structured_data(doc: dict[str, Any]) -> None:
    first, second, third = _entity(doc, "karel")["effects"]
    assert first["trigger"] == {"type": "call", "verb": "fight_total", "role": "trigger", "args": {}}
    cond = first["condition"]  # (lives(3..4) and not cursed) or first_step
    assert cond["type"] == "or"
    left, right = cond["operands"]
    assert left["type"] == "and" and left["operands"][1]["type"] == "not"
    assert left["operands"][0]["args"] == {"range": {"type": "range", "min": 3, "max": 4}}
    assert right["verb"] == "first_step"
    assert first["body"] == [{"type": "do", "call": {"type": "call", "verb": "attack", "role": "modifier",
                                                     "args": {"amount": {"type": "modifier", "value": 1}}}}]
    choose = second["body"][0]
    assert choose["type"] == "choose" and [o["name"] for o in choose["options"]] == ["sacrifice", "keep"]
    assert [st["call"]["verb"] for st in choose["options"][0]["body"]] == ["lose_life", "attack"]
    assert third["body"][0]["type"] == "may"


def test_rules_text_in_every_published_language(doc: dict[str, Any]) -> None:
    karel = _entity(doc, "karel")
    assert set(karel["rules_text"]) == {"cs", "en", "de"}
    assert karel["rules_text"]["en"], "karel has no hand text: his effects are described"
    assert _entity(doc, "last_orders")["rules_text"]["en"] == ["The tavern closes."]


def test_source_reference(doc: dict[str, Any]) -> None:
    src = _entity(doc, "slivovice")["source"]
    assert src["ref"] == "fixture#drinks"
    assert src["file"].endswith("cards.cardc") and src["line"] > 1


# ---- data stays data ---------------------------------------------------------


def test_hostile_names_are_escaped_and_round_trip(doc: dict[str, Any]) -> None:
    text = dumps(doc)
    back = json.loads(text)
    hostile = _entity(back, "hostile")
    assert {lang: v["text"] for lang, v in hostile["name"].items()} == HOSTILE
    assert hostile["text"]["cs"]["text"] == "\\ \" ' {% raw %} ${HOME} `rm -rf`"
    assert '"text": "\\"; import os"' in text  # the quote is JSON-escaped, nothing else is touched
    assert "<script>alert(1)</script>" in text and "{{ x }}" in text
    assert "Čížek" in text  # ensure_ascii=False: diacritics as they are


# ---- files -------------------------------------------------------------------


def test_backend_is_registered_and_builds_only_itself(tavern: Project, tmp_path: Path) -> None:
    assert "export" in [name for name, _ in BACKENDS]
    out = tmp_path / "gen"
    build(tavern, out, BuildOptions(only=frozenset({"export"}), settings={"tts_images": "false"}))
    assert sorted(p.name for p in out.iterdir()) == [".cardc-build.json", ".cardc-cache", "export"]  # + its cache
    text = (out / "export" / "tavern.json").read_text(encoding="utf-8")
    assert text.endswith("}\n")
    assert text == json.dumps(json.loads(text), ensure_ascii=False, indent=2, sort_keys=True) + "\n"


def test_two_exports_are_byte_identical(tavern: Project, tmp_path: Path) -> None:
    trees = []
    for name in ("a", "b"):  # same destination, so the TTS files' file:/// URLs are the same too
        write_export(tavern, tmp_path / name, BuildOptions(destination=tmp_path / "dest"))
        root = tmp_path / name
        trees.append({p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()})
    assert trees[0] == trees[1]
    assert "export/tavern.json" in trees[0] and any(k.endswith(".png") for k in trees[0])


def test_fast_json_writes_the_bundled_exports(bundled: FrontEndResult, tmp_path: Path) -> None:
    """The bundled content's export documents take the fast path, and it gives json's text."""
    from cardc.backends.export import fast_dumps

    for game in sorted(bundled.project.games):
        doc = export_document(bundled.project, game)
        fast = fast_dumps(doc)
        assert fast is not None and fast.decode("utf-8") == dumps(doc)
    assert fast_dumps({"small": 0.00001}) is None and fast_dumps({1: 2}) is None and fast_dumps(2**64) is None
