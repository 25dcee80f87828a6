"""Exact win / tie / loss of one fighter against several opponents, sharing one enumeration among opponents
that the rules cannot tell apart but by the value fought against.

Such opponents (same kinds and tags, no effects of their own, no nested cards, their ids named by no effect,
procedure or other entity) are fought as one stand-in whose value to beat is a `Target` (unknowns.py):
the fight runs once along each path of dice and choices, and where the stand-in's value is compared with
a total and the opponents left disagree, the comparison is a branch of the tree (`ORACLE`). The tree is then
evaluated for each opponent's value: the branch it takes, the fighter's choices made by the default policy
against it. Each opponent gets the distribution and the provisional notes its own enumeration would give
(the same paths, the same leaves). A run that uses the stand-in otherwise (its reward, its name, the margin,
an effect that reads its stat) raises `NeedsOpponent`, and those opponents are then fought one by one; so do
the errors a fight can raise (fought one by one, each fight reports its own as before)."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from types import CodeType, FunctionType, ModuleType
from typing import Any

from .context import Character, Context, Fight, Side
from .fight import LoadoutError
from .fight_odds import _spent, monster_outcome_odds
from .inputs import Choice, Inputs
from .model import EntityData, Provisional, Ruleset
from .odds import Dist, Leaf, Odds, Tree, TreeBuilder, best_of, certain, mix
from .unknowns import OPS, ORACLE, NeedsOpponent, Opaque, Target, Unknown

# What stops the shared enumeration: the stand-in used beyond its value, or an error a fight can raise
# (fought one by one, each opponent's fight raises it as it did before).
_ONE_BY_ONE = (NeedsOpponent, ValueError, TypeError, LookupError, AttributeError, RuntimeError, ArithmeticError)
_CLASSES = "opponent classes"  # ruleset cache: (opponents, stat) -> stand-in ruleset and members


def outcomes(rules: Ruleset, who: Character, opponents: Sequence[str], variants: Iterable[str] = (),
             facts: dict[str, Any] | None = None) -> dict[str, Odds]:
    """`fight_outcome` against each opponent (the same Odds but `runs`), opponents in one class sharing
    one enumeration."""
    on = tuple(variants)
    stat = str((facts or {}).get("fight_stat", "strength"))
    out: dict[str, Odds] = {}
    for members in classes(rules, opponents, stat):
        if len(members) > 1:
            try:
                out.update(_class_odds(rules, who, members, on, facts, stat))
                continue
            except _ONE_BY_ONE:
                pass  # (an error of the content: the one-by-one fights below raise it again, as before)
        for m in members:
            out[m] = monster_outcome_odds(rules, who, m, on, facts)
    return {o: out[o] for o in opponents}


def classes(rules: Ruleset, opponents: Sequence[str], stat: str) -> list[tuple[str, ...]]:
    """The opponents in classes the rules cannot tell apart but by `stat` (in the order given; an opponent
    that the rules name, that owns effects or cards, or whose stat is not a number, is a class alone)."""
    named = _named(rules)
    owners = {fx.owner for fx in rules.effects}
    parents = {e.parent for e in rules.entities.values() if e.parent is not None}
    groups: dict[Any, list[str]] = {}
    for o in opponents:
        e = rules.get(o)
        alone = (e is None or o in named or o in owners or o in parents or type(e.attr(stat)) is not int)
        key = (o,) if alone else ("class", e.kinds, e.tags, e.variant, e.parent)  # type: ignore[union-attr]
        groups.setdefault(key, []).append(o)
    return [tuple(v) for v in groups.values()]


def _named(rules: Ruleset) -> frozenset[str]:
    """Every string the rules could compare an id with: in entities' attributes, effects' trigger
    arguments, and the constants of the modules that define the effects and procedures."""
    def compute() -> frozenset[str]:
        found: set[str] = set()
        seen: set[int] = set()
        for e in rules.entities.values():
            _strings((e.attrs, e.name, e.tags, e.kinds), found, seen)
        modules = set()
        for fx in rules.effects:
            _strings(fx.trigger_args, found, seen)
            modules.add(getattr(fx.run, "__module__", None))
            _strings(fx.run, found, seen)
        for proc in (*rules.procedures.values(), *rules.end_rules, *([rules.winner] if rules.winner else [])):
            modules.add(getattr(proc.run, "__module__", None))
            _strings(proc.run, found, seen)
        for name in sorted(m for m in modules if m):
            module = sys.modules.get(name)
            if module is not None:  # (the modules it imports are not walked: the runtime names no entity)
                _strings([v for k, v in vars(module).items() if not k.startswith("__")
                          and not isinstance(v, ModuleType)], found, seen)
        return frozenset(found)
    return rules.memo(("named strings",), compute)  # type: ignore[no-any-return]


def _strings(x: Any, found: set[str], seen: set[int]) -> None:
    """Strings reachable from x: in containers, provisional values, functions' code constants, defaults and
    closures."""
    stack = [x]
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            found.add(x)
            continue
        if id(x) in seen:
            continue
        seen.add(id(x))
        if isinstance(x, (list, tuple, set, frozenset)):
            stack.extend(x)
        elif isinstance(x, dict):
            stack.extend(x.keys())
            stack.extend(x.values())
        elif isinstance(x, Provisional):
            stack.append(x.value)
        elif isinstance(x, CodeType):
            stack.extend(x.co_consts)
            stack.extend(x.co_names)
        elif isinstance(x, FunctionType):
            stack.append(x.__code__)
            stack.extend(x.__defaults__ or ())
            stack.extend(c.cell_contents for c in (x.__closure__ or ()) if _filled(c))


def _filled(cell: Any) -> bool:
    try:
        cell.cell_contents  # noqa: B018 - an empty cell raises
    except ValueError:
        return False
    return True


class _OpaqueName(dict):  # type: ignore[type-arg]
    """The stand-in's names: reading one stops the run."""

    def __getitem__(self, key: Any) -> Any:
        raise NeedsOpponent

    def get(self, key: Any, default: Any = None) -> Any:
        raise NeedsOpponent

    def __iter__(self) -> Iterator[Any]:
        raise NeedsOpponent

    def values(self) -> Any:
        raise NeedsOpponent

    def items(self) -> Any:
        raise NeedsOpponent


