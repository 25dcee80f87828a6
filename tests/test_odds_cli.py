"""`cardc odds`: the command-line contract (fractions and decimals, JSON, duels, the table, clear errors)."""

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
    code = cli.main(["odds", "--game", "karak", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def _fractions(data: dict) -> dict[str, Fraction]:  # type: ignore[type-arg]
    return {k: Fraction(data[k]["fraction"]) for k in ("win", "tie", "loss")}


def test_text_gives_fractions_and_decimals(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "--hero", "aderyn", "--vs", "giant_rat")
    assert code == 0
    lines = {line.split()[0]: line.split()[1:] for line in out.splitlines() if line.split()}
    wins = sum(a + b >= 5 for a, b in product(range(1, 7), repeat=2))  # a tie (5) is a win for her
    assert lines["win"] == [str(Fraction(wins, 36)), f"{wins / 36:.4f}"]
    assert lines["tie"][0] == "0" or lines["tie"][0] == "0/1"
    assert "policy:" in out


def test_json_matches_a_direct_count(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "--hero", "argentus", "--weapons", "sword,battle_axe", "--spells",
                        "magic_missile", "--vs", "skeleton_king", "--variant", "critical_hits", "--json")
    data = json.loads(out)
    assert code == 0 and data["variants"] == ["critical_hits"]
    crit = {1: -2, 2: -1, 3: -1, 4: 1, 5: 1, 6: 2}
    # magic missile is always worth using here; weapons 5 + spell 1 against 10
    counts = {"win": 0, "tie": 0, "loss": 0}
    for a, b in product(range(1, 7), repeat=2):
        total = a + b + 6 + (crit[a] if a == b else 0)
        counts["win" if total > 10 else "tie" if total == 10 else "loss"] += 1
    assert _fractions(data) == {k: Fraction(v, 36) for k, v in counts.items()}
    assert abs(data["win"]["decimal"] - counts["win"] / 36) < 1e-6


def test_duel_with_its_own_loadout(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "--hero", "horan", "--weapons", "sword", "--vs-hero", "victorius",
                        "--vs-weapons", "sword,sword", "--vs-lives", "2", "--variant", "hero_duel", "--json")
    data = json.loads(out)
    assert code == 0 and data["by"] == "hero_duel" and data["vs"]["fighter"]["lives"] == 2
    assert sum(_fractions(data).values()) == 1 and 0 < _fractions(data)["win"] < 1
    assert "defender:flee(5)" in data["also"]  # the loser flees (Victorius at 2 lives survives the loss)


def test_arena_duel_uses_the_arena_rules(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "--hero", "aderyn", "--vs-hero", "argentus", "--json")
    data = json.loads(out)
    assert code == 0 and data["by"] == "battle_arena"
    assert data["also"]["attacker:becomes_corridor"]["fraction"] == "1/1"  # the arena's effect ran


def test_table_lists_every_hero(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "--table", "--variant", "critical_hits")
    assert code == 0 and "variants: critical_hits" in out
    for hero in ("Horan", "Aderyn", "Argentus", "Lord Xanros", "Victorius", "Taia", "Valduk", "Hannah"):
        assert f"| {hero} |" in out
    assert "Dragon (15)" in out


@pytest.mark.parametrize("argv", [
    ("--hero", "aderyn", "--lives", "1", "--weapons", "sword,battle_axe", "--spells", "magic_missile"),
    ("--hero", "aderyn", "--lives", "2", "--weapons", "sword", "--spells", "frost_fist"),
    ("--hero", "xanros", "--lives", "3", "--weapons", "sword", "--spells", "magic_missile"),
])
def test_a_spell_cast_and_lost_to_the_stronger_dragon(capsys: pytest.CaptureFixture[str], argv) -> None:  # type: ignore[no-untyped-def]
    """Issue 9.8: losing to the stronger dragon at 1-2 lives drops an item; a spell cast in that fight is
    spent (discarded after it), so it is not among the items that can be dropped, and nothing crashes."""
    code, out, err = _run(capsys, *argv, "--vs", "dragon", "--variant", "stronger_dragon", "--json")
    assert code == 0 and "Traceback" not in err
    data = json.loads(out)
    assert sum(_fractions(data).values()) == 1
    for flag in data["also"]:
        if flag.startswith("hero:drop_item("):
            dropped = flag[len("hero:drop_item("):].split(",")[0]
            assert dropped in data["fighter"]["items"]


def test_a_cast_spell_is_never_the_dropped_item(capsys: pytest.CaptureFixture[str]) -> None:
    """Aderyn at 1 life with one magic missile: she casts it whenever it can turn a loss into a win, so on
    a loss she leaves the battle axe (the better weapon for the others) or the sword, never the spent spell."""
    code, out, _ = _run(capsys, "--hero", "aderyn", "--lives", "1", "--weapons", "sword,battle_axe", "--spells",
                        "magic_missile", "--vs", "dragon", "--variant", "stronger_dragon", "--json")
    data = json.loads(out)
    assert code == 0 and _fractions(data)["loss"] == Fraction(13, 18)
    assert not any("drop_item(magic_missile" in f for f in data["also"])


def test_table_honours_lives_cursed_and_first_step(capsys: pytest.CaptureFixture[str]) -> None:
    code, plain, _ = _run(capsys, "--table", "--json")
    code2, weak, _ = _run(capsys, "--table", "--lives", "1", "--cursed", "--json")
    assert code == code2 == 0
    rows = {r["fighter"]: r for r in json.loads(plain)["rows"]}
    weak_rows = {r["fighter"]: r for r in json.loads(weak)["rows"]}
    # Valduk's berserk (+1 at 3-4 lives) and Aderyn's tie-wins are abilities: gone when cursed
    assert weak_rows["aderyn"]["cells"]["giant_rat"] != rows["aderyn"]["cells"]["giant_rat"]
    code3, out, _ = _run(capsys, "--table", "--lives", "2", "--first-step")
    assert code3 == 0 and "situation: lives: 2" in out and "situation: first step" in out
    code4, single, _ = _run(capsys, "--hero", "aderyn", "--lives", "1", "--cursed", "--vs", "giant_rat", "--json")
    assert json.loads(single)["win"] == weak_rows["aderyn"]["cells"]["giant_rat"]["win"]


def test_table_refuses_lives_a_fighter_cannot_have(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "--table", "--lives", "9")
    assert code == 2 and out == "" and "lives" in err


@pytest.mark.parametrize(("argv", "message"), [
    (("--hero", "horn", "--vs", "giant_rat"), "unknown hero `horn`"),
    (("--hero", "horan", "--vs", "dragonn"), "unknown monster `dragonn`"),
    (("--hero", "horan", "--vs", "giant_rat", "--variant", "critical"), "unknown variant `critical`"),
    (("--hero", "horan", "--weapons", "sword,sword,battle_axe", "--vs", "giant_rat"), "at most 2 weapons"),
    (("--hero", "horan", "--spells", "daggers", "--vs", "giant_rat"), "cannot go in a spell slot"),
    (("--hero", "horan", "--lives", "9", "--vs", "giant_rat"), "1 to 5 lives"),
    (("--hero", "horan",), "give --hero and --vs"),
    (("--hero", "horan", "--vs-hero", "aderyn", "--variant", "hero_duel"), "needs both heroes armed"),
])
def test_bad_arguments_exit_2_without_traceback(capsys: pytest.CaptureFixture[str], argv, message) -> None:  # type: ignore[no-untyped-def]
    code, out, err = _run(capsys, *argv)
    assert code == 2 and out == "" and message in err and "Traceback" not in err
