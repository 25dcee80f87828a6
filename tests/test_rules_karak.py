"""Karak through the generated rule modules: the seeds' worked examples, and for every hero ability, item
and variant a result that changes when that effect is stripped from the content."""

from __future__ import annotations

from fractions import Fraction

import pytest
from cardc.backends.python.runtime.cardc_runtime import Context, Scripted
from cardc.backends.python.runtime.cardc_runtime.fight import (
    LoadoutError,
    chambers_revealed,
    duel,
    enter_tile,
    fight_monster,
    make_hero,
    use_item,
)
from cardc.backends.python.runtime.cardc_runtime.fight_odds import (
    curse_odds,
    duel_odds,
    duel_outcome_odds,
    monster_enumerator,
    monster_odds,
)
from test_rules_support import rules, stripped

DUEL = frozenset({"critical_hits", "hero_duel"})


def odds(r, hero: str, monster: str, variants=(), facts=None, **loadout):  # type: ignore[no-untyped-def]
    return monster_odds(r, make_hero(r, hero, **loadout), monster, variants, facts)


def triple(o) -> tuple[Fraction, Fraction, Fraction]:  # type: ignore[no-untyped-def]
    return (o.win, o.tie, o.loss)


# ---- the house rules' worked duel --------------------------------------------------------------


def _seed_duel(victorius_spell: int, active: str = "victorius"):  # type: ignore[no-untyped-def]
    r = rules()
    horan = make_hero(r, "horan", weapons=("sword", "battle_axe"), spells=("magic_missile", "magic_missile"))
    victorius = make_hero(r, "victorius", weapons=("sword", "sword"), spells=("magic_missile", "healing_portal"))
    script = Scripted(dice=[1, 2, 4, 4, 1, 3, 4], choices={
        "horan:double_attack#1": True, "horan:spell*:magic_missile": 2,
        "victorius:combat_training#1": True, "victorius:spell*:magic_missile": victorius_spell})
    ctx = Context(r, script, DUEL, {"fight_by": "hero_duel", "active": active})
    return duel(ctx, horan, victorius), ctx


def test_seed_duel_horan_16_beats_victorius_12() -> None:
    report, ctx = _seed_duel(victorius_spell=1)
    a, d = report.attacker, report.defender
    assert (a.first_dice, sorted(a.dice), a.total) == ((1, 2), [4, 4], 16)  # 4+4, +1 critical, +2+3, +1+1
    assert (d.first_dice, sorted(d.dice), d.total) == ((1, 3), [3, 4], 12)  # 1 re-rolled to 4, +2+2, +1
    assert report.outcome == "win" and a.margin == 4
    # Ahead by less than 5: the loser (owner) picks the item; the loser loses a life and flees 5 steps.
    assert ("horan", "offered", "take_item", "loser", "owner", "on_tile") in ctx.log
    assert ("victorius", "flee", 5) in ctx.log
    assert d.who.lives == 4 and a.who.lives == 5
    assert a.who.spells == [] and d.who.spells == ["healing_portal"]


def test_seed_duel_ends_only_the_turn_of_a_loser_on_turn() -> None:
    """Victorius stepped onto Horan's tile (his turn) and lost: his turn ends. Had it been Horan's turn,
    Victorius (defending, not on turn) would flee all the same but have no turn to end."""
    _, on_turn = _seed_duel(victorius_spell=1, active="victorius")
    assert ("victorius", "end_turn") in on_turn.log
    _, off_turn = _seed_duel(victorius_spell=1, active="horan")
    assert ("victorius", "flee", 5) in off_turn.log
    assert not [e for e in off_turn.log if e[1:2] == ("end_turn",)]


def test_seed_duel_without_victorius_missile_lets_horan_pick() -> None:
    report, ctx = _seed_duel(victorius_spell=0)
    assert (report.attacker.total, report.defender.total, report.attacker.margin) == (16, 11, 5)
    assert ("horan", "offered", "take_item", "loser", "self", "on_tile") in ctx.log


# ---- the Lord of Karak -------------------------------------------------------------------------


def _table(r, heroes: dict[str, dict]):  # type: ignore[no-untyped-def]
    chars = {h: make_hero(r, h, **kit) for h, kit in heroes.items()}
    return chars