# Whether the runtime's classes are Python ones: the compiled runtime (accel.py) refuses the stand-in (an
# interpreted subclass of `EntityData`) and a `Target` as a fight's value to beat (typed `int` there), so there
# every opponent is fought alone (`_class_odds` raises `NeedsOpponent`): the same odds, more runs.
SHARED = isinstance(EntityData.__dict__.get("attr"), FunctionType)

if SHARED:
    class _StandIn(EntityData):
        """The opponents of a class as one entity: what they share, and `Opaque` where they differ."""

        __slots__ = ()

        def provisional(self, name: str) -> str | None:
            value = self.attrs.get(name)
            if isinstance(value, Opaque):
                raise NeedsOpponent
            return value.note if isinstance(value, Provisional) else None

        def label(self, lang: str = "en") -> str:
            raise NeedsOpponent


class _Entities(dict[str, EntityData]):
    """The game's entities and the stand-in, found by its id but in no listing (`of_kind`, `children`...): a
    rule that goes through the entities sees the game's own, the members of the class among them."""

    def __init__(self, entities: dict[str, EntityData], stand_in: EntityData) -> None:
        super().__init__(entities)
        self[stand_in.id] = stand_in
        self.listed = entities

    def __iter__(self) -> Iterator[str]:
        return iter(self.listed)

    def __len__(self) -> int:
        return len(self.listed)

    def keys(self) -> Any:
        return self.listed.keys()

    def values(self) -> Any:
        return self.listed.values()

    def items(self) -> Any:
        return self.listed.items()


@dataclass(frozen=True)
class _Class:
    rules: Ruleset  # the ruleset with the stand-in among its entities
    stand_in: EntityData
    values: dict[str, int]  # each member's value to beat


def _class(rules: Ruleset, members: tuple[str, ...], stat: str) -> _Class:
    def compute() -> _Class:
        es = [rules.entity(m) for m in members]
        first = es[0]
        names = {k for e in es for k in e.attrs}
        attrs = {k: (first.attrs.get(k) if k != stat and all(e.attrs.get(k) == first.attrs.get(k) for e in es)
                     else Opaque()) for k in sorted(names)}

        def same(field: str) -> Any:
            value = getattr(first, field)
            return value if all(getattr(e, field) == value for e in es) else Opaque()

        ident = f"{ORACLE}:{','.join(members)}"
        stand_in = _StandIn(ident, same("kind"), first.kinds, same("module"), _OpaqueName(), attrs, first.parent,
                            first.variant, first.tags, same("source"), same("copies"))
        copy = Ruleset(rules.game, _Entities(rules.entities, stand_in), rules.effects, rules.modules,
                       rules.procedures, rules.end_rules, rules.winner)
        return _Class(copy, stand_in, {m: int(e.attr(stat)) for m, e in zip(members, es, strict=True)})
    return rules.memo((_CLASSES, members, stat), compute)  # type: ignore[no-any-return]


