"""Duel tables with each side's roll enumerated once for all its opponents, where the roll never reads them.

A duel table is every fighter attacking every other: n x (n - 1) duels, each enumerating both sides' rolls
(`fight_odds.duel_outcome_odds`). A side's roll is the same decision tree against any opponent when nothing in
it reads the opponent: not its character, not its side of the fight, not who else is at the table
(`Context.characters`). So each fighter's roll, attacking and defending, is built once as a tree against a
watched stand-in (another fighter) whose every read stops the build (`ReadsOpponent`); only the paused-state
keys (run_state.py) may read it, and they compare states of one enumeration only. A fighter whose roll reads
its opponent is duelled one pair at a time as before. The trees are then evaluated pair by pair exactly as
`duel_outcome_odds` evaluates its own: the same paths, leaves, choices and provisional notes.
"""

from __future__ import annotations

import sys
from collections.abc import Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

from . import run_state
from .context import Character, Context, Fight, Side
from .fight import _compare, roll_side
from .fight_odds import _spent, duel_outcome_odds
from .inputs import Inputs
from .model import Ruleset
from .odds import Dist, Leaf, Odds, Tree, TreeBuilder, certain, evaluate

_KEYS = run_state.__file__  # reads from building a paused state's key are allowed


class ReadsOpponent(BaseException):  # noqa: N818 - a signal; not an Exception, so no `except Exception` eats it
    """A side's roll read its opponent: it is enumerated per opponent."""


def _read() -> NoReturn:
    raise ReadsOpponent


class _WatchedCharacter(Character):
    """The opponent's character: any read but the paused-state key's stops the build."""

    def __getattribute__(self, name: str) -> Any:
        if name != "__class__" and sys._getframe(1).f_code.co_filename != _KEYS:
            _read()
        return object.__getattribute__(self, name)


class _WatchedSide(Side):
    """The opponent's side of the fight: any read but the paused-state key's stops the build."""

    def __getattribute__(self, name: str) -> Any:
        if name != "__class__" and sys._getframe(1).f_code.co_filename != _KEYS:
            _read()
        return object.__getattribute__(self, name)


class _WatchedTable(dict[str, Character]):
    """`Context.characters` holding the opponent: only the side's own entry may be looked up or set; anything
    that could tell who else is there (iteration, length, other keys) stops the build."""

    __slots__ = ("me",)

    def __init__(self, entries: dict[str, Character], me: str) -> None:
        super().__init__(entries)
        self.me = me

    def _check(self, key: object = None) -> None:
        if key != self.me and sys._getframe(2).f_code.co_filename != _KEYS:
            _read()

    def __getitem__(self, key: str) -> Character:
        self._check(key)
        return dict.__getitem__(self, key)

    def get(self, key: str, default: Any = None) -> Any:
        self._check(key)
        return dict.get(self, key, default)

    def __contains__(self, key: object) -> bool:
        self._check(key)
        return dict.__contains__(self, key)

    def __setitem__(self, key: str, value: Character) -> None:
        self._check(key)
        dict.__setitem__(self, key, value)

    def setdefault(self, key: str, default: Any = None) -> Any:
        self._check(key)
        return dict.setdefault(self, key, default)

    def __iter__(self) -> Iterator[str]:
        self._check()
        return dict.__iter__(self)

    def __len__(self) -> int:
        self._check()
        return dict.__len__(self)

    def keys(self) -> Any:
        self._check()
        return dict.keys(self)

    def values(self) -> Any:
        self._check()
        return dict.values(self)

    def items(self) -> Any:
        self._check()
        return dict.items(self)

    def __reversed__(self) -> Iterator[str]:
        self._check()
        return dict.__reversed__(self)

    def __eq__(self, other: object) -> bool:
        self._check()
        return dict.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        self._check()
        return dict.__ne__(self, other)

    def __repr__(self) -> str:
        self._check()
        return dict.__repr__(self)

    def _refused(self, *_: Any, **__: Any) -> NoReturn:
        _read()

    # whatever else changes or copies the table
    pop = popitem = clear = update = copy = __delitem__ = __or__ = __ror__ = __ior__ = _refused
    __hash__ = None


run_state.key_as(_WatchedCharacter, Character)
run_state.key_as(_WatchedSide, Side)
run_state.key_as(_WatchedTable, dict)


def _watched(who: Character) -> _WatchedCharacter:
    """A copy of `who` whose reads are watched (its lists and maps copied, as `Character.copy` does)."""
    plain = who.copy()
    out = object.__new__(_WatchedCharacter)
    object.__getattribute__(out, "__dict__").update(plain.__dict__)
    return out


