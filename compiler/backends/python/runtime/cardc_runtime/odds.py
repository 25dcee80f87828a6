"""Exact odds by enumerating every die face and every choice (fractions, never samples).

A process is re-run from the start along each path of its decision tree (`Replay` inputs); where the
recorded answers end, it branches: a die into its faces (equal weights), a choice into its options, of
which the chooser's policy keeps one. The default policy, at each choice point, takes the option that
maximizes the chooser's chance to win; among equals, the one that minimizes its chance to lose; then
the one that costs least (spells discarded, lives given); then the first-declared option (doing nothing).

Two savings that change no result: paths that pause in the same state (a hero who re-rolled both dice is
where he was whatever he rolled first) share one subtree (`run_state.py`); and, for a caller that needs the
odds alone, a choice stops at an option nothing can better (`Enumerator.prune`).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from itertools import combinations_with_replacement
from math import factorial, gcd, lcm
from typing import Any, TypeVar, cast

from .inputs import Choice, Dice, Extended, Replay
from .run_state import KEYED, pause_key
from .verbs import SEEN_ASKED


@dataclass(frozen=True, slots=True, order=True)
class Leaf:
    """One end of the tree, seen from the reported side: its outcome, lives after, costs and flags."""

    outcome: str
    lives: int = 0
    cost: int = 0
    their_cost: int = 0
    flags: tuple[str, ...] = ()


class Dist:
    """A distribution over leaves with integer weights over one denominator: exact, and without `Fraction`
    arithmetic in the enumeration's inner loop (mixing and comparing are integer operations)."""

    __slots__ = ("den", "w")

    def __init__(self, w: dict[Leaf, int], den: int = 1) -> None:
        self.w = w
        self.den = den

    def items(self) -> list[tuple[Leaf, Fraction]]:
        """Each leaf with its probability as a Fraction (for results, not for the inner loop)."""
        return [(leaf, Fraction(n, self.den)) for leaf, n in self.w.items()]

    def map(self, fn: Callable[[Leaf], Leaf]) -> Dist:
        """The same probabilities on other leaves (leaves mapped to one leaf add up)."""
        out: dict[Leaf, int] = {}
        for leaf, n in self.w.items():
            new = fn(leaf)
            out[new] = out.get(new, 0) + n
        return Dist(out, self.den)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Dist) and self.w.keys() == other.w.keys() and all(
            n * other.den == other.w[leaf] * self.den for leaf, n in self.w.items())

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Dist({self.w!r}, den={self.den})"


Process = Callable[[Replay], Any]


def certain(leaf: Leaf) -> Dist:
    """The distribution of a finished run: this leaf with probability 1."""
    return Dist({leaf: 1})


