"""Characters built from cards: a fighter card that prints stats and their maxima (`max_<stat>`), the cards
added to it (a race card, abilities, items), its stats after every `always` modifier of those cards and of
the rules, and its slot limits. Game-neutral: which stats and which limits count comes from the caller
(the content's `odds` declaration), never from here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .context import Character, Context
from .model import EntityData


class SheetError(ValueError):
    """A character cannot be built from the cards asked for."""


@dataclass
class StatSheet:
    """A character's stats at the start and at most, and how many cards of each limited slot it may own
    (None: the content does not know), with the notes of the provisional values they rest on."""

    fighter: str
    cards: tuple[str, ...]
    start: dict[str, int | None]
    maximum: dict[str, int | None]
    limits: dict[str, int | None]
    provisional: list[str] = field(default_factory=list)


def _stat(entity: EntityData, name: str, notes: list[str]) -> int | None:
    note = entity.provisional(name)
    if note:
        notes.append(f"{entity.id}.{name}: {note}")
    value = entity.attr(name)
    return int(value) if isinstance(value, int) and not isinstance(value, bool) else None


def make_character(ctx: Context, fighter: str, cards: Sequence[str] = (), *, stats: Iterable[str],
                   limits: Iterable[str] = (), ident: str | None = None) -> tuple[Character, StatSheet]:
    """The character of the fighter card with the cards added: each stat is the printed value plus the
    `stat_mod` modifiers that fire on `always` (a modifier of unknown size leaves the stat unknown), and
    so is its maximum (`max_<stat>`); each limit is the `set_limit` value plus the `slot_limit` changes."""
    rules = ctx.rules
    card = rules.get(fighter)
    if card is None:
        raise SheetError(f"no fighter {fighter!r}")
    for c in cards:
        if rules.get(c) is None:
            raise SheetError(f"no card {c!r}")
    notes: list[str] = []
    who = Character(ident or ":".join([*cards, fighter]), cards=[fighter, *cards])
    ctx.setup = {}
    before = set(ctx.provisional)
    ctx.fire("always", who)
    notes.extend(sorted(set(ctx.provisional) - before))
    start: dict[str, int | None] = {}
    maximum: dict[str, int | None] = {}
    for stat in stats:
        mod = ctx.setup.get(f"stat:{stat}", 0)
        unknown = bool(ctx.setup.get(f"unknown:stat:{stat}"))
        s, m = _stat(card, stat, notes), _stat(card, f"max_{stat}", notes)
        start[stat] = None if s is None or unknown else s + mod
        maximum[stat] = None if m is None or unknown else m + mod
        if start[stat] is not None:
            who.stats[stat] = int(start[stat])  # type: ignore[arg-type]
        if maximum[stat] is not None:
            who.max_stats[stat] = int(maximum[stat])  # type: ignore[arg-type]
    got: dict[str, int | None] = {}
    for slot in limits:
        base = ctx.setup.get(f"base_limit:{slot}")
        unknown = bool(ctx.setup.get(f"unknown:limit:{slot}"))
        got[slot] = None if base is None or unknown else base + ctx.setup.get(f"limit:{slot}", 0)
        held = [c for c in cards if rules.entity(c).is_a(slot)]
        if got[slot] is not None and len(held) > int(got[slot]):  # type: ignore[arg-type]
            raise SheetError(f"a character owns at most {got[slot]} of {slot} (the content's limits); "
                             f"asked for {len(held)}")
    return who, StatSheet(fighter, tuple(cards), start, maximum, got, notes)


def set_stat(who: Character, stat: str, value: int) -> None:
    """The character owns `value` of the stat now (e.g. stones gained in play), within its maximum."""
    top = who.max_stats.get(stat)
    if value < 0 or (top is not None and value > top):
        raise SheetError(f"{stat} {value} is outside 0..{top if top is not None else '?'} for {who.id}")
    who.stats[stat] = value


def gain_stat(ctx: Context, who: Character, stat: str) -> None:
    """The character would gain a point of the stat; the `stat_gain` effects decide what happens."""
    ctx.prevented = False
    ctx.characters.setdefault(who.id, who)
    ctx.fire("stat_gain", who, stat=stat)