Summary = tuple[int, bool, int, int]  # a side's total, whether a tie wins for it, its modifier of the other's total,
# what it spent: all that the comparison of two rolls and the policy read (see `duel_outcome_odds`)


def _summary(run: tuple[Side, tuple[str, ...]]) -> Summary:
    side = run[0]
    assert side.total is not None
    return (side.total, side.tie_wins, side.opponent_mod, _spent(side))


def _notes(run: tuple[Side, tuple[str, ...]]) -> tuple[str, ...]:
    return run[1]


@dataclass(frozen=True)
class _Roll:
    """One fighter's roll, attacking or defending, as a tree valid against every opponent."""

    tree: Tree
    notes: frozenset[str]  # the provisional notes of its runs
    runs: int
    choosers: frozenset[str]  # who decides at its choices


def _blind_roll(rules: Ruleset, me: Character, stand_in: Character, attacking: bool, on: frozenset[str],
                facts: dict[str, Any] | None) -> _Roll | None:
    """`me`'s roll against a watched `stand_in`, as `duel_outcome_odds` builds it against a real opponent;
    None if it reads the opponent."""
    provisional: set[str] = set()

    def process(inputs: Inputs) -> tuple[Side, tuple[str, ...]]:
        ctx = Context(rules, inputs, on, dict(facts or {}))
        mine = Side(me.copy(), attacker=attacking)
        them = _watched(stand_in)
        theirs = _WatchedSide(them, attacker=not attacking)
        ctx.fight = Fight("hero", [mine, theirs] if attacking else [theirs, mine])
        ctx.characters = _WatchedTable({me.id: mine.who, stand_in.id: them}, me.id)
        roll_side(ctx, mine)
        provisional.update(ctx.provisional)
        return mine, tuple(ctx.provisional)

    builder = TreeBuilder(process, _summary, notes=_notes)
    try:
        tree = builder.tree()
    except ReadsOpponent:
        return None
    return _Roll(tree, frozenset(provisional | builder.found), builder.runs, frozenset(_choosers(tree)))


def _choosers(tree: Tree) -> set[str]:
    out: set[str] = set()
    seen: set[int] = set()
    stack = [tree]
    while stack:
        node = stack.pop()
        if id(node) in seen or node[0] == "leaf":
            continue
        seen.add(id(node))
        if node[0] == "choice":
            out.add(node[1])
            stack.extend(sub for _, sub in node[2])
        else:
            stack.extend(sub for _, sub in node[1])
    return out


def duel_table_outcomes(rules: Ruleset, fighters: Sequence[Character], variants: Iterable[str] = (),
                        facts: dict[str, Any] | None = None) -> dict[tuple[str, str], Odds]:
    """`duel_outcome_odds` of every fighter attacking every other, keyed (attacker id, defender id): the same
    win, tie, loss and provisional notes (not `runs`: each roll is counted once)."""
    on = frozenset(variants)
    rolls: dict[tuple[str, bool], _Roll | None] = {}

    def roll(who: Character, attacking: bool) -> _Roll | None:
        key = (who.id, attacking)
        if key not in rolls:
            stand_in = next((f for f in fighters if f.id != who.id), None)
            rolls[key] = None if stand_in is None else _blind_roll(rules, who, stand_in, attacking, on, facts)
        return rolls[key]

    against: dict[Hashable, Dist] = {}  # a defender's roll against one attacker summary, shared by attackers

    def defended(d: Character, droll: _Roll, a: Character, s: Summary) -> Dist:
        # the attacker's id matters to the evaluation only if it decides somewhere in the defender's tree
        key = (d.id, a.id if a.id in droll.choosers else None, s)
        dist = against.get(key)
        if dist is None:
            def value(x: Summary) -> Dist:
                return certain(Leaf(_compare(s[0] + x[2], x[0] + s[2], s[1], x[1]), 0, s[3], x[3]))
            dist = against[key] = evaluate(droll.tree, value, a.id)
        return dist

    out: dict[tuple[str, str], Odds] = {}
    for a in fighters:
        for d in fighters:
            if a.id == d.id:
                continue
            aroll, droll = roll(a, True), roll(d, False)
            if aroll is None or droll is None:
                out[(a.id, d.id)] = duel_outcome_odds(rules, a, d, variants, facts)
                continue
            def value(s: Summary, a: Character = a, d: Character = d, droll: _Roll = droll) -> Dist:
                return defended(d, droll, a, s)

            dist = evaluate(aroll.tree, value, a.id)
            out[(a.id, d.id)] = Odds.of(dist, set(aroll.notes | droll.notes), aroll.runs + droll.runs)
    return out