def test_lord_example_1_the_only_hero_without_treasure_is_possessed() -> None:
    r = rules()
    chars = _table(r, {"argentus": {"weapons": ("sword", "battle_axe")}, "horan": {"treasures": ("treasure",)},
                       "aderyn": {"treasures": ("treasure",)}})
    ctx = Context(r, Scripted(), frozenset({"lord_of_karak"}), {"players": 3}, chars)
    chambers_revealed(ctx, 5)
    assert ctx.lord == "argentus"
    assert ("table", "possessed", "argentus", "fewest treasures") in ctx.log
    lord = chars["argentus"]
    assert lord.possessed and "lord_of_karak_sheet" in lord.cards
    assert "double_attack" in lord.abilities and "backstab" in lord.abilities  # type: ignore[operator]
    assert "magic_affinity" not in lord.abilities  # type: ignore[operator]  # 3 players: own ones lost


def test_lord_example_2_ties_go_to_the_dice() -> None:
    r = rules()
    chars = _table(r, {"aderyn": {"weapons": ("daggers", "daggers"), "keys": ("key",)},
                       "valduk": {"weapons": ("sword",), "spells": ("magic_missile",)},
                       "horan": {"treasures": ("treasure",)}, "taia": {"treasures": ("treasure",)}})
    ctx = Context(r, Scripted(dice=[2, 2, 5, 1]), frozenset({"lord_of_karak"}), {"players": 4}, chars)
    chambers_revealed(ctx, 5)
    assert ctx.lord == "valduk"
    assert ("table", "lord_roll", (("aderyn", 2), ("valduk", 2))) in ctx.log
    assert ("table", "possessed", "valduk", "lowest die roll") in ctx.log


def _lord_turn(r):  # type: ignore[no-untyped-def]
    chars = _table(r, {"taia": {"treasures": ("treasure",)}, "aderyn": {"treasures": ("treasure",)},
                       "horan": {"treasures": ("treasure",), "weapons": ("sword",)}, "valduk": {}})
    ctx = Context(r, Scripted(dice=[1, 1, 3, 5], choices={"valduk:double_attack#1": True}),
                  frozenset({"lord_of_karak"}), {"players": 4}, chars)
    chambers_revealed(ctx, 5)
    return ctx, fight_monster(ctx, chars["valduk"], "skeleton_turnkey")


def test_lord_example_3_rerolls_and_wins_the_tie_with_borrowed_abilities() -> None:
    ctx, report = _lord_turn(rules())
    assert ctx.lord == "valduk"
    assert report.first_dice == (1, 1) and report.total == 8 == report.against
    assert report.outcome == "win"  # the thief's tie win
    assert ("valduk", "reward", "key") in report.log
    assert "berserk" not in ctx.characters["valduk"].abilities  # type: ignore[operator]


def test_lord_without_gained_abilities_only_ties() -> None:
    ctx, report = _lord_turn(stripped("lord_of_karak", 2))
    assert report.total == 2 and report.outcome == "loss"  # no re-roll: 1+1 against 8


def test_lord_variant_off_possesses_nobody() -> None:
    r = rules()
    ctx = Context(r, Scripted(), frozenset(), {"players": 2},
                  _table(r, {"argentus": {}, "horan": {"treasures": ("treasure",)}}))
    chambers_revealed(ctx, 5)
    assert ctx.lord is None


def test_possession_lifts_the_curse_and_its_ban_on_abilities() -> None:
    r = rules()
    chars = _table(r, {"taia": {"treasures": ("treasure",)}, "aderyn": {"treasures": ("treasure",)},
                       "horan": {"treasures": ("treasure",)}, "valduk": {"cursed": True}})
    ctx = Context(r, Scripted(dice=[1, 1, 3, 5], choices={"valduk:double_attack#1": True}),
                  frozenset({"lord_of_karak"}), {"players": 4}, chars)
    ctx.fire("always", chars["valduk"])
    assert chars["valduk"].no_abilities  # the curse card switches them off
    chambers_revealed(ctx, 5)
    report = fight_monster(ctx, chars["valduk"], "skeleton_turnkey")
    assert not chars["valduk"].cursed and report.outcome == "win"


def test_lord_keeps_own_abilities_with_two_players() -> None:
    r = rules()
    chars = _table(r, {"argentus": {}, "horan": {"treasures": ("treasure",)}})
    ctx = Context(r, Scripted(), frozenset({"lord_of_karak"}), {"players": 2}, chars)
    chambers_revealed(ctx, 5)
    assert {"magic_affinity", "double_attack"} <= set(chars["argentus"].abilities or ())


