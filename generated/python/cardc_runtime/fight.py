"""Fights and the pieces of a fight that the game's procedures call: no game is named here.

The order of a fight (who rolls, when spells are chosen, when effects fire) is the content's procedure
`fight` (and `attack_roll` for one side); this module sets a fight up, offers the choices and counts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .context import Character, Context, Fight, Outcome, Side
from .inputs import Inputs
from .model import Ruleset


class LoadoutError(ValueError):
    """A hero cannot carry what was asked for."""


def make_hero(rules: Ruleset, hero_id: str, *, lives: int | None = None, weapons: tuple[str, ...] = (),
              spells: tuple[str, ...] = (), keys: tuple[str, ...] = (), treasures: tuple[str, ...] = (),
              cursed: bool = False) -> Character:
    """A hero with a checked loadout (the effects that widen slots are consulted)."""
    entity = rules.get(hero_id)
    if entity is None or not entity.is_a("hero"):
        raise LoadoutError(f"no hero {hero_id!r}; heroes: {', '.join(e.id for e in rules.of_kind('hero'))}")
    max_lives = int(entity.attr("lives", 5))
    who = Character(hero_id, max_lives if lives is None else lives, max_lives, list(weapons), list(spells),
                    list(keys), list(treasures), cursed=cursed)
    if not 1 <= who.lives <= max_lives:
        raise LoadoutError(f"{hero_id} has 1 to {max_lives} lives, not {who.lives}")
    for item in (*weapons, *spells, *keys, *treasures):
        if rules.get(item) is None or not rules.entity(item).is_a("item"):
            raise LoadoutError(f"no item {item!r}")
    for item in weapons:
        if not rules.entity(item).is_a("weapon"):
            raise LoadoutError(f"{item} is not a weapon")
    limits = slot_limits(rules)
    for slot, held in (("weapon", weapons), ("spell", spells), ("key", keys)):
        if slot in limits and len(held) > limits[slot]:
            raise LoadoutError(f"a hero carries at most {limits[slot]} {slot}s (the content's set_limit)")
    check_spell_slots(Context(rules, _FirstOption()), who)
    return who


def slot_limits(rules: Ruleset, variants: frozenset[str] = frozenset()) -> dict[str, int]:
    """How many items of each slot a character may carry, as the content's `set_limit` modifiers say."""
    known: dict[frozenset[str], dict[str, int]] = rules.table("slot limits")  # (by variants)
    found = known.get(variants)
    if found is None:
        probe = Context(rules, _FirstOption(), variants)
        probe.fire("always", None)
        found = known[variants] = {k.split(":", 1)[1]: v for k, v in probe.setup.items()
                                   if k.startswith("base_limit:")}
    return found


def check_spell_slots(ctx: Context, who: Character) -> None:
    """Items in spell slots must be spells, unless an effect of the hero allows it (item_in_slot)."""
    side = Side(who.copy())
    probe = Context(ctx.rules, _FirstOption(), ctx.variants, dict(ctx.facts))
    probe.fight = Fight("monster", [side])
    probe.fire("always", side.who, side)
    probe.fire("fight_start", side.who, side)
    for item in who.spells:
        allowed = (item, "spell") in side.slot_ok or (item, "spell") in side.frozen
        if not ctx.rules.entity(item).is_a("spell") and not allowed:
            raise LoadoutError(f"{item} cannot go in a spell slot of {who.id}")


class _FirstOption(Inputs):
    """Inputs for a probe: every die shows 1, every choice takes its first option."""

    def roll(self, sides: int) -> int:
        return 1

    def choose(self, choice: Any) -> Any:
        return choice.options[0]


def _attack_of(ctx: Context, side: Side, item: str) -> int:
    values = side.weapon_values
    if values and item in values:
        return values[item]
    # an item's own attack, an entity attribute: looked up once per ruleset (counted for every weapon at every
    # fight, and the exact odds count ~3,000 fights a game)
    known: dict[str, int] = ctx.rules.table("attack of items")
    found = known.get(item)
    if found is None:
        found = known[item] = int(ctx.rules.entity(item).attr("attack", 0) or 0)
    return found


def _usable_spells(ctx: Context, side: Side) -> list[str]:
    """Spells held that work in a fight (not those used in one's own turn)."""
    spells = side.who.spells
    if not spells:
        return []
    known: dict[str, bool] = ctx.rules.table("spell works in a fight")  # (entity attributes: once per ruleset)
    out = []
    for s in spells:
        works = known.get(s)
        if works is None:
            e = ctx.rules.entity(s)
            works = known[s] = e.is_a("spell") and e.attr("used_in", "fight") == "fight"
        if works:
            out.append(s)
    return out


