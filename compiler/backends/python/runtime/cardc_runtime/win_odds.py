"""The exact chance to win one fight against a monster, for a caller that needs that figure alone (the greedy
bot): the enumeration of `fight_odds.monster_win` (every path of dice and choices, each choice by the default
policy, a choice stopping at an option nothing can better), with each node's distribution kept as the few sums
the policy and the answer read instead of a distribution over leaves.

The policy (odds.py) compares options by the chance to win, then not to lose, then a low cost, and stops at an
option that wins on every leaf at no cost; the answer is the chance to win. All of these are sums over the
leaves, weighted by their probability, so a node needs only those sums: [denominator, win, loss, cost,
weight of the leaves with a cost, and the other side's cost and weight with a cost] as integers over the
denominator. A dice node mixes them as `odds.mix` mixes distributions, a choice keeps the option `odds.best_of`
would pick, and the runs are the same, in the same order, as `odds.Enumerator`'s without shared states (the
compiled runtime has none): the same exact figure, without a `Leaf`, a `Dist` or a dict per run. Compiled with
the runtime (accel.py): on the compiled runtime the fight's runs are most of a cold greedy game."""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from math import gcd
from typing import Any, Final

from .context import Character, Context
from .fight import monster_fight
from .inputs import Choice, Dice, Extended
from .model import Ruleset

# The sums of a node, by place: [den, win, loss, cost, costly, their_cost, their_costly] (numerators over `den`;
# `costly`: the weight of the leaves with a cost). (Final ints: constants in compiled code.)
_DEN: Final = 0
_WIN: Final = 1
_LOSS: Final = 2
_COST: Final = 3
_COSTLY: Final = 4
_THEIR: Final = 5
_THEIR_COSTLY: Final = 6


def _throws(count: int, sides: int) -> list[tuple[tuple[int, ...], int]]:
    """`odds.throws` (every sorted outcome of the dice with its ways), kept here as a list per dice kind."""
    found = _THROWS.get((count, sides))
    if found is None:
        from .odds import throws

        found = _THROWS[(count, sides)] = list(throws(count, sides))
    return found


_THROWS: dict[tuple[int, int], list[tuple[tuple[int, ...], int]]] = {}


