"""Exact odds by enumerating every die face and every choice (fractions, never samples).

A process is re-run from the start along each path of its decision tree (`Replay` inputs); where the
recorded answers end, it branches: a die into its faces (equal weights), a choice into its options, of
which the chooser's policy keeps one. The default policy, at each choice point, takes the option that
maximizes the chooser's chance to win; among equals, the one that minimizes its chance to lose; then
the one that costs least (spells discarded, lives given); then the first-declared option (doing nothing).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from itertools import combinations_with_replacement
from math import factorial
from typing import Any

from .inputs import Choice, Dice, NeedInput, Replay


@dataclass(frozen=True, slots=True, order=True)
class Leaf:
    """One end of the tree, seen from the reported side: its outcome, lives after, costs and flags."""

    outcome: str
    lives: int = 0
    cost: int = 0
    their_cost: int = 0
    flags: tuple[str, ...] = ()


Dist = dict[Leaf, Fraction]
Process = Callable[[Replay], Any]


def mix(parts: list[tuple[Fraction, Dist]]) -> Dist:
    out: Dist = {}
    for weight, dist in parts:
        for leaf, p in dist.items():
            out[leaf] = out.get(leaf, Fraction(0)) + weight * p
    return out


def prob(dist: Dist, outcome: str) -> Fraction:
    return sum((p for leaf, p in dist.items() if leaf.outcome == outcome), Fraction(0))


def policy_key(dist: Dist, mine: bool) -> tuple[Fraction, Fraction, Fraction]:
    """Larger is better for the chooser: win, then not losing, then a low cost."""
    win, loss = prob(dist, "win"), prob(dist, "loss")
    if mine:
        cost = sum((p * leaf.cost for leaf, p in dist.items()), Fraction(0))
        return (win, -loss, -cost)
    cost = sum((p * leaf.their_cost for leaf, p in dist.items()), Fraction(0))
    return (loss, -win, -cost)


@dataclass
class Enumerator:
    """`value(result)` turns a finished run into a distribution; `me` is the reported side's id."""

    process: Process
    value: Callable[[Any], Dist]
    me: str
    runs: int = 0
    decisions: dict[tuple[Any, ...], Any] = field(default_factory=dict)

    def explore(self, prefix: tuple[Any, ...] = ()) -> Dist:
        self.runs += 1
        try:
            result = self.process(Replay(prefix))
        except NeedInput as need:
            what = need.what
            if isinstance(what, Choice):
                return self._choose(prefix, what)
            if isinstance(what, Dice):
                return mix([(w, self.explore((*prefix, faces))) for faces, w in throws(what.count, what.sides)])
            weight = Fraction(1, int(what))
            return mix([(weight, self.explore((*prefix, face))) for face in range(1, int(what) + 1)])
        return self.value(result)

    def _choose(self, prefix: tuple[Any, ...], choice: Choice) -> Dist:
        best: tuple[Any, Dist] | None = None
        best_key: tuple[Fraction, ...] | None = None
        for option in choice.options:
            dist = self.explore((*prefix, option))
            key = policy_key(dist, choice.chooser == self.me)
            if best_key is None or key > best_key:
                best, best_key = (option, dist), key
        assert best is not None
        self.decisions[prefix] = best[0]
        return best[1]

    def best_option(self, prefix: tuple[Any, ...], choice: Choice) -> Any:
        """What the policy picks at this point (used to drive simulations with the same policy)."""
        if prefix not in self.decisions:
            self._choose(prefix, choice)
        return self.decisions[prefix]

    def policy(self) -> Callable[[Choice, Sequence[Any]], Any]:
        """The default policy as an input policy, for `Seeded` simulations of the same process."""
        return lambda choice, history: self.best_option(tuple(history), choice)


@lru_cache(maxsize=64)
def throws(count: int, sides: int) -> tuple[tuple[tuple[int, ...], Fraction], ...]:
    """Every sorted outcome of `count` dice with its probability (multinomial weights)."""
    out = []
    for faces in combinations_with_replacement(range(1, sides + 1), count):
        ways = factorial(count)
        for face in set(faces):
            ways //= factorial(faces.count(face))
        out.append((faces, Fraction(ways, sides**count)))
    return tuple(out)


def memo(fn: Callable[[Hashable], Dist]) -> Callable[[Hashable], Dist]:
    cache: dict[Hashable, Dist] = {}

    def wrapped(key: Hashable) -> Dist:
        if key not in cache:
            cache[key] = fn(key)
        return cache[key]

    return wrapped


@dataclass(frozen=True)
class Odds:
    """Exact win / tie / loss of the reported side, extra events' probabilities, provisional notes."""

    win: Fraction
    tie: Fraction
    loss: Fraction
    extra: dict[str, Fraction]
    provisional: tuple[str, ...] = ()
    runs: int = 0
    lives: dict[int, Fraction] = field(default_factory=dict)  # lives of the reported side after the fight
    spent: Fraction = Fraction(0)  # expected spells discarded and lives given up by the reported side

    @classmethod
    def of(cls, dist: Dist, provisional: set[str] | tuple[str, ...] = (), runs: int = 0) -> Odds:
        flags = sorted({f for leaf in dist for f in leaf.flags})
        extra = {f: sum((p for leaf, p in dist.items() if f in leaf.flags), Fraction(0)) for f in flags}
        total = sum(dist.values(), Fraction(0))
        assert total == 1, f"probabilities add up to {total}"
        lives: dict[int, Fraction] = {}
        for leaf, p in dist.items():
            lives[leaf.lives] = lives.get(leaf.lives, Fraction(0)) + p
        spent = sum((p * leaf.cost for leaf, p in dist.items()), Fraction(0))
        return cls(prob(dist, "win"), prob(dist, "tie"), prob(dist, "loss"), extra,
                   tuple(sorted(provisional)), runs, dict(sorted(lives.items())), spent)


Tree = tuple[Any, ...]  # ("leaf", value) | ("dice", ((weight, tree), ...)) | ("choice", chooser, ((option, tree), ...))


def build_tree(process: Process, summary: Callable[[Any], Hashable], prefix: tuple[Any, ...] = ()) -> Tree:
    """The whole decision tree of a process, its leaves summarized: evaluated later without re-running it
    (for a side whose decisions depend on something only known later, such as the other side's total)."""
    try:
        result = process(Replay(prefix))
    except NeedInput as need:
        what = need.what
        if isinstance(what, Choice):
            return ("choice", what.chooser, tuple((o, build_tree(process, summary, (*prefix, o)))
                                                  for o in what.options))
        if isinstance(what, Dice):
            return ("dice", tuple((w, build_tree(process, summary, (*prefix, faces)))
                                  for faces, w in throws(what.count, what.sides)))
        weight = Fraction(1, int(what))
        return ("dice", tuple((weight, build_tree(process, summary, (*prefix, face)))
                              for face in range(1, int(what) + 1)))
    return ("leaf", summary(result))


def evaluate(tree: Tree, value: Callable[[Any], Dist], me: str) -> Dist:
    """The distribution of a built tree, each choice made by the default policy of its chooser."""
    kind = tree[0]
    if kind == "leaf":
        return value(tree[1])
    if kind == "dice":
        return mix([(w, evaluate(sub, value, me)) for w, sub in tree[1]])
    best: Dist | None = None
    best_key: tuple[Fraction, ...] | None = None
    for _, sub in tree[2]:
        dist = evaluate(sub, value, me)
        key = policy_key(dist, tree[1] == me)
        if best_key is None or key > best_key:
            best, best_key = dist, key
    assert best is not None
    return best