def offer_spells(ctx: Context, side: Side, *, after: bool) -> None:
    """Ask, per kind of spell held, how many to use now (first option: none)."""
    left = _usable_spells(ctx, side)
    if not left:  # (most sides hold none: no set made and sorted for nothing, 4 times a fight)
        return
    for used in side.spells_used:
        left.remove(used)
    if not after and side.spells_after_roll:
        return  # choosing later, knowing the dice, is never worse
    for spell in sorted(set(left)):
        if after and spell not in side.after_roll and not side.spells_after_roll:
            continue
        n = left.count(spell)
        point = f"spell_after_roll:{spell}" if after else f"spell:{spell}"
        k = int(ctx.ask(point, tuple(range(n + 1)), side.who.id))
        side.spells_used.extend([spell] * k)


def roll_attack(ctx: Context, side: Side) -> None:
    count, sides = side.dice_spec
    side.dice = ctx.roll_dice(count, sides)
    side.first_dice = tuple(side.dice)
    side.seen_faces.update(side.dice)


def count_attack(ctx: Context, side: Side) -> None:
    """The total: dice as they count, carried weapons, items allowed in other slots, spells used, modifiers."""
    who = side.who
    weapons = sum(_attack_of(ctx, side, w) for w in who.weapons)
    in_slots = sum(_attack_of(ctx, side, s) for s in who.spells
                   if not ctx.rules.entity(s).is_a("spell") and (s, "spell") in side.slot_ok
                   and (s, "spell") not in side.frozen)
    spells = sum(_attack_of(ctx, side, s) for s in side.spells_used)
    side.total = sum(side.faces()) + weapons + in_slots + spells + side.attack


def roll_side(ctx: Context, side: Side) -> None:
    """One side's attack, as the game's procedure `attack_roll` declares it."""
    saved = (ctx.actor, ctx.side)
    ctx.actor, ctx.side = side.who, side
    try:
        ctx.run_procedure("attack_roll")
    finally:
        ctx.actor, ctx.side = saved


def _compare(mine: int, theirs: int, tie_wins: bool, their_tie_wins: bool = False) -> Outcome:
    if mine > theirs:
        return "win"
    if mine < theirs:
        return "loss"
    if tie_wins and not their_tie_wins:
        return "win"
    if their_tie_wins and not tie_wins:
        return "loss"
    return "tie"


def compare_totals(ctx: Context, fight: Fight) -> None:
    """Against a monster the total must beat its strength; between two sides the higher total wins.
    The result goes to the log as `fight` (opponent, first dice, dice, total, against, outcome)."""
    if len(fight.sides) == 1:
        side = fight.sides[0]
        assert side.total is not None and fight.target is not None
        target = fight.target + side.opponent_mod
        side.outcome = _compare(side.total, target, side.tie_wins)
        side.margin = abs(side.total - target)
        ctx.log.append((side.who.id, "fight", side.opponent_id, side.first_dice, tuple(side.dice), side.total,
                        target, side.outcome))
        return
    a, d = fight.sides
    assert a.total is not None and d.total is not None
    ta, td = a.total + d.opponent_mod, d.total + a.opponent_mod
    a.outcome = _compare(ta, td, a.tie_wins, d.tie_wins)
    d.outcome = {"win": "loss", "loss": "win", "tie": "tie"}[a.outcome]  # type: ignore[assignment]
    a.margin = d.margin = abs(ta - td)
    for me, other, mine, theirs in ((a, d, ta, td), (d, a, td, ta)):
        ctx.log.append((me.who.id, "fight", other.who.id, me.first_dice, tuple(me.dice), mine, theirs, me.outcome))


def settle(ctx: Context, side: Side) -> None:
    """Spells go (unless kept), lives go on a loss (and on a tie where a rule says so)."""
    who = side.who
    for spell in side.spells_used:
        if spell in side.keep:
            ctx.log.append((who.id, "spell_kept", spell))
        elif spell not in who.spells:  # an effect of the fight already took it (it is not discarded twice)
            ctx.log.append((who.id, "spell_gone", spell))
        else:
            who.spells.remove(spell)
            ctx.log.append((who.id, "spell_discarded", spell))
            if ctx.play is not None:
                ctx.play.zones.setdefault("discard", []).append(spell)
    cost = 0
    if side.outcome == "loss":
        cost = 1 if side.loss_costs is None else side.loss_costs
    elif side.outcome == "tie":
        cost = side.tie_costs or 0
    ctx.lose_lives(who, cost, cause=f"fight:{side.opponent_id}")