class _Walk:
    """One enumeration: the fight's inputs, and the pauses of the run being made."""

    def __init__(self, rules: Ruleset, hero: Character, monster: str, variants: frozenset[str],
                 facts: dict[str, Any], me: str) -> None:
        self.rules = rules
        self.hero = hero
        self.monster = monster
        self.variants = variants
        self.facts = facts
        self.me = me
        self.pauses: list[Any] = []
        self.runs = 0

    def extend(self, what: Any) -> Any:
        """Where the recorded answers end: the node is noted, the run takes its first answer (as `odds._Run`)."""
        self.pauses.append(what)
        if isinstance(what, Choice):
            return what.options[0]
        if isinstance(what, Dice):
            return _throws(what.count, what.sides)[0][0]
        return 1

    def leaf(self, inputs: Extended) -> list[int]:
        """One run of the fight (as `fight_odds.monster_enumerator`'s process, whose report's outcome is the
        side's) and its lean leaf's sums."""
        self.runs += 1
        ctx = Context(self.rules, inputs, self.variants, dict(self.facts))
        side = monster_fight(ctx, self.hero.copy(), self.monster)[0]
        keep = side.keep
        cost = side.lives_spent
        for s in side.spells_used:
            if s not in keep:
                cost += 1
        outcome = side.outcome
        return [1, 1 if outcome == "win" else 0, 1 if outcome == "loss" else 0, cost, 1 if cost != 0 else 0, 0, 0]

    def explore(self, prefix: list[Any]) -> list[int]:
        """The sums from the node `prefix` leads to: one run down first answers, then each node it went past,
        deepest first, takes its other answers (as `odds.Enumerator.explore`)."""
        pauses, answers, sums = self._run(prefix)
        if pauses:  # (the first node, after the deeper ones `_run` folded in)
            sums = self.branch(answers[:len(prefix)], pauses[0], sums)
        return sums

    def branch(self, here: list[Any], what: Any, first: list[int]) -> list[int]:
        if isinstance(what, Choice):
            mine = what.chooser == self.me
            best = last = first
            options = what.options
            for k in range(1, len(options)):
                if _unbeatable(last, mine):
                    break
                last = self.explore([*here, options[k]])
                if _better(last, best, mine):
                    best = last
            return best
        parts: list[tuple[int, list[int]]] = []
        if isinstance(what, Dice):
            ways = _throws(what.count, what.sides)
            parts.append((ways[0][1], first))
            for j in range(1, len(ways)):
                faces, w = ways[j]
                parts.append((w, self.explore([*here, faces])))
        else:
            parts.append((1, first))
            for face in range(2, int(what) + 1):
                parts.append((1, self.explore([*here, face])))
        return _mix(parts)

    def _run(self, path: list[Any]) -> tuple[list[Any], list[Any], list[int]]:
        """One run down first answers after `path`: the nodes it went past, the answers it took and the sums of
        the first node's first answer (every node after the first folded in, deepest first, as `explore`)."""
        pauses: list[Any] = []
        self.pauses = pauses
        inputs = Extended(list(path), self.extend)
        sums = self.leaf(inputs)
        answers = inputs.recorded
        base = len(path)
        for i in range(len(pauses) - 1, 0, -1):
            sums = self.branch(answers[:base + i], pauses[i], sums)
        return pauses, answers, sums

    def first_option(self, prefix: list[Any], chooser: str, point: str, options: list[Any]) -> list[int] | None:
        """The sums of the first option at the choice `prefix` leads to (`explore([*prefix, options[0]])`), from
        the run that replays `prefix`; None when that run meets no input after `prefix`, or another one than
        `chooser`'s `point` with `options`."""
        pauses, _, sums = self._run(prefix)
        what = pauses[0] if pauses else None
        if not isinstance(what, Choice) or what.chooser != chooser or what.point != point \
                or list(what.options) != options:
            return None
        return sums

    def against(self, path: list[Any], best: list[int], mine: bool) -> tuple[int, list[int]]:
        """An option (the answers `path`) weighed against the best option so far (its sums `best`) by the
        primary sum of the chooser's key (`_better`: the win, or for the other side the loss): 1 when it is
        surely larger, -1 when surely smaller, else 0 and the option's sums (`explore(path)`). Where the path
        begins with a throw, each throw's part is added in turn and the weighing stops as soon as the throws
        left cannot change the verdict (each adds at most its weight); the throws then go in the order likelier
        to settle it (the low ones first against a best option that mostly wins, else the high ones)."""
        pauses, answers, sums = self._run(path)
        if not pauses:
            return 0, sums
        base = len(path)
        what = pauses[0]
        if not isinstance(what, Dice):
            return 0, self.branch(answers[:base], what, sums)
        here = answers[:base]
        ways = _throws(what.count, what.sides)
        key = _WIN if mine else _LOSS
        total = 0
        for _, w in ways:
            total += w
        target = Fraction(best[key] * total, best[_DEN])  # (the best option's chance, times `total`)
        first = ways[0][1]
        parts: list[tuple[int, list[int]]] = [(first, sums)]
        got = Fraction(first * sums[key], sums[_DEN])
        left = total - first
        order = list(range(1, len(ways)))
        if 2 * best[key] < best[_DEN]:
            order.reverse()
        for j in order:
            if got + left < target:
                return -1, sums
            if got > target:
                return 1, sums
            faces, w = ways[j]
            part = self.explore([*here, faces])
            parts.append((w, part))
            got += Fraction(w * part[key], part[_DEN])
            left -= w
        return 0, _mix(parts)


