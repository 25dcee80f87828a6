"""Game-neutral entry points for exact fight odds: what `cardc odds` and the balance tables call.

The compiler names no game: it reads from the content which kinds fight (an `odds` declaration) and asks
this module for fighters and odds. Items go into the slot their `slot` attribute names. The fight itself
is resolved by the engine: the game's procedure `fight` (fight.py, fight_odds.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from . import fight as engine  # the module that resolves one fight
from .characters import SheetError, StatSheet, make_character, set_stat
from .context import Character, Context
from .fight import LoadoutError, can_challenge, make_hero
from .fight_odds import duel_odds, duel_outcome_odds, monster_odds, monster_outcome_odds
from .inputs import Scripted
from .model import Ruleset
from .odds import Odds

__all__ = ["LoadoutError", "challenge_allowed", "character", "duel", "duel_outcome", "duel_outcomes", "engine",
           "fight", "fight_outcome", "fight_outcomes", "make_fighter", "place_items", "sheet"]

# Character fields that hold each slot's items (any other slot: `items`).
_SLOT_FIELDS = {"weapon": "weapons", "spell": "spells", "key": "keys", "treasure": "treasures"}


def place_items(rules: Ruleset, items: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """Items by the slot their `slot` attribute names, in the order given."""
    slots: dict[str, list[str]] = {}
    for item in items:
        entity = rules.get(item)
        if entity is None:
            raise LoadoutError(f"no item {item!r}")
        slot = entity.attr("slot")
        if not isinstance(slot, str):
            raise LoadoutError(f"{item} has no slot: it cannot be carried")
        slots.setdefault(slot, []).append(item)
    return {k: tuple(v) for k, v in slots.items()}


def make_fighter(rules: Ruleset, ident: str, *, lives: int | None = None,
                 slots: Mapping[str, Sequence[str]] | None = None, cursed: bool = False,
                 cards: Sequence[str] = (), stats: Sequence[str] = (), limits: Sequence[str] = (),
                 set_stats: Mapping[str, int] | None = None, variants: Iterable[str] = ()) -> Character:
    """A fighter with the items in its slots (checked against the slot limits). A fighter whose content
    declares `stats` (odds declaration) is instead built from its card and the `cards` added to it: its
    stats after their modifiers (`set_stats` overrides the current values), its limits checked."""
    if stats or cards or set_stats:
        if slots:
            raise LoadoutError(f"{ident} owns cards, not slots: give items as cards")
        return character(rules, ident, cards, stats=stats, limits=limits, set_stats=set_stats,
                         variants=variants)[0]
    given = dict(slots or {})
    unknown = sorted(set(given) - set(_SLOT_FIELDS))
    if unknown:
        raise LoadoutError(f"no slot {unknown[0]!r}; slots: {', '.join(_SLOT_FIELDS)}")
    fields = {_SLOT_FIELDS[k]: tuple(v) for k, v in given.items()}
    return make_hero(rules, ident, lives=lives, cursed=cursed, **fields)


def character(rules: Ruleset, fighter: str, cards: Sequence[str] = (), *, stats: Sequence[str],
              limits: Sequence[str] = (), set_stats: Mapping[str, int] | None = None,
              variants: Iterable[str] = ()) -> tuple[Character, StatSheet]:
    """A fighter built from its card and the cards added to it, with its sheet (see `characters`)."""
    ctx = Context(rules, Scripted(), frozenset(variants))
    try:
        who, got = make_character(ctx, fighter, cards, stats=stats, limits=limits)
        for stat, value in (set_stats or {}).items():
            set_stat(who, stat, value)
    except SheetError as e:
        raise LoadoutError(str(e)) from None
    return who, got


def fight(rules: Ruleset, who: Character, opponent: str, variants: Iterable[str] = (),
          facts: dict[str, Any] | None = None) -> Odds:
    """Exact odds of `who` fighting the opponent entity."""
    return monster_odds(rules, who, opponent, variants, facts)


def fight_outcome(rules: Ruleset, who: Character, opponent: str, variants: Iterable[str] = (),
                  facts: dict[str, Any] | None = None) -> Odds:
    """Exact win / tie / loss of `who` fighting the opponent entity, without the consequences (faster)."""
    return monster_outcome_odds(rules, who, opponent, variants, facts)


def fight_outcomes(rules: Ruleset, who: Character, opponents: Sequence[str], variants: Iterable[str] = (),
                   facts: dict[str, Any] | None = None) -> dict[str, Odds]:
    """`fight_outcome` against each opponent; opponents the rules tell apart only by the value fought against
    share one enumeration (fight_classes.py)."""
    from .fight_classes import outcomes

    return outcomes(rules, who, opponents, variants, facts)


def duel(rules: Ruleset, attacker: Character, defender: Character, variants: Iterable[str] = (),
         facts: dict[str, Any] | None = None) -> Odds:
    """Exact odds of a duel with its consequences (lives, items, flights) as extra events."""
    return duel_odds(rules, attacker, defender, variants, facts)


def duel_outcome(rules: Ruleset, attacker: Character, defender: Character, variants: Iterable[str] = (),
                 facts: dict[str, Any] | None = None) -> Odds:
    """Exact win / tie / loss of the attacker in a duel, without the consequences (faster)."""
    return duel_outcome_odds(rules, attacker, defender, variants, facts)


def duel_outcomes(rules: Ruleset, fighters: Sequence[Character], variants: Iterable[str] = (),
                  facts: dict[str, Any] | None = None) -> dict[tuple[str, str], Odds]:
    """`duel_outcome` of every fighter attacking every other, by (attacker, defender); a fighter's roll that
    never reads its opponent is enumerated once for all of them (opponent_blind.py)."""
    from .opponent_blind import duel_table_outcomes

    return duel_table_outcomes(rules, fighters, variants, facts)


def challenge_allowed(rules: Ruleset, attacker: Character, defender: Character, variants: Iterable[str],
                      facts: dict[str, Any]) -> bool:
    """Whether a rule offers the attacker a challenge when the two meet (e.g. both armed)."""
    return can_challenge(Context(rules, Scripted(), frozenset(variants), dict(facts)), attacker, defender)


def sheet(rules: Ruleset, fighter: str, card: str | None, variants: Iterable[str], stats: Sequence[str],
          limits: Sequence[str]) -> tuple[dict[str, int | None], dict[str, int | None], dict[str, int | None],
                                          list[str]]:
    """A fighter's stats at the start and at most, and its slot limits (None: not known), with the notes
    of the provisional values they rest on."""
    _, got = character(rules, fighter, (card,) if card else (), stats=stats, limits=limits, variants=variants)
    return ({k: got.start.get(k) for k in stats}, {k: got.maximum.get(k) for k in stats},
            {k: got.limits.get(k) for k in limits}, list(got.provisional))
