"""Exact fight and duel odds through the game's procedure `fight` and the generated effects.

See `odds.py` for the choice policy."""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import Any

from .context import Character, Context, Fight, Side
from .fight import DuelReport, FightReport, _compare, duel, fight_monster, roll_side
from .inputs import Inputs
from .model import Ruleset
from .odds import Dist, Enumerator, Leaf, Odds, TreeBuilder, certain, evaluate, memo, prob
from .run_state import KEYED

# Logged events that are bookkeeping, not consequences worth a probability of their own.
QUIET = frozenset({"roll", "reroll", "spell_kept", "spell_discarded", "lose_life", "reward", "lord_roll",
                   "fight"})


def _flags(log: Iterable[tuple[Any, ...]], roles: dict[str, str]) -> tuple[str, ...]:
    flags = set()
    for event in log:
        who, verb = event[0], event[1]
        if verb in QUIET or who not in roles:
            continue
        shown = ",".join(str(a) for a in event[2:] if a is not None)
        flags.add(f"{roles[who]}:{verb}" + (f"({shown})" if shown else ""))
    return tuple(sorted(flags))


def _spent(side: Side) -> int:
    return sum(1 for s in side.spells_used if s not in side.keep) + side.lives_spent


def monster_odds(rules: Ruleset, hero: Character, monster: str, variants: Iterable[str] = (),
                 facts: dict[str, Any] | None = None) -> Odds:
    """Win / tie / loss of `hero` against `monster`, every choice made by the default policy."""
    enum, provisional = monster_enumerator(rules, hero, monster, variants, facts)
    return Odds.of(enum.explore(), provisional, enum.runs)


def monster_outcome_odds(rules: Ruleset, hero: Character, monster: str, variants: Iterable[str] = (),
                         facts: dict[str, Any] | None = None) -> Odds:
    """Win / tie / loss of `hero` against `monster` with the provisional notes, as `monster_odds` gives them,
    without the consequences (lives after, extra events): cheaper leaves, the same choices."""
    enum, provisional = monster_enumerator(rules, hero, monster, variants, facts, lean=True)
    dist = enum.explore()
    return Odds.of(dist, provisional | enum.found, enum.runs)


def monster_win(rules: Ruleset, hero: Character, monster: str, variants: Iterable[str] = (),
                facts: dict[str, Any] | None = None) -> Fraction:
    """The exact chance that `hero` beats `monster` (the `win` of `monster_odds`), for a caller that needs
    nothing else: a choice stops at an option that cannot be bettered (see `Enumerator.prune`). Where no paused
    state can be shared (the compiled runtime: `run_state.KEYED` is false) `win_odds` makes the same runs with
    sums in place of distributions."""
    if not KEYED:
        from .win_odds import monster_win as by_sums

        return by_sums(rules, hero, monster, variants, facts)
    enum, _ = monster_enumerator(rules, hero, monster, variants, facts, lean=True)
    enum.prune = True
    return prob(enum.explore(), "win")


def monster_enumerator(rules: Ruleset, hero: Character, monster: str, variants: Iterable[str] = (),
                       facts: dict[str, Any] | None = None, lean: bool = False) -> tuple[Enumerator, set[str]]:
    """The enumerator of a monster fight (its `process` also runs with any other inputs). `lean` leaves
    out what the policy does not weigh (lives after, flags): the same choices, the same win, tie and loss."""
    provisional: set[str] = set()
    on = frozenset(variants)

    def process(inputs: Inputs) -> FightReport:
        ctx = Context(rules, inputs, on, dict(facts or {}))
        report = fight_monster(ctx, hero.copy(), monster)
        provisional.update(ctx.provisional)
        return report

    def value(r: FightReport) -> Dist:
        assert r.side is not None
        flags = _flags(r.log, {hero.id: "hero"})
        return certain(Leaf(r.outcome, r.hero.lives, _spent(r.side), 0, flags))

    def lean_value(r: FightReport) -> Dist:
        assert r.side is not None
        return certain(Leaf(r.outcome, 0, _spent(r.side)))

    if lean:  # the lean value reads no log: paths that pause in equal states share their subtree
        return Enumerator(process, lean_value, hero.id, notes=lambda r: r.provisional), provisional
    return Enumerator(process, value, hero.id), provisional


