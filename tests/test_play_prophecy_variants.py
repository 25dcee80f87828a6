"""Prophecy's team game and Dragonslayer variant run in play (issue 9.5, seed 000 #7.tymova-hra and
#7.drakobijecka-varianta): partners sit opposite, trade only gold and items with each other, win together and
may concede; the first to beat the monster in the fire lake (the Dragon Queen, +1 to both stats) wins. Each rule
is checked by the state it changes, on a table the content set up or in whole seeded games."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest
from cardc import cli
from cardc.backends.python.runtime.cardc_runtime import Scripted, verbs
from cardc.backends.python.runtime.cardc_runtime.context import Context
from cardc.backends.python.runtime.cardc_runtime.engine import (
    SensibleBot,
    View,
    play_game,
)
from test_rules_support import prophecy_table, rules
from test_rules_support import table_marks as _marks
from test_rules_support import table_zones as _zones

REALM = ("dragon_realm",)
TEAM = ("base_additions",)


def _table(players: int, variants: tuple[str, ...], expansions: tuple[str, ...], seed: int = 0) -> Context:
    """A table after the content's set-up, p1 on turn and acting."""
    return prophecy_table(players=players, variants=variants, expansions=expansions, seed=seed)


# ---- the team game ------------------------------------------------------------------------------------


def test_partners_sit_opposite_and_trading_is_switched_on() -> None:
    ctx = _table(4, ("team_game",), TEAM)
    assert _marks(ctx)["teams"] == {"p1": 0, "p2": 1, "p3": 0, "p4": 1}  # p1 with p3, p2 with p4: turns alternate
    assert "trading" in ctx.variants


def test_a_trade_moves_gold_or_an_item_to_a_partner_only() -> None:
    ctx = _table(4, ("team_game",), TEAM)
    p1, p3 = ctx.characters["p1"], ctx.characters["p3"]
    p1.stats["gold"], p3.stats["gold"] = 5, 1
    p1.cards += ["royal_cloak", "meditation"]  # an item may be traded, an ability may not
    others = {p: dict(ctx.characters[p].stats) for p in ("p2", "p4")}
    script = Scripted(choices={"trade": "gold>p3", "trade_amount": 2})
    ctx.inputs = script
    ctx.fire("turn_start", p1)  # the team game offers the trade at the start of a turn
    [offer] = [c for c in script.asked if c.point == "p1:trade"]
    assert offer.options == ("none", "gold>p3", "royal_cloak>p3")  # the partner only; gold and items only
    assert (p1.stats["gold"], p3.stats["gold"]) == (3, 3)
    assert {p: ctx.characters[p].stats for p in ("p2", "p4")} == others
    ctx.inputs = Scripted(choices={"trade": "royal_cloak>p3"})
    verbs.trade(ctx)
    assert "royal_cloak" in p3.cards and "royal_cloak" not in p1.cards and "meditation" in p1.cards
    assert ctx.log[-2][:2] == ("p1", "trade")


def test_without_the_team_game_nothing_is_traded_or_asked() -> None:
    ctx = _table(4, (), TEAM)
    ctx.characters["p1"].stats["gold"] = 5
    script = Scripted()
    ctx.inputs = script
    verbs.trade(ctx)
    ctx.fire("turn_start", ctx.characters["p1"])
    assert not [c for c in script.asked if "trade" in c.point] and ctx.characters["p1"].stats["gold"] == 5


class NeverConcedes(SensibleBot):
    def choose(self, view: View, options: Sequence[Any]) -> int:
        if "concession" in view.point:
            return list(options).index(False)
        return super().choose(view, options)


def test_either_partners_win_counts_for_both() -> None:
    checked = 0
    for seed in range(6):
        result = play_game(rules("prophecy", TEAM), ["p1", "p2", "p3", "p4"], variants=("team_game",), seed=seed,
                           default_bot=NeverConcedes(seed), turn_cap=600)
        assert result.teams == [["p1", "p3"], ["p2", "p4"]]
        if result.capped:
            continue
        if " by apocalypse)" in result.reason:  # the final battle ran out of chance cards: the most artefacts win
            counts = dict(part.split(" ") for part in result.reason.split("artefact: ", 1)[1].split(";")[0].split(", "))
            leaders = {p for p, n in counts.items() if int(n) == max(int(v) for v in counts.values())}
            sides = [t for t in result.teams if leaders & set(t)]  # partners tied win together, rivals tied: nobody
            assert result.winners == (sides[0] if len(sides) == 1 else []), result.reason
        else:
            artefacts = result.reason.split("(", 1)[1].split(" by ", 1)[0]  # who owned four artefacts
            team = next(t for t in result.teams if artefacts in t)
            assert result.winners == team, (seed, result.reason)
            assert "the winner's team wins with it" in result.reason
        checked += 1
    assert checked >= 3