# ---- every hero ability that touches a fight ---------------------------------------------------


@pytest.mark.parametrize(("hero", "ability", "monster", "kit", "facts"), [
    ("horan", "double_attack", "skeleton_king", {}, None),
    ("aderyn", "backstab", "giant_rat", {}, None),
    ("xanros", "sacrifice", "skeleton_king", {"weapons": ("sword",)}, None),
    ("victorius", "combat_training", "skeleton_king", {}, None),
    ("taia", "premonition", "skeleton_king", {}, {"first_step": True}),
    ("valduk", "berserk", "skeleton_king", {"lives": 3}, None),
    ("baron_markul", "sword_master", "skeleton_king", {"weapons": ("sword",)}, None),
    ("lady_lorraine", "bear_attack", "skeleton_king", {}, None),
])
def test_ability_changes_the_odds_and_stripping_it_undoes_that(hero, ability, monster, kit, facts) -> None:  # type: ignore[no-untyped-def]
    with_it = odds(rules(), hero, monster, facts=facts, **kit)
    without = odds(stripped(ability), hero, monster, facts=facts, **kit)
    assert with_it.win > without.win
    plain = odds(rules(), "argentus", monster, facts=facts, **{k: v for k, v in kit.items() if k != "weapons"},
                 weapons=kit.get("weapons", ())) if hero not in ("xanros", "valduk") else without
    assert triple(without) == triple(plain)


def test_horan_rerolls_a_tie_against_the_monster() -> None:
    r = rules()
    ctx = Context(r, Scripted(dice=[4, 5, 6, 6], choices={"horan:double_attack#1": True}))
    report = fight_monster(ctx, make_hero(r, "horan"), "skeleton_king")
    assert report.first_dice == (4, 5) and report.dice == (6, 6) and report.outcome == "win"
    enum, _ = monster_enumerator(r, make_hero(r, "horan"), "skeleton_king")
    enum.explore()
    assert enum.decisions[((4, 6),)] is True  # a tie is re-rolled (it can only get better)
    assert enum.decisions[((5, 6),)] is False  # a win is kept


def test_premonition_only_on_the_first_step_or_when_defending() -> None:
    r = rules()
    assert triple(odds(r, "taia", "skeleton_king")) == triple(odds(r, "argentus", "skeleton_king"))
    assert odds(r, "taia", "skeleton_king", facts={"first_step": True}).win > odds(r, "taia", "skeleton_king").win


def test_reincarnation_replaces_unconsciousness() -> None:
    o = odds(rules(), "horan", "dragon", lives=1)
    assert o.loss == 1 and o.lives == {5: Fraction(1)} and "hero:fall_unconscious" not in o.extra
    assert o.extra["hero:heal_full"] == 1
    bare = odds(stripped("reincarnation"), "horan", "dragon", lives=1)
    assert bare.lives == {0: Fraction(1)} and bare.extra["hero:fall_unconscious"] == 1


def test_argentus_keeps_magic_missile_and_regent_frost_fist() -> None:
    def spells_after(r):  # type: ignore[no-untyped-def]
        ctx = Context(r, Scripted(dice=[3, 3], choices={"argentus:spell:magic_missile": 1,
                                                        "argentus:spell:frost_fist": 1}))
        hero = make_hero(r, "argentus", spells=("magic_missile", "frost_fist"))
        fight_monster(ctx, hero, "giant_rat")
        return hero.spells

    assert spells_after(rules()) == ["magic_missile", "frost_fist"]
    assert spells_after(stripped("magic_affinity")) == []


def test_argentus_reuse_costs_nothing() -> None:
    assert odds(rules(), "argentus", "skeleton_king", spells=("magic_missile",)).spent == 0
    assert odds(stripped("magic_affinity"), "argentus", "skeleton_king", spells=("magic_missile",)).spent > 0


def test_xanros_sacrifice_costs_a_life_only_when_it_helps() -> None:
    o = odds(rules(), "xanros", "skeleton_king", weapons=("sword",))
    assert 0 < o.spent < 1 and Fraction(4) in o.lives


