"""`cardc odds --game prophecy`: characters built from cards (profession, race card, stones, items) fight by the
content's procedure `fight` on the same engine as Karak; values the seeds do not give are assumed only when
asked (`--assume`) and every output built on them, or on the provisional fight formula, says so."""

from __future__ import annotations

import json
from fractions import Fraction
from itertools import product

import pytest
from cardc import cli
from cardc.frontend import FrontEndResult


@pytest.fixture(autouse=True)
def _compiled_once(monkeypatch: pytest.MonkeyPatch, bundled: FrontEndResult) -> None:
    monkeypatch.setattr(cli, "_front", lambda paths: bundled)


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(["odds", "--game", "prophecy", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def _beats(mine: int, theirs: int, bonus: int = 0) -> Fraction:
    """A die plus a stat on each side, the higher total wins (the content's provisional formula)."""
    return Fraction(sum(a + mine > b + theirs + bonus for a, b in product(range(1, 7), repeat=2)), 36)


def test_an_unknown_monster_value_is_refused_with_the_way_out(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys, "--hero", "paladin", "--vs", "fire_dragon")
    assert code == 2 and "strength of fire_dragon is not known" in err


def test_elf_paladin_against_an_assumed_fire_dragon(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "--hero", "paladin", "--cards", "elf_card", "--vs", "fire_dragon",
                        "--assume", "strength=6", "--json")
    data = json.loads(out)
    assert code == 0 and data["fighter"]["stats"] == {"strength": 4, "will": 5}  # the seed's elf paladin
    assert Fraction(data["win"]["fraction"]) == _beats(4, 6)
    notes = " ".join(data["provisional"])
    assert "fight formula" in notes and "fire_dragon.strength = 6 assumed" in notes and "paladin.strength" in notes
    assert "fire_dragon.strength" in data["assumed"] and "paladin.strength" not in data["assumed"]


def test_text_names_every_provisional_part(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "--hero", "paladin", "--vs", "fire_dragon", "--assume", "strength=6")
    assert code == 0 and out.startswith("Paladin (strength 5, will 4) against Fire Dragon")
    provisional = [line for line in out.splitlines() if line.startswith("provisional: ")]
    assert any("fight formula" in line for line in provisional)
    assert any("assumed (--assume)" in line for line in provisional)


def test_stones_and_the_stat_fought_with(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = _run(capsys, "--hero", "paladin", "--stat", "will=7", "--fight-with", "will", "--vs",
                     "dragon_queen", "--json")
    data = json.loads(out)
    assert data["fighter"]["stats"]["will"] == 7 and Fraction(data["win"]["fraction"]) == _beats(7, 7)
    assert any(n.startswith("dragon_queen will: stand-in") for n in data["provisional"])  # the Queen's stand-in
    code, _, err = _run(capsys, "--hero", "paladin", "--stat", "will=11", "--vs", "dragon_queen")
    assert code == 2 and "outside 0..10" in err  # the paladin owns at most 10 blue stones


def test_the_lake_strengthens_its_monster_in_the_dragonslayer_variant(capsys: pytest.CaptureFixture[str]) -> None:
    args = ("--hero", "paladin", "--vs", "dragon_queen", "--at", "fire_lake", "--json")
    plain = json.loads(_run(capsys, *args)[1])
    slayer = json.loads(_run(capsys, *args, "--variant", "dragonslayer")[1])
    assert Fraction(plain["win"]["fraction"]) == _beats(5, 7)  # the Queen's stand-in strength 7
    assert Fraction(slayer["win"]["fraction"]) == _beats(5, 7, bonus=1)


def test_a_duel_of_two_characters_with_a_dragon_heart(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "--hero", "paladin", "--cards", "dragon_heart", "--vs-hero", "ranger",
                        "--vs-stat", "strength=5", "--json")
    data = json.loads(out)
    assert code == 0 and Fraction(data["win"]["fraction"]) == _beats(5 + 1, 5)  # +1 against one without a heart
    assert data["vs"]["fighter"]["stats"] == {"strength": 5, "will": 4}  # the ranger's stand-in will, unchanged
    both = json.loads(_run(capsys, "--hero", "paladin", "--cards", "dragon_heart", "--vs-hero", "ranger",
                           "--vs-cards", "dragon_heart", "--vs-stat", "strength=5", "--json")[1])
    assert Fraction(both["win"]["fraction"]) == _beats(5, 5)


def test_table_every_character_against_every_opponent(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "--table", "--assume", "strength=6", "--json")
    data = json.loads(out)
    stand_ins = {"weak_monster", "strong_monster", "realm_drake", "realm_wyrm", "dragon_queen"}  # provisional
    assert code == 0 and {o["id"] for o in data["opponents"]} == {"fire_dragon", "dragon_queen", *stand_ins}
    rows = {r["fighter"]: r for r in data["rows"]}
    assert Fraction(rows["elf_card:paladin"]["cells"]["fire_dragon"]["win"]["fraction"]) == _beats(4, 6)
    assert Fraction(rows["ranger"]["cells"]["dragon_queen"]["win"]["fraction"]) == _beats(5, 7)  # stand-in 7
    assert Fraction(rows["ranger"]["cells"]["realm_drake"]["win"]["fraction"]) == _beats(5, 5)  # stand-in 5
    left = [n for n in data["provisional"] if "left out" in n]
    assert left and all("not known" in n for n in left)  # race cards whose modifiers the seeds do not give
    assert any("fight formula" in n for n in data["provisional"])
    code, text, _ = _run(capsys, "--table", "--assume", "strength=6")
    assert "| Paladin + Elf |" in text and "provisional: " in text


def test_table_without_assumptions_says_what_is_missing(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "--table", "--json")
    data = json.loads(out)
    assert code == 0 and {o["id"] for o in data["opponents"]} == {"weak_monster", "strong_monster", "realm_drake",
                                                                  "realm_wyrm", "dragon_queen"}  # stand-ins only
    assert any(n.startswith("fire_dragon is left out: its strength is not known") for n in data["provisional"])
