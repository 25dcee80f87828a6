"""The compiled schema validators (`cardc.schemafast`, used by `build` on large content) give the same verdict
as the plain Draft 2020-12 validators, on the bundled IR and on hundreds of mutated entities."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest
from cardc.catalogue import default_catalogue
from cardc.frontend import FrontEndResult
from cardc.irjson import project_json
from cardc.schema import _lean_fixed, effects_schema, fixed_schema, kinds_schema, validate_ir
from cardc.schemafast import Bundle, bundle_of, ir_is_valid, is_valid, verdict_only

MUTATIONS = 120


def _verdicts(data: dict[str, Any], project: Any, game: str) -> tuple[bool, bool]:
    effects = effects_schema(default_catalogue())
    kinds = kinds_schema(project, game)
    fixed = fixed_schema()
    fast = ir_is_valid(data, fixed, effects, kinds, _lean_fixed(json.dumps(fixed, sort_keys=True)))
    plain = not validate_ir(data, fixed, effects, kinds)
    return fast, plain


@pytest.mark.parametrize("game", ["karak", "prophecy"])
def test_bundled_ir_is_valid_both_ways(bundled: FrontEndResult, game: str) -> None:
    assert _verdicts(project_json(bundled.project, game), bundled.project, game) == (True, True)


_ODD_VALUES: list[Any] = [None, True, 0, -1, 1.5, "", "x", "Zř", [], {}, [1], {"type": "int"},
                          {"type": "int", "value": "3"}, {"type": "enum", "value": 5}, 10 ** 30]


def _places(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path]
    if isinstance(node, dict):
        for k, v in node.items():
            out += _places(v, (*path, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _places(v, (*path, i))
    return out


def _mutate(entity: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """Replace, delete or add one thing somewhere in an entity."""
    e = copy.deepcopy(entity)
    path = rng.choice(_places(e)[1:])
    parent: Any = e
    for step in path[:-1]:
        parent = parent[step]
    last = path[-1]
    move = rng.randrange(3)
    if move == 0:
        parent[last] = rng.choice(_ODD_VALUES)
    elif move == 1 and isinstance(parent, dict):
        del parent[last]
    elif isinstance(parent, dict):
        parent[rng.choice(["extra", "type", "value", "verb", "args", "items"])] = rng.choice(_ODD_VALUES)
    else:
        parent.append(rng.choice(_ODD_VALUES))
    return e


def test_mutated_entities_get_the_same_verdict(bundled: FrontEndResult) -> None:
    rng = random.Random(20261201)
    project = bundled.project
    docs = {g: project_json(project, g) for g in ("karak", "prophecy")}
    invalid = 0
    for _ in range(MUTATIONS):
        game = rng.choice(sorted(docs))
        data = docs[game]
        entity = rng.choice(data["entities"])
        doc = {**data, "entities": [_mutate(entity, rng)]}
        fast, plain = _verdicts(doc, project, game)
        assert fast == plain, json.dumps(doc["entities"][0])[:2000]
        invalid += not plain
    assert invalid > MUTATIONS // 4, "the mutations must reach invalid documents often enough to mean something"


def test_ref_siblings_are_kept() -> None:
    """Draft 7 ignores the siblings of a `$ref`; the bundle moves them into an `allOf` so they still apply."""
    doc = {"$id": "https://cardc.invalid/schemas/t.schema.json",
           "$defs": {"n": {"type": "integer"}},
           "properties": {"a": {"$ref": "#/$defs/n", "minimum": 3}}}
    validate = Bundle([doc]).validator(doc["$id"])
    assert is_valid(validate, {"a": 3})
    assert not is_valid(validate, {"a": 2})


def test_verdict_only_code_builds_no_error_details(bundled: FrontEndResult) -> None:
    """The generated validators are rewritten to raise a bare error and to pass no instance path to the
    definitions they call: no message, path or failed schema is built, at a raise or at a call (the speed of the
    build's schema step rests on it; the verdicts are the tests above)."""
    import fastjsonschema

    kinds = kinds_schema(bundled.project, "karak")
    bundle = bundle_of([fixed_schema(), effects_schema(default_catalogue()), kinds])
    code = fastjsonschema.compile_to_code(bundle.schema(kinds["$id"]))
    assert "locals()" in code and "definition=" in code  # (what the rewrite is for)
    lean = verdict_only(code)
    assert "locals()" not in lean and "definition=" not in lean and "name_prefix or" not in lean
    assert lean.count("raise JsonSchemaValueException") == code.count("raise JsonSchemaValueException")


def test_an_invocation_s_verb_renamed_gets_the_same_verdict(bundled: FrontEndResult) -> None:
    """The compiled pass does not search the list of every verb's name for each invocation; it asks the verb
    for its own sub-schema instead: an unknown verb, or another verb's name, is judged as the plain pass does."""
    from cardc.schema import invocation_nodes

    rng = random.Random(3)
    project = bundled.project
    data = project_json(project, "karak")
    verbs = sorted(default_catalogue().verbs)
    with_effects = [e for e in data["entities"] if invocation_nodes(e.get("effects"))]
    invalid = 0
    for name in ["no_such_verb", "Zř", *rng.sample(verbs, 12)]:
        entity = copy.deepcopy(rng.choice(with_effects))
        rng.choice(invocation_nodes(entity.get("effects")))["verb"] = name
        fast, plain = _verdicts({**data, "entities": [entity]}, project, "karak")
        assert fast == plain, (name, json.dumps(entity)[:2000])
        invalid += not plain
    assert invalid >= 2


def test_compiled_validators_are_remembered_on_disk(bundled: FrontEndResult, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A later process loads the validators' bytecode from the cache instead of generating and compiling them,
    and they give the same verdicts."""
    import fastjsonschema
    from cardc import schemafast

    monkeypatch.setenv("CARDC_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("CARDC_CACHE", raising=False)
    monkeypatch.setattr(schemafast, "_compiled", {})
    data = project_json(bundled.project, "karak")
    bad = {**data, "entities": [{**data["entities"][0], "kind": 5}]}
    first = (_verdicts(data, bundled.project, "karak"), _verdicts(bad, bundled.project, "karak"))
    assert first == ((True, True), (False, False))
    assert list((tmp_path / "schema-code").glob("*.pickle"))

    def generated(*_: object) -> str:
        raise AssertionError("a validator was generated again")

    monkeypatch.setattr(schemafast, "_compiled", {})  # as a new process
    monkeypatch.setattr(fastjsonschema, "compile_to_code", generated)
    assert (_verdicts(data, bundled.project, "karak"), _verdicts(bad, bundled.project, "karak")) == first