def duel_odds(rules: Ruleset, attacker: Character, defender: Character, variants: Iterable[str] = (),
              facts: dict[str, Any] | None = None) -> Odds:
    """Win / tie / loss of the attacker. The attacker decides first, not knowing the defender's roll; the
    defender decides knowing the attacker's total. Each maximizes its own chance to win."""
    provisional: set[str] = set()
    on = frozenset(variants)
    roles = {attacker.id: "attacker", defender.id: "defender"}
    if attacker.id == defender.id:
        raise ValueError("a hero cannot duel itself")
    runs = [0]

    def defender_phase(key: Any) -> Dist:
        total, tie_wins, opponent_mod, lives_spent = key

        def process(inputs: Inputs) -> DuelReport:
            ctx = Context(rules, inputs, on, dict(facts or {}))
            a = attacker.copy()
            a.lives -= lives_spent
            rolled = Side(a, total=total, tie_wins=tie_wins, opponent_mod=opponent_mod)
            report = duel(ctx, a, defender.copy(), rolled=rolled)
            provisional.update(ctx.provisional)
            return report

        def value(r: DuelReport) -> Dist:
            flags = _flags(r.log, roles)
            return certain(Leaf(r.outcome, r.attacker.who.lives, 0, _spent(r.defender), flags))

        enum = Enumerator(process, value, attacker.id)
        dist = enum.explore()
        runs[0] += enum.runs
        return dist

    phase2 = memo(defender_phase)

    def process(inputs: Inputs) -> Side:
        ctx = Context(rules, inputs, on, dict(facts or {}))
        a = attacker.copy()
        side = Side(a)
        ctx.fight = Fight("hero", [side, Side(defender.copy(), attacker=False)])
        ctx.characters = {attacker.id: a, defender.id: ctx.fight.sides[1].who}
        roll_side(ctx, side)
        provisional.update(ctx.provisional)
        return side

    def value(side: Side) -> Dist:
        assert side.total is not None
        dist = phase2((side.total, side.tie_wins, side.opponent_mod, side.lives_spent))
        cost = _spent(side)
        return dist.map(lambda leaf: Leaf(leaf.outcome, leaf.lives, cost, leaf.their_cost, leaf.flags))

    enum = Enumerator(process, value, attacker.id)
    dist = enum.explore()
    return Odds.of(dist, provisional, enum.runs + runs[0])


def curse_odds(rules: Ruleset, hero: Character, tile: str, variants: Iterable[str] = ()) -> Fraction:
    """The chance that entering `tile` leaves the hero cursed."""
    from .fight import enter_tile

    def process(inputs: Inputs) -> bool:
        ctx = Context(rules, inputs, frozenset(variants))
        who = hero.copy()
        enter_tile(ctx, who, tile)
        return who.cursed

    enum = Enumerator(process, lambda cursed: certain(Leaf("win" if cursed else "loss")), hero.id)
    return prob(enum.explore(), "win")


def duel_outcome_odds(rules: Ruleset, attacker: Character, defender: Character, variants: Iterable[str] = (),
                      facts: dict[str, Any] | None = None) -> Odds:
    """Win / tie / loss of the attacker in a duel, without the consequences (lives, flights, items) that
    `duel_odds` also reports, and much faster: the defender's decision tree is built once and evaluated
    for each attacker total (the defender decides knowing it), instead of being re-run for each. Neither side's
    enumeration reads the log, so paths that pause in equal states share their subtree (run_state.py)."""
    provisional: set[str] = set()
    on = frozenset(variants)

    def side_process(me: Character, other: Character, attacking: bool) -> Any:
        def process(inputs: Inputs) -> tuple[Side, tuple[str, ...]]:
            ctx = Context(rules, inputs, on, dict(facts or {}))
            mine, theirs = Side(me.copy(), attacker=attacking), Side(other.copy(), attacker=not attacking)
            ctx.fight = Fight("hero", [mine, theirs] if attacking else [theirs, mine])
            ctx.characters = {me.id: mine.who, other.id: theirs.who}
            roll_side(ctx, mine)
            provisional.update(ctx.provisional)
            return mine, tuple(ctx.provisional)
        return process

    def summary(run: tuple[Side, tuple[str, ...]]) -> tuple[int, bool, int, int]:
        side = run[0]
        assert side.total is not None
        return (side.total, side.tie_wins, side.opponent_mod, _spent(side))

    def notes(run: tuple[Side, tuple[str, ...]]) -> tuple[str, ...]:
        return run[1]

    builder = TreeBuilder(side_process(defender, attacker, False), summary, notes=notes)
    defender_tree = builder.tree()

    def against(a: tuple[int, bool, int, int]) -> Dist:
        def value(d: tuple[int, bool, int, int]) -> Dist:
            outcome = _compare(a[0] + d[2], d[0] + a[2], a[1], d[1])
            return certain(Leaf(outcome, 0, a[3], d[3]))
        return evaluate(defender_tree, value, attacker.id)

    table = memo(against)
    enum = Enumerator(side_process(attacker, defender, True), lambda run: table(summary(run)), attacker.id,
                      notes=notes)
    dist = enum.explore()
    return Odds.of(dist, provisional | builder.found | enum.found, builder.runs + enum.runs)