class _ClassTree(TreeBuilder):
    """A `TreeBuilder` that keeps the question of each `ORACLE` branch."""

    def _branch(self, prefix: tuple[Any, ...], what: Any, first: Any) -> Any:
        if isinstance(what, Choice) and what.chooser == ORACLE:
            return ("oracle", what.point, ((False, first), (True, self.explore((*prefix, True)))))
        return super()._branch(prefix, what, first)


def _class_odds(rules: Ruleset, hero: Character, members: tuple[str, ...], variants: tuple[str, ...],
                facts: dict[str, Any] | None, stat: str) -> dict[str, Odds]:
    if not SHARED:
        raise NeedsOpponent
    cls = _class(rules, members, stat)
    candidates = frozenset(cls.values.values())
    on = frozenset(variants)
    stand_in = cls.stand_in
    kind = "dragon" if stand_in.is_a("dragon") or "dragon" in stand_in.tags else "monster"

    def process(inputs: Inputs) -> tuple[Side, tuple[str, ...]]:
        ctx = Context(cls.rules, inputs, on, dict(facts or {}))
        who = hero.copy()
        side = Side(who, opponent_id=stand_in.id)
        ctx.fight = Fight(kind, [side], stand_in, Target(Unknown(candidates, inputs)))  # type: ignore[arg-type]
        ctx.characters.setdefault(who.id, who)
        ctx.actor, ctx.side = who, side
        ctx.run_procedure("fight")
        if side.total is None or side.outcome is None:
            raise LoadoutError("the fight ended without an outcome")
        return side, tuple(sorted(ctx.provisional))

    def summary(run: tuple[Side, tuple[str, ...]]) -> tuple[str, int, tuple[str, ...]]:
        side, notes = run
        assert side.outcome is not None
        return (side.outcome, _spent(side), notes)

    tree = _ClassTree(process, summary, notes=lambda run: run[1]).tree()
    out = {}
    by_value: dict[int, tuple[Dist, frozenset[str]]] = {}  # (opponents of equal value take the same branches)
    for m in members:
        value = cls.values[m]
        if value not in by_value:
            by_value[value] = _evaluate(tree, value, hero.id, {})
        dist, notes = by_value[value]
        if any(ORACLE in n for n in notes):
            raise NeedsOpponent  # a note names the stand-in
        note = rules.entity(m).provisional(stat)
        out[m] = Odds.of(dist, {*notes, *([f"{m} {stat}: {note}"] if note else [])})
    return out


def _evaluate(tree: Tree, value: int, me: str, seen: dict[int, tuple[Dist, frozenset[str]]]) -> tuple[
        Dist, frozenset[str]]:
    """The distribution against the opponent whose value is `value`, with the notes of the leaves its
    enumeration reaches (every dice face and every option of a choice; the branch of each question that
    its value answers)."""
    done = seen.get(id(tree))
    if done is not None:
        return done
    kind = tree[0]
    if kind == "leaf":
        outcome, cost, notes = tree[1]
        out = (certain(Leaf(outcome, 0, cost)), frozenset(notes))
    elif kind == "oracle":
        op, n = tree[1].split(" ")
        out = _evaluate(tree[2][1 if OPS[op](value, int(n)) else 0][1], value, me, seen)
    elif kind == "dice":
        parts = [(w, _evaluate(sub, value, me, seen)) for w, sub in tree[1]]
        out = (mix([(w, d) for w, (d, _) in parts]), frozenset().union(*(n for _, (_, n) in parts)))
    else:
        options = [_evaluate(sub, value, me, seen) for _, sub in tree[2]]
        dists = [d for d, _ in options]
        out = (dists[best_of(dists, tree[1] == me)], frozenset().union(*(n for _, n in options)))
    seen[id(tree)] = out
    return out