def test_a_team_far_behind_may_concede_and_the_other_team_wins() -> None:
    ctx = _table(4, ("team_game",), TEAM)
    p1 = ctx.characters["p1"]
    ctx.characters["p2"].cards.append("artefact_3")
    script = Scripted(choices={"team_game_concession#1": True})
    ctx.inputs = script
    ctx.fire("turn_start", p1)  # one artefact behind: not far enough
    assert ctx.play is not None and not ctx.play.game_over
    assert not [c for c in script.asked if "concession" in c.point]
    ctx.characters["p4"].cards.append("artefact_4")  # two behind (the stand-in): p1 is offered to concede
    ctx.fire("turn_start", p1)
    assert ctx.play.game_over and ctx.play.winners == ["p2", "p4"]
    assert ("p1", "concede", ("p1", "p3")) in ctx.log


def test_with_three_teams_nobody_is_offered_to_concede_and_the_game_goes_on() -> None:
    """The seed advises conceding when two teams play (with a third one, 'when two fight, the third laughs')."""
    for size, offered in ((3, True), (2, False)):  # six players: two teams of three, or three pairs
        ctx = _table(6, ("team_game",), TEAM)
        verbs.form_teams(ctx, size=size)
        teams = _marks(ctx)["teams"]
        assert len(set(teams.values())) == 6 // size and verbs.teams(ctx, range=(6 // size, 6 // size))
        rivals = [p for p in ctx.play.order if teams[p] != teams["p1"]]
        for p, card in zip(rivals, ("artefact_3", "artefact_4", "artefact_5", "mirror_shield"), strict=False):
            ctx.characters[p].cards.append(card)  # every other team two artefacts ahead of p1's
        script = Scripted(choices={"team_game_concession#1": True})
        ctx.inputs = script
        ctx.fire("turn_start", ctx.characters["p1"])
        assert bool([c for c in script.asked if "concession" in c.point]) is offered
        assert ctx.play.game_over is offered, size
        if offered:
            assert sorted(ctx.play.winners) == sorted(rivals)
    games = 0
    for seed in range(3):
        result = play_game(rules("prophecy", TEAM), [f"p{i}" for i in range(1, 7)], variants=("team_game",),
                           seed=seed, keep_log=True, turn_cap=900)
        if len(result.teams) != 3:
            continue
        games += 1
        assert not any(e[1] == "concede" for e in result.log)
        if not result.capped and result.winners:
            assert result.winners in result.teams  # one team wins, never two together
    assert games