def _unbeatable(sums: list[int], mine: bool) -> bool:
    """`odds.unbeatable`: every leaf a win (the other side: a loss) at no cost."""
    if mine:
        return sums[_WIN] == sums[_DEN] and sums[_COSTLY] == 0
    return sums[_LOSS] == sums[_DEN] and sums[_THEIR_COSTLY] == 0


def _better(a: list[int], b: list[int], mine: bool) -> bool:
    """Whether the chooser's key (`odds._key`) of `a` is strictly larger than that of `b`: win, then not
    losing, then a low cost (the other side: loss, then not winning, then its low cost), cross-multiplied."""
    da, db = a[_DEN], b[_DEN]
    if mine:
        first, second, cost = _WIN, _LOSS, _COST
    else:
        first, second, cost = _LOSS, _WIN, _THEIR
    x, y = a[first] * db, b[first] * da
    if x != y:
        return x > y
    x, y = a[second] * db, b[second] * da
    if x != y:
        return x < y
    return a[cost] * db < b[cost] * da


def _mix(parts: list[tuple[int, list[int]]]) -> list[int]:
    """`odds.mix` of the sums: weighted by whole numbers, over a common denominator, reduced."""
    common = 1
    total = 0
    for w, sums in parts:
        d = sums[_DEN]
        common = common * d // gcd(common, d)
        total += w
    out = [0, 0, 0, 0, 0, 0, 0]
    for w, sums in parts:
        scale = w * (common // sums[_DEN])
        for k in range(1, 7):
            out[k] += scale * sums[k]
    den = total * common
    g = den
    for k in range(1, 7):
        g = gcd(g, out[k])
    if g > 1:
        for k in range(1, 7):
            out[k] //= g
        den //= g
    out[_DEN] = den
    return out


def monster_win(rules: Ruleset, hero: Character, monster: str, variants: Iterable[str] = (),
                facts: dict[str, Any] | None = None) -> Fraction:
    """`fight_odds.monster_win` on a runtime without shared states: the same exact chance (and the same runs,
    errors included)."""
    walk = _Walk(rules, hero, monster, frozenset(variants), dict(facts or {}), hero.id)
    sums = walk.explore([])
    return Fraction(sums[_WIN], sums[_DEN])


# What a replay of answers given in another situation raises on the way (a verb that needs the board says so
# with a RuntimeError; an answer of the wrong kind fails as a TypeError or ValueError)
_ELSEWHERE: Final = (RuntimeError, ValueError, TypeError, KeyError, IndexError)


def best_choice(rules: Ruleset, hero: Character, monster: str, variants: frozenset[str], prefix: list[Any],
                chooser: str, point: str, options: list[Any]) -> int | None:
    """The index of the option the default policy takes at the choice the answers `prefix` lead to in the fight
    of `hero` against `monster` (`odds.Enumerator.best_option`, by sums: the same pick), or None when that
    choice is not `chooser`'s `point` with these options (the answers lead elsewhere, or the fight ends or
    fails on the way).

    Two savings that leave the pick as it was: the run that replays `prefix` to the choice goes on as the first
    run of the first option (one run of the fight fewer), and the last option's dice, when its path begins with
    a throw, are weighed only until the chance its primary sum (the chooser's win) can reach stays below the best
    option's, or the chance it already has is above it (`_Walk.against`): its pick is then known."""
    walk = _Walk(rules, hero, monster, variants, {}, hero.id)
    mine = chooser == hero.id
    try:
        found = walk.first_option(prefix, chooser, point, options)
        if found is None:
            return None
        best = last = found
        index = 0
        final = len(options) - 1
        for k in range(1, len(options)):  # (as `_Walk.branch` does for a choice)
            if _unbeatable(last, mine):
                break
            if k == final:
                verdict, last = walk.against([*prefix, options[k]], best, mine)
                if verdict != 0:
                    return k if verdict > 0 else index
            else:
                last = walk.explore([*prefix, options[k]])
            if _better(last, best, mine):
                best, index = last, k
    except _ELSEWHERE:  # answers of another fight, a verb without its board, a later path that fails...
        return None
    return index
