"""The effect vocabulary in Python: one function per catalogue verb, called by generated code with the
catalogue's parameter names as keywords (a Python keyword gets a trailing underscore: `from_`).

Conditions return a bool computed from the state (a lone fight, as `cardc odds` runs one, has no table:
what only a table knows is then an explicit fact of the situation); modifiers change the fight side or the
setup in progress; actions change the state. Every catalogue verb that is not marked `descriptive` has a
function here or in a module imported at the end (checked by `cardc.backends.python.vocabulary`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from .context import Character, Context, Side

Range = tuple[int, int]


def _in(value: int, r: Range | int) -> bool:
    lo, hi = (r, r) if isinstance(r, int) else r
    return lo <= value <= hi


def _side(ctx: Context) -> Side:
    if ctx.side is None:
        raise RuntimeError(f"{ctx.owner}: this effect needs a fight in progress")
    return ctx.side


def _actor(ctx: Context) -> Character:
    if ctx.actor is None:
        raise RuntimeError(f"{ctx.owner}: this effect needs a character")
    return ctx.actor


# ---- conditions ------------------------------------------------------------------------


def lives(ctx: Context, range: Range) -> bool:  # noqa: A002 - the catalogue's parameter name
    return _in(_actor(ctx).lives, range)


def last_life(ctx: Context) -> bool:
    """One life left: at a fight's result, before the loss is paid, the loss would take the last one."""
    return _actor(ctx).lives == 1


def on_turn(ctx: Context) -> bool:
    """The hero is the one whose turn it is: the fact `active` names it (absent: assumed not on turn)."""
    active = ctx.facts.get("active")
    if active is None:
        ctx.provisional.add("assumed no hero is on turn (fact `active` not given)")
    return active == _actor(ctx).id


def stat_is(ctx: Context, stat: str, range: Range) -> bool:  # noqa: A002
    return _in(_actor(ctx).stats.get(stat, 0), range)


def at_maximum(ctx: Context, stat: str) -> bool:
    who = _actor(ctx)
    if stat == "lives":
        return who.lives >= who.max_lives
    return who.stats.get(stat, 0) >= who.max_stats.get(stat, 0)


def cursed(ctx: Context) -> bool:
    return _actor(ctx).cursed


def holds(ctx: Context, item: str) -> bool:
    return item in _actor(ctx).held()




def variant_on(ctx: Context, variant: str) -> bool:
    return variant in ctx.variants


def result(ctx: Context, outcome: str) -> bool:
    return _side(ctx).outcome == outcome


def double(ctx: Context, faces: Range) -> bool:
    side = _side(ctx)
    dice = [d if d in side.rolled_in_doubles else side.counts_as.get(d, d) for d in side.dice]
    return len(dice) == 2 and dice[0] == dice[1] and _in(dice[0], faces)




def roll_in(ctx: Context, range: Range) -> bool:  # noqa: A002
    return ctx.last_roll is not None and _in(ctx.last_roll, range)


def first_step(ctx: Context) -> bool:
    return bool(ctx.fact("first_step", False))


def against(ctx: Context, opponent: str) -> bool:
    fight = ctx.fight
    if fight is None:
        return False
    if fight.monster is None:
        return opponent in ("hero", "character")
    m = fight.monster
    return opponent == "monster" or opponent == m.id or m.is_a(opponent) or opponent in m.tags


def first_entry(ctx: Context) -> bool:
    return bool(ctx.fact("first_entry", True))


def players(ctx: Context, range: Range) -> bool:  # noqa: A002
    return _in(int(ctx.facts.get("players", len(ctx.characters))), range)


def margin(ctx: Context, range: Range) -> bool:  # noqa: A002
    return _in(_side(ctx).margin, range)


def took_reward(ctx: Context) -> bool:
    """An explicit input (default: the hero takes the reward it won)."""
    return bool(ctx.facts.get("took_reward", True))


def possessed(ctx: Context) -> bool:
    return _actor(ctx).possessed


