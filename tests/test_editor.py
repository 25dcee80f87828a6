"""The editor analysis behind `cardc lsp`: cursor context on half-typed text, the typed index of ids,
hover and completion on the bundled content."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from cardc.catalogue import default_catalogue
from cardc.editor.analysis import Analysis, Target, analyze
from cardc.editor.context import Place, cursor_context

from tests.conftest import ROOT

HERO = 'module karak\nhero horan {\n  name: { cs "x" en "y" }\n'


@pytest.mark.parametrize(("text", "place", "detail"), [
    ("|", Place.TOP, ""),
    ("mod|", Place.TOP, ""),
    ("module |", Place.MODULE, ""),
    ('module karak\nimport "x"\n|', Place.TOP, ""),
    ("module karak\nhero |", Place.OTHER, ""),  # the id being declared
    (HERO + "  |", Place.MEMBER, ""),
    (HERO + "  cl|", Place.MEMBER, ""),
    ('module karak\nhero horan {\n  name: { cs "x" |', Place.TEXT, ""),
    (HERO + "  gender: |", Place.VALUE, "gender"),
    (HERO + "  gender: f|", Place.VALUE, "gender"),
    (HERO + "  gender: f\n  |", Place.MEMBER, ""),
    (HERO + "  lives: provisional |", Place.VALUE, "lives"),
    (HERO + "  items: [sword, |", Place.VALUE, "items"),
    (HERO + "  ability x {\n    on |", Place.TRIGGER, ""),
    (HERO + "  ability x {\n    on fight_roll if |", Place.CONDITION, ""),
    (HERO + "  ability x {\n    on fight_roll if first_use(fight) and |", Place.CONDITION, ""),
    (HERO + "  ability x {\n    on fight_roll if first_use(|", Place.ARGUMENT, "first_use"),
    (HERO + "  ability x {\n    on fight_roll { may |", Place.ACTION, ""),
    (HERO + "  ability x {\n    on fight_roll { may reroll(all)\n |", Place.STATEMENT, ""),
    (HERO + "  ability x {\n    on fight_roll { teleport(fountain, pick: |", Place.VALUE, "teleport"),
    (HERO + "  ability x {\n    on fight_roll { teleport(fountain, |", Place.ARGUMENT, "teleport"),
    (HERO + "  ability x {\n    on fight_roll { if steps_taken(1..4) { end_turn() } |", Place.STATEMENT, ""),
    (HERO + "  ability x {\n    on fight_roll { if steps_taken(1..4) |", Place.OTHER, ""),
    (HERO + "  ability x {\n    on fight_roll { if (a or |", Place.CONDITION, ""),
    (HERO + "  ability x {\n    on fight_roll { }\n  }\n  |", Place.MEMBER, ""),
    (HERO + "  // com|", Place.OTHER, ""),
    (HERO + '  text: "abc|', Place.OTHER, ""),
    (HERO + '  text: "a { b" \n  |', Place.MEMBER, ""),  # braces in strings do not count
    ("kind hero {\n  attr class { type: text  required: true }\n  |", Place.MEMBER, ""),
    ("kind hero {\n  attr class { type: |", Place.VALUE, "type"),
    ("errata |", Place.TOP, ""),
])
def test_cursor_context(text: str, place: Place, detail: str) -> None:
    offset = text.index("|")
    ctx = cursor_context(text.replace("|", ""), offset)
    assert ctx.place is place
    assert detail in (ctx.attr, ctx.verb)


def test_cursor_context_knows_the_enclosing_declaration() -> None:
    text = HERO + "  ability double {\n    on fight_roll { may reroll(all) }\n    "
    ctx = cursor_context(text, len(text))
    decl = ctx.decl()
    assert ctx.place is Place.MEMBER and decl is not None and (decl.kind, decl.ident) == ("ability", "double")


@pytest.fixture(scope="module")
def bundled_analysis() -> Analysis:
    old = Path.cwd()
    os.chdir(ROOT)
    try:
        return analyze(ROOT / "content")
    finally:
        os.chdir(old)


def test_index_is_typed_enum_values_are_not_references(bundled_analysis: Analysis) -> None:
    """`slot: key` is a value of the enum `slot`; `opens_with: key` names the item `key`."""
    refs = bundled_analysis.references(Target("entity", "karak", "key"))
    items = (ROOT / "content/karak/base/items.cardc").read_text(encoding="utf-8").split("\n")
    lines = {(o.span.file, o.span.line): o for o in refs}
    assert any(o.definition for o in refs)
    for (file, line), occ in lines.items():
        if file.endswith("items.cardc") and not occ.definition:
            assert "slot:" not in items[line - 1]
    assert any("opens_with" in items[line - 1] for (f, line) in lines if f.endswith("items.cardc"))


def test_every_reference_names_a_declared_entity(bundled_analysis: Analysis) -> None:
    """The content checks clean, so every reference the index found resolves to a definition at its word."""
    project = bundled_analysis.project
    count = 0
    for occs in bundled_analysis.occurrences.values():
        for occ in occs:
            if occ.target.what != "entity":
                continue
            count += 1
            definition = bundled_analysis.definition(occ.target)
            assert definition is not None, occ
            text = project.sources[occ.span.file].split("\n")[occ.span.line - 1]
            assert text[occ.span.col - 1:].startswith(occ.target.id.split(".")[-1]) or "." in text
    assert count > len(project.entities)  # definitions plus uses


def test_every_trigger_hovers_with_its_catalogue_doc(bundled_analysis: Analysis) -> None:
    catalogue = default_catalogue()
    for verb in catalogue.of_role("trigger"):
        text = f"module karak\nhero h {{\n  on {verb.name} {{ }}\n}}\n"
        offset = text.index(verb.name) + 1
        answer = bundled_analysis.hover("x.cardc", text, offset, 2, 6)
        assert answer is not None and verb.doc in answer[0], verb.name


def test_completion_of_a_reference_offers_only_entities_of_that_kind(bundled_analysis: Analysis) -> None:
    text = "module karak\nchest c {\n  opens_with: "
    items, prefix = bundled_analysis.complete(text, len(text))
    project = bundled_analysis.project
    expected = {e.id for e in project.entities_of("karak") if e.is_a("item") and not e.errata}
    assert prefix == "" and {c.label for c in items} == expected


def test_outline_of_a_file(bundled_analysis: Analysis) -> None:
    outline = bundled_analysis.outline("content/karak/base/heroes.cardc")
    assert outline is not None
    names = [o.name for o in outline]
    heroes = [e.id for e in bundled_analysis.project.entities
              if e.span.file == "content/karak/base/heroes.cardc" and e.parent is None]
    assert names == heroes
    assert all(o.span.end_line > o.span.line for o in outline)
