"""Balance tables: what they tabulate comes from the content's `odds` declarations; the shortcut that skips
variants which cannot change a fight gives the same numbers as computing everything; identical duel
tables are recognised before they are computed; the backend writes Markdown and JSON for both games."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from cardc.backends import BuildOptions
from cardc.backends.python import balance
from test_rules_support import bundled_project, rules


def _fights() -> balance.OddsDecl:
    return next(d for d in balance.declarations(bundled_project(), "karak") if d.opponent)


def test_declarations_come_from_the_content() -> None:
    decls = {d.id: d for d in balance.declarations(bundled_project(), "karak")}
    assert set(decls) == {"fights", "arena_duels", "house_duels"}
    fights = decls["fights"]
    assert (fights.fighter, fights.opponent, fights.show) == ("hero", "monster", ("strength",))
    assert [x.items for x in fights.loadouts] == [(), ("sword",), ("sword", "battle_axe", "magic_missile")]
    assert [(d.by, d.variants, d.items) for d in decls["house_duels"].duels] == [("hero_duel", ("hero_duel",),
                                                                                   ("sword",))]


def test_duel_only_and_dragon_only_variants_are_recognised() -> None:
    relevant = balance.fight_variants(bundled_project(), "karak", _fights())
    assert relevant == {"critical_hits": None, "stronger_dragon": frozenset({"dragon"})}


def test_shortcut_gives_the_same_table() -> None:
    r = rules()
    decl = _fights()
    relevant = balance.fight_variants(bundled_project(), "karak", decl)
    on = ("hero_duel", "lord_of_karak", "stronger_dragon")
    heroes = ("horan", "aderyn", "valduk")
    fast = balance.fight_table(r, decl, on, relevant=relevant, fighters=heroes)
    full = balance.fight_table(r, decl, on, fighters=heroes)
    assert fast["rows"] == full["rows"] and len(fast["rows"]) == 3


def test_identical_duels_are_known_before_computing() -> None:
    """The arena duel and the house-rule duel differ only in effects that fire after the outcome is decided
    (what the loser gives up, where it goes): their tables are equal, and the signature says so up front."""
    r = rules()
    decls = {d.id: d for d in balance.declarations(bundled_project(), "karak")}
    arena, house = decls["arena_duels"].duels[0], decls["house_duels"].duels[0]
    project = bundled_project()
    assert balance.duel_signature(project, r, arena) == balance.duel_signature(project, r, house)
    # with spells the house rule's spells-after-the-roll can matter: no longer known to be equal
    spells = replace(house, items=("sword", "magic_missile"))
    arena_spells = replace(arena, items=spells.items)
    assert balance.duel_signature(project, r, spells) != balance.duel_signature(project, r, arena_spells)
    fighters = ("horan", "aderyn", "xanros")
    sub = replace(decls["arena_duels"], fighter="hero")

    def table(d: balance.Part) -> list[dict]:  # type: ignore[type-arg]
        rows = balance.duel_table(r, sub, d)["rows"]
        return [{**x, "cells": {k: v for k, v in x["cells"].items() if k in fighters}}
                for x in rows if x["fighter"] in fighters]

    assert table(arena) == table(house)


def test_backend_writes_markdown_and_json(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = balance.declarations

    def fewer(project, game):  # type: ignore[no-untyped-def]
        out = real(project, game)
        return [replace(d, loadouts=d.loadouts[:1]) for d in out if d.id != "arena_duels"]

    monkeypatch.setattr(balance, "declarations", fewer)
    assert balance.write_balance(bundled_project(), tmp_path, BuildOptions()) == []
    karak = json.loads((tmp_path / "balance" / "karak.json").read_text(encoding="utf-8"))
    assert [t["variants"] for t in karak["tables"]] == [[], ["critical_hits"], ["stronger_dragon"]]
    md = (tmp_path / "balance" / "karak.md").read_text(encoding="utf-8")
    assert "| Horan |" in md and "## no items; variants: stronger_dragon" in md
    assert [d["by"] for d in karak["duels"]] == ["hero_duel"]
    horan = next(r for r in karak["duels"][0]["rows"] if r["fighter"] == "horan")
    assert set(horan["cells"]) == {h["id"] for h in karak["duels"][0]["fighters"]} - {"horan"}
    assert "## Duel: hero duel (house rules); each carries: Sword" in md
    prophecy = json.loads((tmp_path / "balance" / "prophecy.json").read_text(encoding="utf-8"))
    rows = prophecy["sheets"][0]["rows"]
    elf = next(r for r in rows if (r["fighter"], r["card"]) == ("paladin", "elf_card"))
    assert (elf["start"], elf["maximum"]) == ({"strength": 4, "will": 5}, {"strength": 8, "will": 11})
    paladin = next(r for r in rows if (r["fighter"], r["card"]) == ("paladin", None))
    assert paladin["limits"] == {"standard": {"ability": 7, "item": 7}, "longer": {"ability": 9, "item": 9},
                                 "dragon_realm_standard": {"ability": 8, "item": 8},
                                 "dragon_realm_longer": {"ability": 10, "item": 10}}
    assert "| Paladin | Elf | 4 / 5* | 8 / 11* |" in (tmp_path / "balance" / "prophecy.md").read_text(
        encoding="utf-8")