def opponent_lacks(ctx: Context, item: str) -> bool:
    fight, side = ctx.fight, _side(ctx)
    other = fight.other(side) if fight else None
    return other is not None and item not in other.who.held() and item not in other.who.cards


def opponent_tagged(ctx: Context, tag: str) -> bool:
    fight = ctx.fight
    if fight is None or fight.monster is None:
        return False
    return tag in fight.monster.tags or fight.monster.is_a(tag)


# ---- modifiers -------------------------------------------------------------------------


def attack(ctx: Context, amount: int) -> None:
    _side(ctx).attack += amount


def weapon_value(ctx: Context, item: str, value: int) -> None:
    _side(ctx).weapon_values[item] = value


def die_counts_as(ctx: Context, face: int, as_: int, in_doubles: bool = True) -> None:
    side = _side(ctx)
    side.counts_as[face] = as_
    if not in_doubles:
        side.rolled_in_doubles.add(face)


def tie_wins(ctx: Context) -> None:
    _side(ctx).tie_wins = True


def keep_after_use(ctx: Context, item: str) -> None:
    _side(ctx).keep.add(item)


def slot_limit(ctx: Context, slot: str, amount: int | None) -> None:
    if amount is None:
        ctx.setup[f"unknown:limit:{slot}"] = 1
        return
    key = f"limit:{slot}"
    ctx.setup[key] = ctx.setup.get(key, 0) + amount


def stat_mod(ctx: Context, stat: str, amount: int | None) -> None:
    if amount is None:
        ctx.setup[f"unknown:stat:{stat}"] = 1
        return
    ctx.setup[f"stat:{stat}"] = ctx.setup.get(f"stat:{stat}", 0) + amount


def item_in_slot(ctx: Context, item: str, slot: str) -> None:
    if ctx.side is not None:
        ctx.side.slot_ok.add((item, slot))
    ctx.setup[f"slot:{item}:{slot}"] = 1


def after_roll(ctx: Context) -> None:
    _side(ctx).after_roll.add(ctx.owner)


def spells_after_roll(ctx: Context) -> None:
    """Every spell the fighter holds may be chosen after its own roll (the house-rules duel); the engine
    then offers none before the roll, since choosing later, knowing the dice, is never worse."""
    side = _side(ctx)
    side.spells_after_roll = True
    side.after_roll.update(side.who.spells)


def no_retreat(ctx: Context) -> None:
    _side(ctx).no_retreat = True


def retreat_to(ctx: Context, where: str) -> None:
    _side(ctx).retreat_to = where


def loss_costs(ctx: Context, lives: int) -> None:
    _side(ctx).loss_costs = lives


def tie_costs(ctx: Context, lives: int) -> None:
    _side(ctx).tie_costs = lives


def opponent_mod(ctx: Context, amount: int) -> None:
    _side(ctx).opponent_mod += amount


# ---- actions ---------------------------------------------------------------------------


def lose_life(ctx: Context, amount: int = 1) -> None:
    who = _actor(ctx)
    if ctx.side is not None and ctx.side.outcome is None:
        ctx.side.lives_spent += amount
    ctx.lose_lives(who, amount)


def gain_life(ctx: Context, amount: int = 1) -> None:
    who = _actor(ctx)
    who.lives = min(who.max_lives, who.lives + amount)
    ctx.record("gain_life", amount)


def heal_full(ctx: Context) -> None:
    who = _actor(ctx)
    who.lives = who.max_lives
    who.unconscious = False
    ctx.record("heal_full")


def heal_choose(ctx: Context) -> None:
    who = _actor(ctx)
    options = tuple(range(who.lives, who.max_lives + 1))
    who.lives = int(ctx.ask("heal_to", options[::-1]))
    ctx.record("heal_to", who.lives)




def remove_curse(ctx: Context) -> None:
    _actor(ctx).cursed = False
    ctx.record("curse_removed")


