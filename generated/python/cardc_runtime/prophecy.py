"""Prophecy's rules of play through the generated effects: characters from profession and race cards,
limits, stat gains and fights.

The fight formula (each side rolls a die and adds the stat fought with; higher wins; a tie decides
nothing) is the base game's, which the seeds do not state: every fight result is marked provisional.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .context import Character, Context, Fight, Outcome, Side
from .model import EntityData

FIGHT_NOTE = "Prophecy fight formula (d6 + stat on each side, higher wins) is the base game's, not in the seeds"
STATS = ("strength", "will")


@dataclass
class StatSheet:
    """A character's stones at the start and at most, and how many abilities and items it may own."""

    profession: str
    race: str | None
    start: dict[str, int | None]
    maximum: dict[str, int | None]
    limits: dict[str, int | None]
    provisional: list[str] = field(default_factory=list)


def _stat(entity: EntityData, name: str, notes: list[str]) -> int | None:
    note = entity.provisional(name)
    if note:
        notes.append(f"{entity.id}.{name}: {note}")
    value = entity.attr(name)
    return int(value) if isinstance(value, int) else None


def make_character(ctx: Context, profession: str, race_card: str | None = None,
                   cards: tuple[str, ...] = (), ident: str | None = None) -> tuple[Character, StatSheet]:
    """A character of the profession (and race card): its stones after every `always` modifier."""
    rules = ctx.rules
    prof = rules.entity(profession)
    if not prof.is_a("profession"):
        raise ValueError(f"{profession} is not a profession")
    if race_card is not None and not rules.entity(race_card).is_a("race_card"):
        raise ValueError(f"{race_card} is not a race card")
    notes: list[str] = []
    who = Character(ident or (profession if race_card is None else f"{race_card}:{profession}"),
                    cards=[profession, *([race_card] if race_card else []), *cards])
    ctx.setup = {}
    before = set(ctx.provisional)
    ctx.fire("always", who)
    notes.extend(sorted(set(ctx.provisional) - before))
    start: dict[str, int | None] = {}
    maximum: dict[str, int | None] = {}
    for stat in STATS:
        mod = ctx.setup.get(f"stat:{stat}", 0)
        unknown = bool(ctx.setup.get(f"unknown:stat:{stat}"))
        s, m = _stat(prof, stat, notes), _stat(prof, f"max_{stat}", notes)
        start[stat] = None if s is None or unknown else s + mod
        maximum[stat] = None if m is None or unknown else m + mod
        if start[stat] is not None:
            who.stats[stat] = int(start[stat])  # type: ignore[arg-type]
        if maximum[stat] is not None:
            who.max_stats[stat] = int(maximum[stat])  # type: ignore[arg-type]
    limits: dict[str, int | None] = {}
    for slot in ("ability", "item"):
        base = ctx.setup.get(f"base_limit:{slot}")
        unknown = bool(ctx.setup.get(f"unknown:limit:{slot}"))
        limits[slot] = None if base is None or unknown else base + ctx.setup.get(f"limit:{slot}", 0)
    sheet = StatSheet(profession, race_card, start, maximum, limits, notes)
    return who, sheet


def gain_stat(ctx: Context, who: Character, stat: str) -> None:
    """The character would gain a point of the stat; the `stat_gain` effects decide what happens."""
    ctx.prevented = False
    ctx.characters.setdefault(who.id, who)
    ctx.fire("stat_gain", who, stat=stat)


def _roll(ctx: Context, side: Side, base: int) -> None:
    who = side.who
    side.dice_spec = (1, 6)
    ctx.fire("always", who, side)
    ctx.fire("fight_start", who, side)
    count, sides = side.dice_spec
    side.dice = ctx.roll_dice(count, sides)
    side.seen_faces.update(side.dice)
    ctx.fire("fight_roll", who, side)
    ctx.fire("fight_total", who, side)
    side.total = sum(side.faces()) + base + side.attack


@dataclass
class ProphecyFight:
    outcome: Outcome
    total: int
    against: int
    side: Side
    provisional: tuple[str, ...]
    log: list[tuple[Any, ...]]


def fight(ctx: Context, who: Character, opponent: str | Character, stat: str = "strength",
          place: str | None = None) -> ProphecyFight:
    """A fight with a monster (its die + its stat) or another character (same formula), provisional."""
    ctx.provisional.add(FIGHT_NOTE)
    if place is not None:
        ctx.facts = {**ctx.facts, "place": place}
    ctx.characters.setdefault(who.id, who)
    side = Side(who)
    if isinstance(opponent, Character):
        other = Side(opponent, attacker=False)
        ctx.fight = Fight("character", [side, other])
        _roll(ctx, side, who.stats.get(stat, 0))
        _roll(ctx, other, opponent.stats.get(stat, 0))
        assert other.total is not None
        theirs = other.total + side.opponent_mod + side.opponent_stats.get(stat, 0)
    else:
        monster = ctx.rules.entity(opponent)
        value = monster.attr(stat)
        if not isinstance(value, int):
            raise ValueError(f"{opponent} has no known {stat}")
        ctx.fight = Fight("monster", [side], monster, value)
        _roll(ctx, side, who.stats.get(stat, 0))
        theirs = sum(ctx.roll_dice(1, 6)) + value + side.opponent_mod + side.opponent_stats.get(stat, 0)
    assert side.total is not None
    mine = side.total
    side.outcome = "win" if mine > theirs else "loss" if mine < theirs else "tie"
    side.margin = abs(mine - theirs)
    ctx.fire("fight_result", who, side)
    ctx.fight = None
    return ProphecyFight(side.outcome, mine, theirs, side, tuple(sorted(ctx.provisional)), ctx.log)