def test_hannah_daggers_in_spell_slots() -> None:
    r = rules()
    armed = odds(r, "hannah", "skeleton_king", spells=("daggers", "daggers", "daggers"))
    assert armed.win > odds(r, "hannah", "skeleton_king").win and armed.spent == 0
    with pytest.raises(LoadoutError):
        make_hero(stripped("throwing_daggers"), "hannah", spells=("daggers",))
    with pytest.raises(LoadoutError):
        make_hero(r, "horan", spells=("daggers",))
    cursed = odds(r, "hannah", "skeleton_king", spells=("daggers", "daggers"), cursed=True)
    assert triple(cursed) == triple(odds(r, "hannah", "skeleton_king"))  # frozen in the slots


# ---- items -------------------------------------------------------------------------------------


def test_frost_fist_can_wait_until_after_the_roll() -> None:
    r = rules()
    script = Scripted(dice=[2, 3], choices={"horan:spell_after_roll:frost_fist": 1})
    ctx = Context(r, script)
    report = fight_monster(ctx, make_hero(r, "horan", spells=("frost_fist",)), "giant_rat")
    assert report.total == 7 and report.outcome == "win"
    assert [c.point for c in script.asked] == ["horan:spell:frost_fist", "horan:double_attack#1",
                                               "horan:spell_after_roll:frost_fist"]
    later = odds(r, "aderyn", "giant_rat", spells=("frost_fist",))
    sooner = odds(stripped("frost_fist"), "aderyn", "giant_rat", spells=("frost_fist",))
    assert triple(later) == triple(sooner) and later.spent < sooner.spent


def test_thorn_of_darkness_takes_a_life_and_is_discarded() -> None:
    def use(r, target_lives: int):  # type: ignore[no-untyped-def]
        me = make_hero(r, "aderyn", spells=("thorn_of_darkness",))
        target = make_hero(r, "horan", lives=target_lives)
        ctx = Context(r, Scripted(choices={"aderyn:damage_target": "horan"}), frozenset(), {},
                      {"aderyn": me, "horan": target})
        use_item(ctx, me, "thorn_of_darkness")
        return me, target

    me, target = use(rules(), 3)
    assert target.lives == 2 and me.spells == []
    me, target = use(rules(), 1)  # Horan's reincarnation works as usual
    assert target.lives == 5 and not target.unconscious
    _, target = use(stripped("thorn_of_darkness"), 3)
    assert target.lives == 3


# ---- tiles and the curse ----------------------------------------------------------------------


def test_cursed_chamber_curses_on_one_to_three() -> None:
    r = rules()
    assert curse_odds(r, make_hero(r, "horan"), "cursed_chamber") == Fraction(1, 2)
    assert curse_odds(stripped("cursed_chamber"), make_hero(r, "horan"), "cursed_chamber") == 0
    ctx = Context(r, Scripted(dice=[]))
    cursed = make_hero(r, "horan", cursed=True)
    enter_tile(ctx, cursed, "cursed_chamber")  # no die is rolled for a cursed hero
    assert cursed.cursed


def test_curse_switches_abilities_off() -> None:
    r = rules()
    cursed = odds(r, "horan", "skeleton_king", cursed=True)
    assert triple(cursed) == triple(odds(stripped("double_attack"), "horan", "skeleton_king"))
    assert triple(odds(stripped("curse"), "horan", "skeleton_king", cursed=True)) == triple(
        odds(r, "horan", "skeleton_king"))


# ---- the house-rule variants -------------------------------------------------------------------


def test_critical_hits_change_the_odds() -> None:
    base = odds(rules(), "argentus", "skeleton_king")
    crit = odds(rules(), "argentus", "skeleton_king", variants=("critical_hits",))
    assert triple(crit) != triple(base)
    # a double 6 is worth +2: 12 + 2 beats the fallen (12), which no roll beats without it
    assert odds(rules(), "argentus", "fallen", variants=("critical_hits",)).win == Fraction(1, 36)
    assert odds(rules(), "argentus", "fallen").win == 0
    assert triple(odds(stripped("critical_hits"), "argentus", "skeleton_king", variants=("critical_hits",))) \
        == triple(base)


def test_critical_hits_count_after_abilities() -> None:
    r = rules()
    ctx = Context(r, Scripted(dice=[1, 1]), frozenset({"critical_hits"}))
    report = fight_monster(ctx, make_hero(r, "lady_lorraine"), "giant_rat")
    assert report.total == 14  # 1-1 counts as 6-6, then +2 for a double six