def roll(ctx: Context, dice: tuple[int, int] = (1, 6)) -> None:
    ctx.last_roll = sum(ctx.roll(dice[1]) for _ in range(dice[0]))
    ctx.record("roll", ctx.last_roll)




def damage_opponent(ctx: Context, amount: int = 1) -> None:
    me = _actor(ctx)
    others = tuple(sorted(c for c in ctx.characters if c != me.id))
    if not others:
        ctx.record("damage_opponent", None, amount)
        return
    target = str(ctx.ask("damage_target", others))
    ctx.record("damage_opponent", target, amount)
    ctx.lose_lives(ctx.characters[target], amount)




def _remove(who: Character, item: str) -> bool:
    for slot in (who.weapons, who.spells, who.keys, who.treasures, who.items):
        if item in slot:
            slot.remove(item)
            return True
    return False


def discard(ctx: Context) -> None:
    """The item running this effect leaves the game."""
    _remove(_actor(ctx), ctx.owner)
    ctx.record("discard", ctx.owner)


# ---- conditions added by the content ------------------------------------------------------


def armed(ctx: Context, who: str = "self") -> bool:
    me = bool(_actor(ctx).weapons)
    other = _other(ctx)
    them = bool(other.weapons) if other is not None else False
    return {"self": me, "other": them, "both": me and them}.get(who, me)


def _other(ctx: Context) -> Character | None:
    if ctx.fight is not None and ctx.side is not None:
        side = ctx.fight.other(ctx.side)
        return side.who if side is not None else None
    other = ctx.facts.get("other")
    return ctx.characters.get(str(other)) if other else None


# The faces asked about among a fight's earlier faces (`seen_faces`), while the exact odds track them (None:
# not tracked): two paths that differ only in faces nobody asked about share their work (run_state.py).
SEEN_ASKED: list[set[int] | None] = [None]


def die_shows(ctx: Context, face: int, any_roll: bool = False) -> bool:
    side = _side(ctx)
    if face in side.dice:
        return True
    if any_roll:
        asked = SEEN_ASKED[0]
        if asked is not None:
            asked.add(face)
        return face in side.seen_faces
    return False


def first_use(ctx: Context, per: str) -> bool:
    """True the first time in the scope; asking marks the effect as used (it is about to run)."""
    if per == "fight":
        scope: object = ("fight", ctx.fight.serial if ctx.fight is not None else None)
    elif per == "turn":
        scope = ("turn", ctx.turn)
    else:
        scope = "game"
    key = (ctx.effect, scope)
    if key in ctx.used:
        return False
    ctx.used.add(key)
    return True


def defending(ctx: Context) -> bool:
    return ctx.side is not None and not ctx.side.attacker


def last_step(ctx: Context) -> bool:
    return bool(ctx.facts.get("last_step", False))


def fight_by(ctx: Context, source: str) -> bool:
    return ctx.facts.get("fight_by") == source


def owns(ctx: Context, card: str) -> bool:
    who = _actor(ctx)
    return card in who.cards or card in who.held()


def opponent_owns(ctx: Context, card: str) -> bool:
    other = _other(ctx)
    return other is not None and (card in other.cards or card in other.held())




# ---- modifiers added by the content -------------------------------------------------------


def fight_dice(ctx: Context, dice: tuple[int, int]) -> None:
    _side(ctx).dice_spec = dice


def no_abilities(ctx: Context) -> None:
    _actor(ctx).no_abilities = True


def slot_frozen(ctx: Context, item: str, slot: str) -> None:
    if ctx.side is not None:
        ctx.side.slot_ok.discard((item, slot))
        ctx.side.frozen.add((item, slot))


_LIMIT_KEYS: Final[dict[str, str]] = {}  # slot -> its `setup` key (`always` sets the limits at every turn)


def set_limit(ctx: Context, slot: str, value: int) -> None:
    key = _LIMIT_KEYS.get(slot)
    if key is None:
        key = _LIMIT_KEYS[slot] = f"base_limit:{slot}"
    ctx.setup[key] = value


