"""Balance tables: the shortcut that skips variants which cannot change a monster fight gives the same
numbers as computing everything, and the backend writes Markdown and JSON for both games."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cardc.backends import BuildOptions
from cardc.backends.python import balance
from test_rules_support import bundled_project, rules


def test_duel_only_and_dragon_only_variants_are_recognised() -> None:
    relevant = balance.monster_fight_variants(bundled_project(), "karak")
    assert relevant == {"critical_hits": None, "stronger_dragon": frozenset({"dragon"})}


def test_shortcut_gives_the_same_table() -> None:
    r = rules()
    relevant = balance.monster_fight_variants(bundled_project(), "karak")
    on = ("hero_duel", "lord_of_karak", "stronger_dragon")
    heroes = ("horan", "aderyn", "valduk")
    fast = balance.karak_table(r, on, relevant=relevant, heroes=heroes)
    full = balance.karak_table(r, on, heroes=heroes)
    assert fast["rows"] == full["rows"] and len(fast["rows"]) == 3


def test_backend_writes_markdown_and_json(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(balance, "LOADOUTS", balance.LOADOUTS[:1])
    monkeypatch.setattr(balance, "DUELS", balance.DUELS[1:])
    assert balance.write_balance(bundled_project(), tmp_path, BuildOptions()) == []
    karak = json.loads((tmp_path / "balance" / "karak.json").read_text(encoding="utf-8"))
    assert [t["variants"] for t in karak["tables"]] == [[], ["critical_hits"], ["stronger_dragon"]]
    md = (tmp_path / "balance" / "karak.md").read_text(encoding="utf-8")
    assert "| Horan |" in md and "## no items; variants: stronger_dragon" in md
    assert [d["by"] for d in karak["duels"]] == ["hero_duel"]
    horan = next(r for r in karak["duels"][0]["rows"] if r["hero"] == "horan")
    assert set(horan["cells"]) == {h["id"] for h in karak["duels"][0]["heroes"]} - {"horan"}
    assert "## Duel: hero duel (house rules), a sword each" in md
    prophecy = json.loads((tmp_path / "balance" / "prophecy.json").read_text(encoding="utf-8"))
    elf = next(r for r in prophecy["rows"] if (r["profession"], r["race_card"]) == ("paladin", "elf_card"))
    assert (elf["start"], elf["maximum"]) == ({"strength": 4, "will": 5}, {"strength": 8, "will": 11})
    assert "| Paladin | Elf | 4 / 5* | 8 / 11* |" in (tmp_path / "balance" / "prophecy.md").read_text(
        encoding="utf-8")