def mix(parts: list[tuple[int, Dist]]) -> Dist:
    """The weighted sum of distributions, weights being whole numbers (ways a die can fall): over the
    common denominator of the parts times the total weight, reduced."""
    total = sum(w for w, _ in parts)
    dens = {d.den for _, d in parts}
    common = dens.pop() if len(dens) == 1 else lcm(*dens)
    out: dict[Leaf, int] = {}
    for weight, dist in parts:
        scale = weight * (common // dist.den)
        for leaf, n in dist.w.items():
            out[leaf] = out.get(leaf, 0) + scale * n
    den = total * common
    g = gcd(den, *out.values())
    if g > 1:
        out = {leaf: n // g for leaf, n in out.items()}
        den //= g
    return Dist(out, den)


def prob(dist: Dist, outcome: str) -> Fraction:
    return Fraction(sum(n for leaf, n in dist.w.items() if leaf.outcome == outcome), dist.den)


def _key(dist: Dist, mine: bool, scale: int) -> tuple[int, int, int]:
    """Larger is better for the chooser: win, then not losing, then a low cost; numerators over a common
    denominator (`scale` is that denominator over the dist's own)."""
    win = loss = cost = 0
    for leaf, n in dist.w.items():
        if leaf.outcome == "win":
            win += n
        elif leaf.outcome == "loss":
            loss += n
        cost += n * (leaf.cost if mine else leaf.their_cost)
    if mine:
        return (win * scale, -loss * scale, -cost * scale)
    return (loss * scale, -win * scale, -cost * scale)


def best_of(dists: Sequence[Dist], mine: bool) -> int:
    """The index of the distribution the chooser prefers (the first among equals)."""
    common = lcm(*(d.den for d in dists))
    best, best_key = 0, None
    for i, d in enumerate(dists):
        key = _key(d, mine, common // d.den)
        if best_key is None or key > best_key:
            best, best_key = i, key
    return best


def unbeatable(dist: Dist, mine: bool) -> bool:
    """No option can be strictly better for the chooser than this distribution: the chooser wins (or, for
    the other side, loses) on every leaf at no cost. Costs are counts (spells discarded, lives given), never
    negative, so this is the largest key `best_of` can see."""
    if mine:
        return all(leaf.outcome == "win" and leaf.cost == 0 for leaf in dist.w)
    return all(leaf.outcome == "loss" and leaf.their_cost == 0 for leaf in dist.w)


@dataclass(frozen=True, slots=True)
class _Shared:
    """A computed subtree: its distribution, the provisional notes of its leaves, the faces it asked about among
    the faces seen and, for each side, whether they were among them (the subtree is the same for any path
    that pauses in the same state and gives the same answers)."""

    dist: Any  # a Dist (a Tree for `TreeBuilder`)
    notes: frozenset[str]
    asked: frozenset[int]
    answers: tuple[tuple[bool, ...], ...]
    pinned: list[Any]  # the objects its key names by identity, kept alive


def _answers(asked: frozenset[int], faces: tuple[frozenset[int], ...]) -> tuple[tuple[bool, ...], ...]:
    order = sorted(asked)
    return tuple(tuple(f in seen for f in order) for seen in faces)


class _Known(Exception):  # noqa: N818 - a signal
    """A run reached a node whose subtree is already known (shared): it stops there."""

    def __init__(self, dist: Any) -> None:
        super().__init__()
        self.dist = dist


class _Open:
    """A keyed node a run went past whose subtree is being computed: its key, the notes of its leaves and the
    faces its runs asked about (`SEEN_ASKED` while it is open), and the set that was open around it."""

    __slots__ = ("state", "faces", "pinned", "notes", "asked", "outer")

    def __init__(self, state: Hashable, faces: tuple[frozenset[int], ...], pinned: list[Any],
                 outer: set[int] | None) -> None:
        self.state, self.faces, self.pinned, self.outer = state, faces, pinned, outer
        self.notes: set[str] = set()
        self.asked: set[int] = set()


class _Run:
    """The answers of a path, then, where they run out, each node's first answer (first option, lowest faces):
    the run goes on to a leaf instead of stopping at the node, and notes the nodes it went past (`pauses`, with
    their `_Open` record when keyed); their other answers are explored by later runs. So a node costs no run of
    its own: only leaves do. With `enum.notes`, a node is keyed (see run_state.py): a node met before in an
    equal state stops the run with the known subtree (`_Known`). The process gets `inputs` (`Extended`: the
    recorded answers, then `extend`'s)."""

    __slots__ = ("enum", "keyed", "pauses", "inputs")

    def __init__(self, answers: tuple[Any, ...], enum: Enumerator) -> None:
        self.enum = enum
        self.keyed = enum.notes is not None and KEYED
        self.pauses: list[tuple[int | Dice | Choice, _Open | None]] = []
        self.inputs = Extended(list(answers), self.extend)

    def extend(self, what: int | Dice | Choice) -> Any:
        opened = None
        # Paths meet again where dice are thrown again after dice that made them differ (a re-roll, a
        # second round); a choice mostly follows a roll that made the paths differ: only such nodes are
        # keyed (a key costs a few runs' time; which nodes are keyed changes no result).
        if self.keyed and self.inputs.rolled and not isinstance(what, Choice):
            key = pause_key(what, _EXPLORE, 3)
            if key is not None:
                opened = self.enum._enter(*key)
        self.pauses.append((what, opened))
        return (what.options[0] if isinstance(what, Choice)
                else throws(what.count, what.sides)[0][0] if isinstance(what, Dice) else 1)


@dataclass
class Enumerator:
    """`value(result)` turns a finished run into a distribution; `me` is the reported side's id.

    With `prune`, a choice stops looking at its later options once one is `unbeatable`: the policy takes the
    first option with the best key, and no later one can be strictly better, so the distribution and every
    decision are the same; only the runs of the options not looked at are saved (their provisional notes
    too: for callers that need the odds alone)."""

    process: Process
    value: Callable[[Any], Dist]
    me: str
    runs: int = 0
    decisions: dict[tuple[Any, ...], Any] = field(default_factory=dict)
    prune: bool = False
    # With `notes` (a finished run's provisional notes), paths that pause in equal states (run_state.py) share
    # one subtree: its distribution and its notes are computed once; `found` gathers the notes of every leaf,
    # computed or shared. Only for a `value` that reads no log (the key leaves the log out).
    notes: Callable[[Any], Iterable[str]] | None = None
    found: set[str] = field(default_factory=set)
    _memo: dict[Hashable, list[_Shared]] = field(default_factory=dict)  # computed subtrees by paused state
    _open: list[set[str]] = field(default_factory=list)  # the notes of each subtree being computed

    def explore(self, prefix: tuple[Any, ...] = ()) -> Dist:
        """The distribution from the node the answers `prefix` lead to: one run goes down to a leaf along
        first answers (`_Run`), then each node it went past, deepest first, takes its other answers."""
        self.runs += 1
        run = _Run(prefix, self)
        inputs = run.inputs
        depth, asked_before = len(self._open), SEEN_ASKED[0]
        try:
            try:
                result = self.process(inputs)
            except _Known as known:
                dist: Dist = known.dist
            else:
                if self.notes is not None:
                    notes = self.notes(result)
                    self.found.update(notes)
                    for open_ in self._open:
                        open_.update(notes)
                dist = self.value(result)
            answers = inputs.answers
            for i in range(len(run.pauses) - 1, -1, -1):
                what, opened = run.pauses[i]
                here = tuple(answers[:len(prefix) + i])
                dist = self._branch(here, what, dist)
                if opened is not None:
                    self._close(opened, dist)
        except BaseException:
            del self._open[depth:]
            SEEN_ASKED[0] = asked_before
            raise
        return dist

    def _branch(self, prefix: tuple[Any, ...], what: Any, first: Any) -> Dist:
        """The node's distribution, given that of its first answer."""
        if isinstance(what, Choice):
            return self._choose(prefix, what, first)
        if isinstance(what, Dice):
            ways = throws(what.count, what.sides)
            return mix([(ways[0][1], first), *((w, self.explore((*prefix, faces))) for faces, w in ways[1:])])
        return mix([(1, first), *((1, self.explore((*prefix, face))) for face in range(2, int(what) + 1))])

    def _enter(self, state: Hashable, faces: tuple[frozenset[int], ...], pinned: list[Any]) -> _Open:
        """A run reached a keyed node: the subtree of an earlier path that paused in the same state and agrees
        on every face the subtree asked about among the faces seen (`die_shows(any_roll)`) stops it
        (`_Known`); else the node is opened, and the faces the runs below it ask about are noted."""
        outer = SEEN_ASKED[0]
        for shared in self._memo.get(state, ()):
            if shared.answers == _answers(shared.asked, faces):
                if outer is not None:
                    outer |= shared.asked
                self.found.update(shared.notes)
                for open_ in self._open:
                    open_.update(shared.notes)
                raise _Known(shared.dist)
        opened = _Open(state, faces, pinned, outer)
        self._open.append(opened.notes)
        SEEN_ASKED[0] = opened.asked  # this subtree's runs note the faces they ask about
        return opened

    def _close(self, opened: _Open, dist: Any) -> None:
        """The subtree of an opened node is computed: remembered for the paths that reach its state."""
        self._open.pop()
        SEEN_ASKED[0] = opened.outer
        if opened.outer is not None:
            opened.outer |= opened.asked
        frozen = frozenset(opened.asked)
        self._memo.setdefault(opened.state, []).append(
            _Shared(dist, frozenset(opened.notes), frozen, _answers(frozen, opened.faces), opened.pinned))

    def _choose(self, prefix: tuple[Any, ...], choice: Choice, first: Dist) -> Dist:
        mine = choice.chooser == self.me
        dists = [first]
        for option in choice.options[1:]:
            if self.prune and unbeatable(dists[-1], mine):
                break
            dists.append(self.explore((*prefix, option)))
        i = best_of(dists, mine)
        self.decisions[prefix] = choice.options[i]
        return dists[i]

    def best_option(self, prefix: tuple[Any, ...], choice: Choice) -> Any:
        """What the policy picks at this point (used to drive simulations with the same policy)."""
        if prefix not in self.decisions:
            self._choose(prefix, choice, self.explore((*prefix, choice.options[0])))
        return self.decisions[prefix]

    def policy(self) -> Callable[[Choice, Sequence[Any]], Any]:
        """The default policy as an input policy, for `Seeded` simulations of the same process."""
        return lambda choice, history: self.best_option(tuple(history), choice)


_EXPLORE = Enumerator.explore.__code__  # where a run starts: the frames below it are the run's


@lru_cache(maxsize=64)
def throws(count: int, sides: int) -> tuple[tuple[tuple[int, ...], int], ...]:
    """Every sorted outcome of `count` dice with the number of ways it can fall (multinomial weights;
    they add up to sides ** count)."""
    out = []
    for faces in combinations_with_replacement(range(1, sides + 1), count):
        ways = factorial(count)
        for face in set(faces):
            ways //= factorial(faces.count(face))
        out.append((faces, ways))
    return tuple(out)


K = TypeVar("K", bound=Hashable)


def memo(fn: Callable[[K], Dist]) -> Callable[[K], Dist]:
    cache: dict[K, Dist] = {}

    def wrapped(key: K) -> Dist:
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
        w, den = dist.w, dist.den
        flags = sorted({f for leaf in w for f in leaf.flags})
        extra = {f: Fraction(sum(n for leaf, n in w.items() if f in leaf.flags), den) for f in flags}
        assert sum(w.values()) == den, f"probabilities add up to {sum(w.values())}/{den}"
        counts: dict[int, int] = {}
        for leaf, n in w.items():
            counts[leaf.lives] = counts.get(leaf.lives, 0) + n
        lives = {k: Fraction(n, den) for k, n in counts.items()}
        spent = Fraction(sum(n * leaf.cost for leaf, n in w.items()), den)
        return cls(prob(dist, "win"), prob(dist, "tie"), prob(dist, "loss"), extra,
                   tuple(sorted(provisional)), runs, dict(sorted(lives.items())), spent)


Tree = tuple[Any, ...]  # ("leaf", value) | ("dice", ((weight, tree), ...)) | ("choice", chooser, ((option, tree), ...))


class TreeBuilder(Enumerator):
    """Builds the whole decision tree of a process instead of its distribution, its leaves `("leaf", summary)`:
    evaluated later without re-running it, for a side whose decisions depend on something only known later
    (the other side's total). With `notes`, paths that pause in equal states share one subtree, exactly as
    `Enumerator` shares distributions (the same tree object appears at each place)."""

    def __init__(self, process: Process, summary: Callable[[Any], Hashable],
                 notes: Callable[[Any], Iterable[str]] | None = None) -> None:
        super().__init__(process, lambda result: cast(Dist, ("leaf", summary(result))), "", notes=notes)

    def tree(self, prefix: tuple[Any, ...] = ()) -> Tree:
        return cast(Tree, self.explore(prefix))

    def _branch(self, prefix: tuple[Any, ...], what: Any, first: Any) -> Any:
        if isinstance(what, Choice):
            rest = tuple((o, self.explore((*prefix, o))) for o in what.options[1:])
            return ("choice", what.chooser, ((what.options[0], first), *rest))
        if isinstance(what, Dice):
            ways = throws(what.count, what.sides)
            return ("dice", ((ways[0][1], first), *((w, self.explore((*prefix, faces))) for faces, w in ways[1:])))
        return ("dice", ((1, first), *((1, self.explore((*prefix, face))) for face in range(2, int(what) + 1))))


def build_tree(process: Process, summary: Callable[[Any], Hashable], prefix: tuple[Any, ...] = ()) -> Tree:
    """The whole decision tree of a process, its leaves summarized (every path run from the start)."""
    return TreeBuilder(process, summary).tree(prefix)


def evaluate(tree: Tree, value: Callable[[Any], Dist], me: str, seen: dict[int, Dist] | None = None) -> Dist:
    """The distribution of a built tree, each choice made by the default policy of its chooser; a subtree that
    appears at several places (shared, see `TreeBuilder`) is evaluated once."""
    if seen is None:
        seen = {}
    done = seen.get(id(tree))
    if done is not None:
        return done
    kind = tree[0]
    if kind == "leaf":
        out = value(tree[1])
    elif kind == "dice":
        out = mix([(w, evaluate(sub, value, me, seen)) for w, sub in tree[1]])
    else:
        dists = [evaluate(sub, value, me, seen) for _, sub in tree[2]]
        out = dists[best_of(dists, tree[1] == me)]
    seen[id(tree)] = out
    return out