def must_retreat(side: Side) -> bool:
    return side.outcome in ("tie", "loss") and not side.who.unconscious and not side.no_retreat


@dataclass(init=False)
class FightReport:
    outcome: Outcome
    total: int
    against: int
    dice: tuple[int, ...]
    first_dice: tuple[int, ...]
    spells_used: tuple[str, ...]
    hero: Character
    log: list[tuple[Any, ...]] = field(default_factory=list)
    provisional: tuple[str, ...] = ()
    margin: int = 0
    side: Side | None = None

    def __init__(self, outcome: Outcome, total: int, against: int, dice: tuple[int, ...],
                 first_dice: tuple[int, ...], spells_used: tuple[str, ...], hero: Character,
                 log: list[tuple[Any, ...]] | None = None, provisional: tuple[str, ...] = (), margin: int = 0,
                 side: Side | None = None) -> None:
        # (written out, not made by @dataclass, like `Side.__init__`: the same fields, order and defaults)
        self.outcome = outcome
        self.total = total
        self.against = against
        self.dice = dice
        self.first_dice = first_dice
        self.spells_used = spells_used
        self.hero = hero
        self.log = [] if log is None else log
        self.provisional = provisional
        self.margin = margin
        self.side = side


def fight_monster(ctx: Context, who: Character, monster_id: str) -> FightReport:
    """A hero fights a monster through the game's procedure `fight`."""
    side, fight, strength = monster_fight(ctx, who, monster_id)
    against = (strength if fight.target is None else fight.target) + side.opponent_mod  # the opponent may roll too
    assert side.total is not None and side.outcome is not None
    return FightReport(side.outcome, side.total, against, tuple(side.dice), side.first_dice,
                       tuple(side.spells_used), who, ctx.log, tuple(sorted(ctx.provisional)), side.margin, side)


def monster_fight(ctx: Context, who: Character, monster_id: str) -> tuple[Side, Fight, int]:
    """`fight_monster` without its report: the hero's side, the fight and the monster's value (for the exact
    odds' runs, which read the side alone, and for a game in play, which reads no report: its sorted notes
    cost a sort of every provisional note per fight)."""
    monster = ctx.rules.entity(monster_id)
    stat = str(ctx.facts.get("fight_stat", "strength"))  # the stat fought with (a situation's fact)
    if not isinstance(monster.attr(stat), int):
        raise LoadoutError(f"the {stat} of {monster_id} is not known")
    strength = int(monster.attr(stat))
    if monster.provisional(stat):
        ctx.provisional.add(f"{monster_id} {stat}: {monster.provisional(stat)}")
    side = Side(who, opponent_id=monster_id)
    saved = (ctx.fight, ctx.actor, ctx.side)
    fight = Fight("dragon" if monster.is_a("dragon") or "dragon" in monster.tags else "monster", [side],
                  monster, strength)
    ctx.fight = fight
    ctx.characters.setdefault(who.id, who)
    ctx.actor, ctx.side = who, side
    inputs = ctx.inputs
    outer = inputs.journal
    if inputs.direct:  # a game's inputs: the fight's answers noted (not in the exact odds' own runs)
        fight.start = who.copy()
        fight.journal = inputs.journal = []
    try:
        ctx.run_procedure("fight")
    finally:
        ctx.fight, ctx.actor, ctx.side = saved
        if inputs.direct:
            if outer is not None and fight.journal is not None:  # (a fight inside a fight: its answers are the
                outer.extend(fight.journal)  # outer fight's too, in order)
            inputs.journal = outer
    assert side.total is not None and side.outcome is not None
    ctx.fights.append(side)
    return side, fight, strength


@dataclass
class DuelReport:
    attacker: Side
    defender: Side
    log: list[tuple[Any, ...]]
    provisional: tuple[str, ...] = ()

    @property
    def outcome(self) -> Outcome:
        """From the attacker's side."""
        assert self.attacker.outcome is not None
        return self.attacker.outcome