def opponent_stat(ctx: Context, stat: str, amount: int) -> None:
    side = _side(ctx)
    side.opponent_stats[stat] = side.opponent_stats.get(stat, 0) + amount


# ---- actions added by the content ---------------------------------------------------------


def prevent(ctx: Context) -> None:
    """The event being fired does not happen (the engine reads the flag)."""
    ctx.prevented = True
    ctx.record("prevent", ctx.owner)


def reroll(ctx: Context, which: str = "all", repeat: bool = False) -> None:
    """Re-roll the fight's dice; `repeat` re-rolls ones until none is left, at most 5 times (a cap so the
    enumeration ends; the chance of a 6th round is (1/6)^5)."""
    side = _side(ctx)
    if not side.first_dice:
        side.first_dice = tuple(side.dice)
    sides = side.dice_spec[1]
    if which == "ones":
        for _ in range(5 if repeat else 1):
            kept = [d for d in side.dice if d != 1]
            side.dice = kept + ctx.roll_dice(len(side.dice) - len(kept), sides)
            side.seen_faces.update(side.dice)
            if 1 not in side.dice:
                break
    elif which == "one":
        i = int(ctx.ask("reroll_which", tuple(range(len(side.dice)))))
        side.dice[i] = ctx.roll(sides)
    else:
        n = len(side.dice)
        side.dice = []  # the old faces are gone before the new ones come (a paused run holds none of them)
        side.dice = ctx.roll_dice(n, sides)
    side.seen_faces.update(side.dice)
    side.rerolled = True
    ctx.record("reroll", which, tuple(side.dice))


def curse(ctx: Context, who: str = "self") -> None:
    """There is one curse: it moves onto the chosen hero and leaves every other."""
    me = _actor(ctx)
    if who == "self":
        target = me.id
    else:
        pool = sorted(c for c in ctx.characters if who == "chosen" or c != me.id) or [me.id]
        target = str(ctx.ask("curse_target", tuple(pool)))
    for c in ctx.characters.values():
        c.cursed = False
    (ctx.characters.get(target) or me).cursed = True
    ctx.record("cursed", target)


def _droppable(ctx: Context, who: Character) -> list[str]:
    """What the hero can still leave behind: not the spells it has just cast in this fight and will
    discard after it (a spent spell is gone, it cannot be left on a tile for someone else)."""
    held = who.held()
    side = ctx.side
    if side is not None and side.who is who:
        for spell in side.spells_used:
            if spell not in side.keep and spell in held:
                held.remove(spell)
    return held


def drop_item(ctx: Context, where: str = "here") -> None:
    """Leave an item on a tile: the item running this effect, or one the hero picks."""
    who = _actor(ctx)
    held = _droppable(ctx, who)
    item = ctx.owner if ctx.owner in held else (
        str(ctx.ask("drop_item", tuple(sorted(set(held))))) if held else None)
    if item is not None:
        _remove(who, item)
    ctx.record("drop_item", item, where)


def restore(ctx: Context, stat: str, amount: int = 1) -> None:
    """Spent stones of the stat come back (lives healed, magic regained)."""
    who = _actor(ctx)
    who.spent[stat] = max(0, who.spent.get(stat, 0) - amount)
    if stat == ctx.facts.get("lives_stat"):  # in play the stat's stones are the lives
        who.lives = min(who.max_lives, who.lives + amount)
    ctx.record("restore", stat, amount)


def restore_all(ctx: Context) -> None:
    who = _actor(ctx)
    who.spent = {k: 0 for k in who.spent}
    if "lives_stat" in ctx.facts:  # in play one stat's stones are the lives: all healed
        who.lives = who.max_lives
        who.unconscious = False
    ctx.record("restore_all")


def raise_stat(ctx: Context, stat: str, amount: int = 1) -> None:
    """New stones: the stat (stones owned, and so the available ones) rises, never above its maximum."""
    who = _actor(ctx)
    top = who.max_stats.get(stat)
    new = who.stats.get(stat, 0) + amount
    who.stats[stat] = new if top is None else min(top, new)
    ctx.record("raise_stat", stat, who.stats[stat])


