"""Prophecy plays whole games on the generic engine (issue 9.5): characters dealt by the content's draft, the
stand-in main-board turn, and the Dragon Realm's rules from the seed (the Gate, the paths, the hearts, the fire
lake's guardian, leaving as if beaten by a monster, the end by artefacts). Invariants hold over many seeds; each
realm rule is exercised on a table set up by the content and checked by the state it changes."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest
from cardc import cli
from cardc.backends.python.runtime.cardc_runtime import Scripted, verbs
from cardc.backends.python.runtime.cardc_runtime.context import Context
from cardc.backends.python.runtime.cardc_runtime.engine import play_game
from cardc.backends.python.runtime.cardc_runtime.table_verbs import _limits
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_rules_support import prophecy_table, rules
from test_rules_support import table_marks as _marks
from test_rules_support import table_zones as _zones

REALM = ("dragon_realm",)
EVERYTHING = ("dragon_realm", "ancient_races", "base_additions")
SETUPS = [(), REALM, EVERYTHING]


# ---- whole games --------------------------------------------------------------------------------------


def _places(ctx: Context) -> Counter[str]:
    """Where every card is: the zones (face up is a mark, not a place), the characters, cards left behind."""
    out: Counter[str] = Counter()
    assert ctx.play is not None
    for name, zone in ctx.play.zones.items():
        if name != "face_up":
            out.update(zone)
    for c in ctx.characters.values():
        out.update(c.cards)
    for key, cards in ctx.facts.get("marks", {}).items():
        if key.startswith("left:"):
            out.update(cards)
    return out


def _check(ctx: Context, who: str) -> None:
    """The invariants after a turn: lives and stones in bounds, ability and item limits kept, every card of a
    dealt deck in exactly one place (as many as its copies)."""
    assert ctx.play is not None
    for c in ctx.characters.values():
        assert 0 <= c.lives <= c.max_lives, (c.id, c.lives, c.max_lives)
        for stat, value in c.stats.items():
            top = c.max_stats.get(stat)
            assert value >= 0 and (top is None or value <= top), (c.id, stat, value, top)
        limits = _limits(ctx, c)
        assert set(limits) == {"ability", "item"}
        for slot, most in limits.items():
            owned = [x for x in c.cards
                     if ctx.rules.entity(x).is_a(slot) or ctx.rules.entity(x).attr("counts_as") == slot]
            assert len(owned) <= most, (c.id, slot, owned, most)
        assert c.cards.count("dragon_heart") <= 1
    places = _places(ctx)
    dealt = {name for name in ctx.play.zones if (e := ctx.rules.get(name)) is not None and e.is_a("deck")}
    for e in ctx.rules.entities.values():
        copies = e.copies or 1
        if e.attr("deck") in dealt:
            assert places[e.id] == copies, (e.id, places[e.id], copies)
        else:
            assert places[e.id] <= copies, (e.id, places[e.id])


def _game(expansions: tuple[str, ...], players: int, seed: int, **kw: Any) -> Any:
    return play_game(rules("prophecy", expansions), [f"p{i}" for i in range(1, players + 1)], seed=seed,
                     on_turn=_check, **kw)


@pytest.mark.parametrize("expansions", SETUPS)
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_games_play_to_an_end_and_a_winner(expansions: tuple[str, ...], seed: int) -> None:
    result = _game(expansions, 2 + seed % 2, seed, keep_log=True)
    assert not result.capped and (len(result.winners) == 1 or " by apocalypse)" in result.reason), result.message
    winner = result.winners[0]
    last = [e for e in result.log if e[1] == "winner"][-1]
    owned = dict(last[3])
    if " by apocalypse)" in result.reason:  # the final battle ran out of chance cards (a provisional end)
        assert any(e[1] == "final_battle" for e in result.log) and any(e[1] == "deck_empty" for e in result.log)
        assert owned[winner] == max(owned.values())  # the most artefacts
    else:
        assert result.reason.startswith(f"the game ended ({winner} by artefacts)")
        assert owned[winner] >= 4  # four of the five artefacts (base-game-facts.md#2.1)
    assert any("fight formula" in n for n in result.provisional)  # what the game rested on is listed
    if "dragon_realm" in expansions:  # the game cannot end before the realm's artefact has an owner
        taken = [e for e in result.log if e[1] == "take_card" and e[2] == "dragon_heart"]
        assert taken and any(e[1] == "enter_field" for e in result.log)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), players=st.integers(2, 3), setup=st.sampled_from(SETUPS))
def test_invariants_hold_in_random_games(seed: int, players: int, setup: tuple[str, ...]) -> None:
    result = _game(setup, players, seed, turn_cap=400)
    assert result.winners or (result.capped and "stopped after 400 turns" in result.message)


def test_the_same_seed_plays_the_same_game() -> None:
    a = _game(REALM, 2, 5, keep_log=True)
    b = _game(REALM, 2, 5, keep_log=True)
    assert a.log == b.log and a.as_json() == b.as_json()
    c = _game(REALM, 2, 6, keep_log=True)
    assert c.log != a.log


def test_too_many_players_for_the_profession_deck_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(["play", "--game", "prophecy", "--players", "6", "--seed", "1"])  # 10 professions, one box
    err = capsys.readouterr().err
    assert code == 2 and "prophecy is played by 2 to 5 players (its set-up's player_count), not 6" in err
    assert "traceback" not in err.lower()


PROFESSIONS = ("paladin", "ranger", "scout", "mystic", "enchanter", "illusionist",
               "profession_7", "profession_8", "profession_9", "profession_10")


@pytest.mark.parametrize("setup", [(), ("ancient_races", "base_additions", "dragon_realm")])
def test_five_players_are_dealt_two_of_the_ten_professions_each_and_play(setup: tuple[str, ...]) -> None:
    """Base Prophecy is for 2-5 players and its deck holds ten profession cards (base-game-facts.md#2.1): five
    players are dealt all ten, keep one, pass one, twice, and each settles on one profession (and a race)."""
    seats = [f"p{i}" for i in range(1, 6)]
    ctx = prophecy_table(players=5, expansions=setup)
    assert ("table", "draft", "profession_cards", 2, 2) in ctx.log
    mine = [[c for c in ctx.characters[p].cards if ctx.rules.entity(c).is_a("profession")] for p in seats]
    assert all(len(m) == 1 for m in mine) and len({m[0] for m in mine}) == 5
    out = [c for c in _zones(ctx)["removed"] if ctx.rules.entity(c).is_a("profession")]
    assert sorted([m[0] for m in mine] + out) == sorted(PROFESSIONS)  # all ten dealt, five kept
    assert not _zones(ctx)["profession_cards"]
    assert not any("dealt as far as it went" in n for n in ctx.provisional)
    for placeholder in {m[0] for m in mine} & set(PROFESSIONS[6:]):  # their stones are stand-ins: listed
        assert any(n.startswith(f"{placeholder}.strength") for n in ctx.provisional), placeholder
    if "ancient_races" in setup:
        assert all(sum(1 for c in ctx.characters[p].cards if ctx.rules.entity(c).attr("race")) == 1 for p in seats)
    finished = 0
    for seed in range(2):
        result = _game(setup, 5, seed, turn_cap=600)
        assert result.heroes == seats
        finished += bool(result.winners)
    assert finished


def test_play_tells_the_game_in_czech_and_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(["play", "--game", "prophecy", "--players", "2", "--seed", "1", "--expansion", "dragon_realm"])
    out = capsys.readouterr().out
    assert code == 0 and "--- turn 1: p1 ---" in out or "--- turn 1: p2 ---" in out
    assert "Winner: " in out and "Provisional values this game rested on:" in out
    assert "- lesser_guardian strength: stand-in for play" in out
    code = cli.main(["play", "--game", "prophecy", "--players", "2", "--seed", "1", "--expansion", "dragon_realm",
                     "--lang", "cs"])
    cs = capsys.readouterr().out
    assert code == 0 and "Vítěz: " in cs and "Předběžné hodnoty" in cs and "Dračí říše" in cs
    code = cli.main(["play", "--game", "prophecy", "--players", "2", "--seed", "1", "--expansion", "dragon_realm",
                     "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["winners"] and not data["capped"] and data["heroes"] == ["p1", "p2"]
    assert "prophecy.dragon_realm" in data["expansions"]
    assert any("stand-in" in n for n in data["provisional"])
    characters = [e for e in data["log"] if e[1] == "character"]
    assert [e[0] for e in characters] == ["p1", "p2"]
    assert all(data_ok for data_ok in (e[2] in PROFESSIONS for e in characters))


def test_simulate_plays_prophecy(capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(["simulate", "--game", "prophecy", "--games", "4", "--expansion", "dragon_realm", "--json",
                     "--workers", "1"])
    [cell] = json.loads(capsys.readouterr().out)["cells"]
    assert code == 0 and cell["games"] == 4 and cell["no_winner"] == 0
    assert {h["hero"] for h in cell["heroes"]} == {"p1", "p2"}  # the seats: the set-up deals the characters
    assert sum(h["wins"] for h in cell["heroes"]) == 4


# ---- the Dragon Realm's rules, on a table the content set up ---------------------------------------------


def _table(seed: int = 0, players: int = 2, expansions: tuple[str, ...] = REALM) -> Context:
    """A table after the content's set-up (draft, spheres, realm board laid out), p1 on turn and acting."""
    return prophecy_table(players=players, expansions=expansions, seed=seed)


def _gate_sphere(ctx: Context) -> str:
    return next(p for p in _marks(ctx)["sphere_places"] if "dragon_realm_gate" in _zones(ctx)[p])


def _stand(ctx: Context, who: str, path: str, index: int) -> None:
    _marks(ctx)[f"board:{who}"] = "dragon_realm_board"
    _marks(ctx)[f"path:{who}"] = (path, index)
    _marks(ctx)[f"at:{who}"] = f"{path}#{index}"


def _clear(ctx: Context, field: str) -> list[str]:
    """Take the cards off a field (to the removed pile), so that a scripted scene knows what lies there."""
    cards = list(_zones(ctx)[field])
    _zones(ctx)["removed"].extend(cards)
    _zones(ctx)[field].clear()
    return cards


def test_setup_lays_the_realm_out_as_the_seed_says() -> None:
    ctx = _table(players=3)
    zones = _zones(ctx)
    assert zones["fire_lake"] == ["dragon_heart"] * 3  # as many hearts as players, in the lake
    spheres = _marks(ctx)["sphere_places"]
    assert len(spheres) == 5 and all(len(zones[s]) == 3 for s in spheres)  # artefact, greater, lesser on top
    assert sum(zones[s][-1] == "dragon_realm_gate" for s in spheres) == 1  # the Gate is one of the five
    assert all(ctx.rules.entity(zones[s][0]).is_a("artefact") for s in spheres)
    for path, length in (("middle_path", 4), ("left_path", 5), ("right_path", 6)):
        shades = [_marks(ctx)[f"shade:{path}#{i}"] for i in range(1, length + 1)]
        for i, shade in enumerate(shades, 1):
            sides = [ctx.rules.entity(c).attr("side") for c in zones[f"{path}#{i}"]]
            assert sides == {"light": ["positive"], "dark": ["negative"], "split": ["positive", "negative"]}[shade]
    assert len(zones["removed"]) >= 6  # the three spare light and three spare dark cards, unseen


def test_attacking_the_gate_moves_its_cards_to_the_lake_and_entering_costs_three_gold() -> None:
    ctx = _table()
    gate = _gate_sphere(ctx)
    beneath = _zones(ctx)[gate][:-1]
    assert [ctx.rules.entity(c).kind for c in beneath] == ["artefact", "guardian"]
    lake = list(_zones(ctx)["fire_lake"])
    first = _clear(ctx, "middle_path#1")
    p1 = ctx.characters["p1"]
    p1.stats["gold"] = 4
    ctx.inputs = Scripted(choices={"attack_sphere": gate, "dragon_realm_gate#*": "enter", "path": "middle_path"})
    verbs.attack_sphere(ctx)
    assert _zones(ctx)[gate] == ["dragon_realm_gate"]  # the Gate stays in its sphere ...
    assert _zones(ctx)["fire_lake"] == lake + beneath  # ... the greater guardian and artefact move onto the hearts
    assert p1.stats["gold"] == 1 and verbs.on_board(ctx, board="dragon_realm_board")
    assert _marks(ctx)["at:p1"] == "middle_path#1" and first  # on the path's first field, which held a card
    ctx.actor = ctx.characters["p2"]
    ctx.characters["p2"].stats["gold"] = 2
    ctx.inputs = Scripted(choices={"attack_sphere": gate, "path": "middle_path"})
    verbs.attack_sphere(ctx)  # too little gold: the Gate is offered, nobody enters
    assert ctx.characters["p2"].stats["gold"] == 2 and not verbs.on_board(ctx, board="dragon_realm_board")


def test_a_character_beaten_by_a_realm_monster_is_thrown_back_and_its_turn_ends() -> None:
    ctx = _table()
    _clear(ctx, "middle_path#2")
    _zones(ctx)["middle_path#2"].append("realm_drake")  # strength 5 (a stand-in)
    _zones(ctx)["removed"].remove("realm_drake")
    _stand(ctx, "p1", "middle_path", 1)
    p1 = ctx.characters["p1"]
    lives = p1.lives
    ctx.inputs = Scripted(dice=[1, 6])  # p1 rolls 1, the drake 6
    verbs.advance(ctx)
    assert p1.lives == lives - 1  # the usual loss (a stand-in: 1 life) ...
    assert not verbs.on_board(ctx, board="dragon_realm_board")  # ... and thrown back to the main board
    assert ctx.play is not None and ctx.play.turn_over
    assert _zones(ctx)["middle_path#2"] == ["realm_drake"]  # the monster stays for the next one
    # a tie: back to the previous field, the turn ends
    ctx.play.turn_over = False
    _stand(ctx, "p1", "middle_path", 1)
    ctx.inputs = Scripted(dice=[6, 6 + p1.stats["strength"] - 5])
    verbs.advance(ctx)
    assert _marks(ctx)["at:p1"] == "middle_path#1" and ctx.play.turn_over
    # a win: reward and experience, the monster leaves the game, the character stands on its field
    ctx.play.turn_over = False
    exp = p1.stats["experience"]
    ctx.inputs = Scripted(dice=[6, 1])
    verbs.advance(ctx)
    assert _marks(ctx)["at:p1"] == "middle_path#2" and _zones(ctx)["middle_path#2"] == []
    assert p1.stats["experience"] == exp + 2 and "realm_drake" in _zones(ctx)["removed"]


def test_the_lake_guardian_gives_the_artefact_and_a_heart_and_sends_the_winner_home() -> None:
    ctx = _table()
    gate = _gate_sphere(ctx)
    artefact, guardian = _zones(ctx)[gate][:2]
    _zones(ctx)[gate][:2] = []
    _zones(ctx)["fire_lake"].extend([artefact, guardian])
    _stand(ctx, "p1", "middle_path", 4)  # the middle path's last field
    p1 = ctx.characters["p1"]
    p1.lives = 1
    ctx.inputs = Scripted(dice=[1, 6])  # lost: the guardian stays, p1 stays on the last field, turn over
    verbs.advance(ctx)
    assert _marks(ctx)["at:p1"] == "middle_path#4" and guardian in _zones(ctx)["fire_lake"]
    assert ctx.play is not None and ctx.play.turn_over and p1.lives == 0
    ctx.play.turn_over = False
    p1.lives = 1
    ctx.inputs = Scripted(dice=[6, 1])
    verbs.advance(ctx)
    assert artefact in p1.cards and p1.cards.count("dragon_heart") == 1
    assert _marks(ctx)["artefact_from"][artefact] == "fire_lake"
    assert p1.lives == p1.max_lives  # the heart refills every life
    assert not verbs.on_board(ctx, board="dragon_realm_board") and ctx.play.turn_over
    assert _zones(ctx)["fire_lake"] == ["dragon_heart"]  # one heart left for the other player
    # a later arrival takes a heart too and goes home; nobody takes a second one
    for who in ("p2", "p1"):
        ctx.actor = ctx.characters[who]
        _stand(ctx, who, "left_path", 5)
        verbs.advance(ctx)
        assert ctx.characters[who].cards.count("dragon_heart") == 1
        assert not verbs.on_board(ctx, board="dragon_realm_board")
    assert _zones(ctx)["fire_lake"] == []


def test_the_end_needs_the_realms_artefact_and_the_hearts_artefacts() -> None:
    ctx = _table()
    zones = _zones(ctx)
    gate = _gate_sphere(ctx)
    realm_artefact = zones[gate][0]
    others = [zones[s][0] for s in _marks(ctx)["sphere_places"] if s != gate]
    p1, p2 = ctx.characters["p1"], ctx.characters["p2"]
    for s in _marks(ctx)["sphere_places"]:
        if s != gate:
            zones[s].pop(0)
    p1.cards.extend(others)  # four artefacts, but the realm's has no owner yet
    assert ctx.play is not None
    verbs.check_victory(ctx, count=4)
    assert not ctx.play.game_over  # the last artefact rule
    zones[gate].pop(0)
    p2.cards.extend([realm_artefact, "dragon_heart"])
    zones["fire_lake"].remove("dragon_heart")
    _marks(ctx).setdefault("artefact_from", {})[realm_artefact] = "fire_lake"
    verbs.check_victory(ctx, count=4)
    assert not ctx.play.game_over  # a heart owner still holds an artefact
    assert ("table", "final_battle") in ctx.log  # every artefact has an owner: the final battle begins
    assert "dragon_realm_gate" not in zones[gate] and "dragon_realm_gate" in zones["removed"]  # the Gate goes
    ctx.inputs = Scripted(dice=[6, 1], choices={"attack_for_artefact": "p2", "seize_artefact": realm_artefact})
    ctx.actor = p1
    verbs.attack_for_artefact(ctx)  # p1 wins the fight and takes the realm's artefact
    assert realm_artefact in p1.cards and realm_artefact not in p2.cards
    verbs.check_victory(ctx, count=4)
    assert ctx.play.game_over and ctx.play.winners == ["p1"]


def test_a_discarded_realm_ability_leaves_the_game_and_a_second_copy_stays() -> None:
    """A realm ability discarded leaves the game (its `card_discarded` effect); a character holding two copies
    keeps the other one. (A game of seed 356, three players, all expansions, lost a copy here: the discard
    took a second copy from the character after the effect had removed the first.)"""
    from cardc.backends.python.runtime.cardc_runtime.table_verbs import _discard

    ctx = prophecy_table(expansions=EVERYTHING)
    p1 = ctx.characters["p1"]
    for _ in range(2):  # two copies from wherever the set-up put them, into p1's hand
        zone = next(z for z in _zones(ctx).values() if "dragon_lore" in z)
        zone.remove("dragon_lore")
        p1.cards.append("dragon_lore")
    before = _places(ctx)["dragon_lore"]
    removed = _zones(ctx)["removed"].count("dragon_lore")
    _discard(ctx, p1, "dragon_lore")
    assert p1.cards.count("dragon_lore") == 1
    assert _zones(ctx)["removed"].count("dragon_lore") == removed + 1
    assert _places(ctx)["dragon_lore"] == before  # every copy still somewhere