def duel(ctx: Context, attacker: Character, defender: Character, *, rolled: Side | None = None) -> DuelReport:
    """Hero against hero (arena or the house-rule duel) through the procedure `fight`: the attacker rolls and
    decides first, then the defender, knowing the attacker's total; the higher total wins."""
    a = rolled or Side(attacker)
    a.opponent_id = defender.id
    d = Side(defender, attacker=False, opponent_id=attacker.id)
    saved = (ctx.fight, ctx.actor, ctx.side)
    ctx.fight = Fight("hero", [a, d])
    ctx.characters.setdefault(attacker.id, attacker)
    ctx.characters.setdefault(defender.id, defender)
    ctx.actor, ctx.side = a.who, a
    try:
        ctx.run_procedure("fight")
    finally:
        ctx.fight, ctx.actor, ctx.side = saved
    ctx.fights.append(a)
    return DuelReport(a, d, ctx.log, tuple(sorted(ctx.provisional)))


# ---- the weakest hero (possess_weakest) --------------------------------------------------------------------


def weapon_power(rules: Ruleset, who: Character) -> int:
    return sum(int(rules.entity(w).attr("attack", 0) or 0) for w in who.weapons)


CRITERIA: dict[str, str] = {
    "fewest_treasures": "fewest treasures",
    "lowest_weapon_power": "lowest total weapon power",
    "fewest_other_items": "fewest other items",
    "lowest_roll": "lowest die roll",
}


def weakest(ctx: Context, heroes: list[Character], order: tuple[str, ...] = tuple(CRITERIA)) -> tuple[
        Character, str]:
    """The weakest hero by the criteria in `order`, each only breaking the ties left by the ones before;
    `lowest_roll` rolls a die for each hero still tied, again and again until one is lowest."""
    keys: dict[str, Any] = {
        "fewest_treasures": lambda h: len(h.treasures),
        "lowest_weapon_power": lambda h: weapon_power(ctx.rules, h),
        "fewest_other_items": lambda h: len(h.spells) + len(h.keys) + len(h.items),
    }
    pool = list(heroes)
    if not pool:
        raise ValueError("no hero in play")
    for criterion in order:
        if criterion == "lowest_roll":
            while len(pool) > 1:
                rolls = {h.id: ctx.inputs.roll(6) for h in pool}
                ctx.log.append(("table", "lord_roll", tuple(sorted(rolls.items()))))
                low = min(rolls.values())
                pool = [h for h in pool if rolls[h.id] == low]
            return pool[0], CRITERIA[criterion]
        key = keys[criterion]
        low = min(key(h) for h in pool)
        pool = [h for h in pool if key(h) == low]
        if len(pool) == 1:
            return pool[0], CRITERIA[criterion]
    return pool[0], "first of those still tied"


def chambers_revealed(ctx: Context, count: int) -> None:
    ctx.fire("chambers_revealed", None, None, count=count)


# ---- tiles and items ------------------------------------------------------------------------


def enter_tile(ctx: Context, who: Character, tile_id: str, *, first_entry: bool = True) -> None:
    ctx.characters.setdefault(who.id, who)
    ctx.facts = {**ctx.facts, "tile": tile_id, "first_entry": first_entry}
    ctx.rules.entity(tile_id)
    ctx.fire("enter_tile", who)


def use_item(ctx: Context, who: Character, item: str) -> None:
    """The holder uses an item outside a fight (Thorn of Darkness); a spell is discarded after use unless
    an effect of the holder keeps it."""
    if item not in who.held():
        raise LoadoutError(f"{who.id} does not hold {item}")
    ctx.characters.setdefault(who.id, who)
    side = Side(who)
    ctx.fire("always", who, side)
    saved = (ctx.actor, ctx.side, ctx.owner, ctx.effect)
    ctx.actor, ctx.side = who, side
    try:
        for fx in ctx.rules.effects_of([item], "use", ctx.variants):
            ctx.run(fx)
    finally:
        ctx.actor, ctx.side, ctx.owner, ctx.effect = saved
    if ctx.rules.entity(item).is_a("spell") and item in who.spells and item not in side.keep:
        who.spells.remove(item)
        ctx.log.append((who.id, "spell_discarded", item))


def can_challenge(ctx: Context, attacker: Character, defender: Character) -> bool:
    """Whether a rule offers the attacker a `challenge` when the two heroes meet (e.g. both armed)."""
    probe = Context(ctx.rules, _Yes(), ctx.variants, {**ctx.facts, "other": defender.id},
                    {attacker.id: attacker.copy(), defender.id: defender.copy()})
    probe.fire("always", probe.characters[attacker.id])
    probe.fire("heroes_meet", probe.characters[attacker.id])
    return any(e[1] == "challenge" or e[1:3] == ("offered", "challenge") for e in probe.log)


class _Yes(_FirstOption):
    def choose(self, choice: Any) -> Any:
        return choice.options[-1]