def cards_inactive(ctx: Context, deck: str) -> None:
    """Cards from the deck have no effect in this fight (or from now on outside a fight)."""
    if ctx.side is not None:
        ctx.side.inactive.add(deck)
    else:
        ctx.inactive.add(deck)


def gain_abilities(ctx: Context, from_: str = "other_heroes_in_play") -> None:
    """The hero takes on the abilities of every other hero in play."""
    who = _actor(ctx)
    have = list(who.abilities) if who.abilities is not None else list(who.own_abilities(ctx.rules))
    for other in sorted(ctx.characters):
        if other != who.id:
            have.extend(a for a in ctx.characters[other].own_abilities(ctx.rules) if a not in have)
    who.abilities = have
    ctx.record("gain_abilities", from_)


def lose_abilities(ctx: Context) -> None:
    """The hero loses the abilities of its own sheet (it keeps those gained from others)."""
    who = _actor(ctx)
    own = set(who.own_abilities(ctx.rules))
    have = who.abilities if who.abilities is not None else sorted(own)
    who.abilities = [a for a in have if a not in own]
    ctx.record("lose_abilities")


def swap_sheet(ctx: Context, sheet: str) -> None:
    who = _actor(ctx)
    if sheet not in who.cards:
        who.cards.append(sheet)
    ctx.record("swap_sheet", sheet)


def possess_weakest(ctx: Context, order: tuple[str, ...] = ()) -> None:
    """Pick the weakest hero by the criteria in `order`; `becomes_lord` effects do the rest."""
    from .fight import weakest

    heroes = [ctx.characters[c] for c in sorted(ctx.characters)]
    chosen, reason = weakest(ctx, heroes, order)
    chosen.possessed = True
    ctx.lord = chosen.id
    ctx.record("possessed", chosen.id, reason)
    ctx.fire("becomes_lord", chosen)


def fall_unconscious(ctx: Context) -> None:
    """The hero falls unconscious (unless a `prevent` of the same event steps in)."""
    who = _actor(ctx)
    who.unconscious = True
    ctx.record("fall_unconscious")


def final_battle(ctx: Context) -> bool:
    """The final battle is under way: its start (`final_battle_start`) has been fired in this game."""
    return "final_battle_start" in ctx.fired


def spent(ctx: Context, stat: str) -> bool:
    """Some stones of the stat lie spent (lost lives for strength, used magic for will)."""
    who = _actor(ctx)
    return who.spent.get(stat, 0) > 0 or (stat == ctx.facts.get("lives_stat") and who.lives < who.max_lives)


# The verbs over a table of cards (decks, places, resources, standing rules) live in their own module.
# The verbs that play on the table (fight steps, board, bag, turn) live in their own module; they replace any
# table-less version above. What `from module import *` would bind, bound by hand: a compiled runtime's star
# imports bind nothing (mypy still sees them, for the callers' types).
from . import (  # noqa: E402
    ability_verbs,
    card_play_verbs,
    chance_verbs,
    play_verbs,
    ring_verbs,
    stat_verbs,
    table_verbs,
)

for _module in (ability_verbs, card_play_verbs, chance_verbs, play_verbs, ring_verbs, stat_verbs, table_verbs):
    _names = getattr(_module, "__all__", None)
    globals().update((n, getattr(_module, n)) for n in (
        _names if _names is not None else [n for n in vars(_module) if not n.startswith("_")]))

if TYPE_CHECKING:
    from .ability_verbs import *  # noqa: F403
    from .card_play_verbs import *  # noqa: F403
    from .chance_verbs import *  # noqa: F403
    from .play_verbs import *  # noqa: F403
    from .ring_verbs import *  # noqa: F403
    from .stat_verbs import *  # noqa: F403
    from .table_verbs import *  # noqa: F403