def test_six_players_without_the_team_game_are_refused_with_the_reason(capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(["play", "--game", "prophecy", "--players", "6", "--seed", "1"])
    err = capsys.readouterr().err
    assert code == 2 and "traceback" not in err.lower()
    assert "prophecy is played by 2 to 5 players (its set-up's player_count), not 6" in err


def test_six_players_play_the_team_game_with_a_second_box_of_professions() -> None:
    ctx = _table(6, ("team_game",), TEAM)
    for p in ctx.play.order:  # one profession each, from a deck of every profession twice
        assert sum(1 for c in ctx.characters[p].cards if ctx.rules.entity(c).is_a("profession")) == 1
    assert ("table", "add_copies", "profession_cards", 1) in ctx.log
    assert any("second box" in n for n in ctx.provisional)
    assert len(set(_marks(ctx)["teams"].values())) in (2, 3)
    result = play_game(rules("prophecy", TEAM), [f"p{i}" for i in range(1, 7)], variants=("team_game",), seed=1)
    assert result.winners and not result.capped


def test_play_and_simulate_report_the_teams(capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(["play", "--game", "prophecy", "--players", "4", "--variant", "team_game", "--seed", "2",
                     "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["teams"] == [["p1", "p3"], ["p2", "p4"]]
    assert data["winners"] in data["teams"]
    assert any(e[1] == "trade" for e in data["log"])
    code = cli.main(["simulate", "--game", "prophecy", "--players", "4", "--variant", "team_game", "--games", "4",
                     "--json", "--workers", "1"])
    [cell] = json.loads(capsys.readouterr().out)["cells"]
    assert code == 0 and [t["team"] for t in cell["teams"]] == ["p1+p3", "p2+p4"]
    wins = {h["hero"]: h["wins"] for h in cell["heroes"]}
    assert wins["p1"] == wins["p3"] == cell["teams"][0]["wins"]  # a team's win is each partner's
    assert sum(t["wins"] for t in cell["teams"]) == cell["games"] - cell["no_winner"]


# ---- the Dragonslayer variant ---------------------------------------------------------------------------


def test_dragonslayer_setup_puts_the_queen_in_the_lake_without_hearts_or_artefacts() -> None:
    ctx = _table(2, ("dragonslayer",), REALM)
    zones = _zones(ctx)
    assert zones["fire_lake"] == ["dragon_queen"]
    spheres = _marks(ctx)["sphere_places"]
    assert all(len(zones[s]) == 1 and ctx.rules.entity(zones[s][0]).is_a("guardian") for s in spheres)


def test_the_first_to_beat_the_lake_monster_wins_and_the_lake_adds_one() -> None:
    ctx = _table(2, ("dragonslayer",), REALM)
    p1 = ctx.characters["p1"]
    p1.stats["strength"] = 5
    _marks(ctx).update({"board:p1": "dragon_realm_board", "path:p1": ("middle_path", 4), "at:p1": "middle_path#4"})
    ctx.inputs = Scripted(dice=[3, 1])  # 3 + 5 = 8 against the Queen: 7 (a stand-in) + 1 (the lake) + 1
    verbs.advance(ctx)
    [fight] = [e for e in ctx.log if e[1] == "fight"]
    assert fight[2] == "dragon_queen" and fight[5:] == (8, 9, "loss")
    assert ctx.play is not None and not ctx.play.game_over and _zones(ctx)["fire_lake"] == ["dragon_queen"]
    assert any(n.startswith("dragon_queen strength: stand-in") for n in ctx.provisional)
    ctx.play.turn_over = False
    _marks(ctx).update({"board:p1": "dragon_realm_board", "path:p1": ("middle_path", 4), "at:p1": "middle_path#4"})
    ctx.inputs = Scripted(dice=[5, 1])  # 10 against 9: the Queen is beaten, p1 wins at once
    verbs.advance(ctx)
    assert ctx.play.game_over and ctx.play.winners == ["p1"] and ctx.play.end_reason == "p1:fire_lake"
    assert _zones(ctx)["fire_lake"] == [] and ("table", "won_by_defeat", "p1", "fire_lake") in ctx.log


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_dragonslayer_games_end_by_the_lake(seed: int) -> None:
    result = play_game(rules("prophecy", REALM), ["p1", "p2"], variants=("dragonslayer",), seed=seed)
    assert not result.capped and len(result.winners) == 1, result.message
    assert result.reason.startswith(f"the game ended ({result.winners[0]} by fire_lake)")
    assert any(n.startswith("dragon_queen strength") for n in result.provisional)


# ---- where a character thrown out of the realm lands ---------------------------------------------------


def test_a_beaten_character_lands_beside_the_gates_sphere() -> None:
    ctx = _table(2, (), REALM)
    gate = next(p for p in _marks(ctx)["sphere_places"] if "dragon_realm_gate" in _zones(ctx)[p])
    p1 = ctx.characters["p1"]
    p1.stats["gold"] = 3
    for field in ("middle_path#1", "middle_path#2"):  # a scene we know: an empty first field, a drake on the next
        _zones(ctx)["removed"].extend(_zones(ctx)[field])
        _zones(ctx)[field].clear()
    _zones(ctx)["middle_path#2"].append("realm_drake")
    _zones(ctx)["removed"].remove("realm_drake")
    ctx.inputs = Scripted(choices={"attack_sphere": gate, "dragon_realm_gate#*": "enter", "path": "middle_path"})
    verbs.attack_sphere(ctx)  # the Gate is revealed and p1 enters the realm
    assert verbs.on_board(ctx, board="dragon_realm_board") and _marks(ctx)["gate:dragon_realm_board"] == gate
    ctx.inputs = Scripted(dice=[1, 6])
    verbs.advance(ctx)  # beaten by the drake: thrown back to the main board, beside the Gate's sphere
    assert not verbs.on_board(ctx, board="dragon_realm_board") and _marks(ctx)["beside:p1"] == gate
    assert ("p1", "lands_beside", gate) in ctx.log
    assert ("p1", "space_cards_inactive", f"beside:{gate}") in ctx.log  # that space's cards leave it alone