def test_bear_attack_one_and_six_judged_a_double_six_provisionally() -> None:
    """Lady Lorraine's 1 counts as 6 before doubles are judged (provisional): 1 and 6 make a double six."""
    r = rules()
    ctx = Context(r, Scripted(dice=[1, 6]), frozenset({"critical_hits"}))
    report = fight_monster(ctx, make_hero(r, "lady_lorraine"), "giant_rat")
    assert report.total == 14  # 6 + 6, then +2 for a double six
    assert any("counted as 6 makes a double" in note for note in report.provisional)


def test_die_counted_as_rolled_when_doubles_are_judged() -> None:
    """`die_counts_as(in_doubles: false)`: the face counts for the total, not for a double."""
    from cardc.backends.python.runtime.cardc_runtime import verbs
    from cardc.backends.python.runtime.cardc_runtime.context import Fight, Side

    r = rules()
    for in_doubles, double_six in ((True, True), (False, False)):
        ctx = Context(r, Scripted())
        side = Side(make_hero(r, "lady_lorraine"), dice=[1, 6])
        ctx.fight, ctx.actor, ctx.side = Fight("monster", [side]), side.who, side
        verbs.die_counts_as(ctx, 1, 6, in_doubles)
        assert side.faces() == [6, 6]
        assert verbs.double(ctx, (6, 6)) is double_six


def test_stronger_dragon_costs_three_lives() -> None:
    kit = {"weapons": ("sword", "battle_axe")}
    strong = odds(rules(), "argentus", "dragon", variants=("stronger_dragon",), **kit)
    assert strong.lives.get(2, 0) == strong.loss > 0 and strong.lives.get(4, 0) == strong.tie
    plain = odds(stripped("stronger_dragon"), "argentus", "dragon", variants=("stronger_dragon",), **kit)
    assert 2 not in plain.lives and plain.lives.get(4, 0) == plain.loss


def test_hero_duel_loser_flees_five_steps() -> None:
    def flee(r):  # type: ignore[no-untyped-def]
        o = duel_odds(r, make_hero(r, "horan", weapons=("sword",)), make_hero(r, "aderyn", weapons=("sword",)),
                      ("hero_duel",), {"fight_by": "hero_duel"})
        return o.extra.get("defender:flee(5)", Fraction(0)), o

    fled, o = flee(rules())
    assert fled > 0 and o.win + o.tie + o.loss == 1
    assert flee(stripped("hero_duel"))[0] == 0


@pytest.mark.parametrize(("a", "kit_a", "d", "kit_d", "variants", "by"), [
    ("xanros", {"weapons": ("sword",)}, "taia", {"weapons": ("sword",)}, ("hero_duel",), "hero_duel"),
    ("aderyn", {"weapons": ("sword",)}, "argentus", {"weapons": ("daggers",), "spells": ("frost_fist",)}, (),
     "battle_arena"),
    ("lady_lorraine", {"weapons": ("sword",), "spells": ("magic_missile",)}, "aderyn",
     {"weapons": ("daggers",), "spells": ("magic_missile",)}, ("hero_duel", "critical_hits"), "hero_duel"),
])
def test_fast_duel_outcomes_equal_the_full_duel(a, kit_a, d, kit_d, variants, by) -> None:  # type: ignore[no-untyped-def]
    r = rules()
    facts = {"fight_by": by, **({"place": by} if by == "battle_arena" else {})}
    full = duel_odds(r, make_hero(r, a, **kit_a), make_hero(r, d, **kit_d), variants, facts)
    fast = duel_outcome_odds(r, make_hero(r, a, **kit_a), make_hero(r, d, **kit_d), variants, facts)
    assert triple(fast) == triple(full) and 0 < fast.win < 1


def test_duel_policy_defender_answers_the_attackers_total() -> None:
    r = rules()
    a, d = make_hero(r, "xanros", weapons=("sword",)), make_hero(r, "taia", weapons=("sword",))
    o = duel_odds(r, a, d, ("hero_duel",), {"fight_by": "hero_duel"})
    back = duel_odds(r, d, a, ("hero_duel",), {"fight_by": "hero_duel"})
    assert 0 < o.win < 1 and 0 < back.win < 1
    assert o.win < back.loss  # Taia defending gets +1 (premonition): attacking her is worse than being her
    assert o.spent == 1  # not knowing the defender's roll, Xanros always gives the life for +1
