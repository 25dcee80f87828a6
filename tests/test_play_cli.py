"""`cardc play`: a whole game on the command line (log in a language, same seed same game, JSON, a person at
the terminal, clear errors)."""

from __future__ import annotations

import builtins
import json

import pytest
from cardc import cli
from cardc.frontend import FrontEndResult


@pytest.fixture(autouse=True)
def _compiled_once(monkeypatch: pytest.MonkeyPatch, bundled: FrontEndResult) -> None:
    monkeypatch.setattr(cli, "_front", lambda paths: bundled)


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(["play", "--game", "karak", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_game_is_told_turn_by_turn_and_ends_with_the_winner(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "--players", "3", "--seed", "5")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].endswith("rolled highest and begins.")
    assert any(line.startswith("--- turn 1: ") for line in lines)
    assert any(" fights " in line and " dice " in line and " total " in line for line in lines)
    assert any(" reveals " in line for line in lines) and any("drawn from the bag" in line for line in lines)
    end = next(i for i, line in enumerate(lines) if line.startswith("Winner: "))
    assert "ended the game (Dragon)" in out and lines[end - 1].startswith("Treasure: ")
    assert lines[end + 1] == "Provisional values this game rested on:"  # what the game rested on, after it
    assert lines[end + 2:] and all(line.startswith("- ") for line in lines[end + 2:])
    again = _run(capsys, "--players", "3", "--seed", "5")[1]
    assert again == out  # the same seed gives the same game


def test_czech_log_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "--players", "2", "--seed", "2", "--lang", "cs")
    assert code == 0 and "--- tah 1: " in out and "Vítěz: " in out and "Drak" in out
    code, out, _ = _run(capsys, "--players", "2", "--seed", "2", "--json")
    data = json.loads(out)
    assert code == 0 and data["winners"] and not data["capped"] and data["turns"] > 0
    assert any(e[1] == "fight" for e in data["log"])


def test_regent_and_house_rules_play(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "--players", "4", "--seed", "3", "--expansion", "regent", "--variant",
                        "lord_of_karak", "hero_duel", "critical_hits", "stronger_dragon", "--json")
    data = json.loads(out)
    assert code == 0 and not data["capped"], data["message"]
    assert {"karak.regent", "karak.house_rules"} <= set(data["expansions"])
    tiles = {e[2] for e in data["log"] if e[1] == "explore"}
    assert tiles & {"battle_arena", "cursed_chamber", "regent_room"}


def test_a_person_picks_from_the_legal_options(capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    answers = iter(["x", "9"] + ["1"] * 5000)
    monkeypatch.setattr(builtins, "input", lambda prompt="": next(answers))
    code, out, _ = _run(capsys, "--heroes", "horan,taia", "--seed", "4", "--human", "1", "--turn-cap", "6")
    assert code == 0
    assert "Horan, choose (step):" in out and "  1. " in out and "  1-" in out  # a bad answer is asked again
    assert out.rstrip().splitlines()[-1].startswith("No winner: stopped after 6 turns")


@pytest.mark.parametrize(("argv", "message"), [
    (("--variant", "no_such"), "unknown variant `no_such`"),
    (("--expansion", "regnet"), "unknown expansion `regnet`"),
    (("--heroes", "horan,nobody"), "unknown hero `nobody`"),
    (("--players", "40"), "--players must be 1 to"),
    (("--human", "3", "--players", "2"), "seats are 1 to 2"),
])
def test_bad_names_exit_2_without_traceback(capsys: pytest.CaptureFixture[str], argv: tuple[str, ...],
                                            message: str) -> None:
    code, _, err = _run(capsys, *argv)
    assert code == 2 and message in err and "Traceback" not in err
