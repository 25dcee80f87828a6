"""The state the generated effects read and change: characters, the fight in progress, the log.

Generated effect functions receive a `Context`; the verbs in `verbs.py` are its vocabulary.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import count
from typing import TYPE_CHECKING, Any, Final, Literal

from .inputs import Choice, Inputs, point_id
from .model import EffectDef, EntityData, Ruleset

if TYPE_CHECKING:
    from .state import Placed, Play, Pos


class TurnCap(Exception):  # noqa: N818 - a signal that stops a game that does not end
    """A loop of a procedure ran more often than the cap allows (a game whose content cannot end)."""

Outcome = Literal["win", "tie", "loss"]

# Triggers that concern the whole table rather than one character.
WORLD_TRIGGERS: Final = frozenset({"chambers_revealed", "game_end"})
# Triggers that concern a tile the character is on.
TILE_TRIGGERS: Final = frozenset({"enter_tile", "reveal_tile", "reveal_room", "turn_end"})
# Kinds whose effects apply to everyone (a rule of play, a switched-on variant).
GLOBAL_KINDS: Final = ("variant", "rule")


@dataclass(init=False)
class Character:
    """A player's character (a hero) and what it carries."""

    id: str
    lives: int = 5
    max_lives: int = 5
    weapons: list[str] = field(default_factory=list)
    spells: list[str] = field(default_factory=list)  # the spell slots (a hero's ability may let other items go there)
    keys: list[str] = field(default_factory=list)
    treasures: list[str] = field(default_factory=list)
    items: list[str] = field(default_factory=list)  # anything else held
    cards: list[str] = field(default_factory=list)  # attached entities: profession, race, abilities bought
    abilities: list[str] | None = None  # None: the character's own nested abilities
    cursed: bool = False
    unconscious: bool = False
    possessed: bool = False
    stats: dict[str, int] = field(default_factory=dict)  # counted stats (e.g. stones owned: the current value)
    max_stats: dict[str, int] = field(default_factory=dict)  # the most of each stat it may own
    spent: dict[str, int] = field(default_factory=dict)  # of each stat spent (wounds, magic used)
    no_abilities: bool = False
    # the tile it was last found standing on and the board it lies on (see `standing_on`; not part of its state)
    on_tile: Placed | None = field(default=None, init=False, repr=False, compare=False)
    on_board: dict[Pos, Placed] | None = field(default=None, init=False, repr=False, compare=False)

    def __init__(self, id: str, lives: int = 5, max_lives: int = 5, weapons: list[str] | None = None,  # noqa: A002
                 spells: list[str] | None = None, keys: list[str] | None = None,
                 treasures: list[str] | None = None, items: list[str] | None = None,
                 cards: list[str] | None = None, abilities: list[str] | None = None, cursed: bool = False,
                 unconscious: bool = False, possessed: bool = False, stats: dict[str, int] | None = None,
                 max_stats: dict[str, int] | None = None, spent: dict[str, int] | None = None,
                 no_abilities: bool = False) -> None:
        # (written out, not made by @dataclass, like `Side.__init__`: compiled, the dataclass's own __init__ stays
        # interpreted, ~6,000 instructions a copy, and the exact odds copy the hero once per run; the same
        # fields, order, defaults and fresh containers)
        self.id = id
        self.lives = lives
        self.max_lives = max_lives
        self.weapons = [] if weapons is None else weapons
        self.spells = [] if spells is None else spells
        self.keys = [] if keys is None else keys
        self.treasures = [] if treasures is None else treasures
        self.items = [] if items is None else items
        self.cards = [] if cards is None else cards
        self.abilities = abilities
        self.cursed = cursed
        self.unconscious = unconscious
        self.possessed = possessed
        self.stats = {} if stats is None else stats
        self.max_stats = {} if max_stats is None else max_stats
        self.spent = {} if spent is None else spent
        self.no_abilities = no_abilities
        self.on_tile = None
        self.on_board = None

    def standing_on(self, play: Play) -> Placed | None:
        """`play.here(self.id)`, the tile it stands on (None: off the board), remembered while it stands there:
        compiled, a board look-up by a position tuple costs ~300 instructions, and most events ask. The same
        position tuple on the same board is the same tile: a hero's position is the board's own key, which is
        the tile's `pos`, and a laid tile is never replaced (`place_start` forgets the answers if it lays the
        start tile again)."""
        pos = play.position.get(self.id)
        kept = self.on_tile
        board = play.board
        if kept is not None and kept.pos is pos and self.on_board is board:
            return kept
        placed = board.get(pos) if pos is not None else None
        self.on_tile, self.on_board = placed, board
        return placed

    def held(self) -> list[str]:
        return [*self.weapons, *self.spells, *self.keys, *self.treasures, *self.items]

    def has_any(self, names: frozenset[str], cards: bool = True) -> bool:
        """Whether it holds one of `names` (or has it as a card or a given ability, unless `cards` is false):
        `not names.isdisjoint((*cards, *abilities, *held))` without joining its lists, asked on most events.
        (Each list walked by its own loop: compiled, a loop over a tuple of lists is a generic iteration.)"""
        name: str
        for name in self.weapons:
            if name in names:
                return True
        for name in self.spells:
            if name in names:
                return True
        for name in self.keys:
            if name in names:
                return True
        for name in self.treasures:
            if name in names:
                return True
        for name in self.items:
            if name in names:
                return True
        if cards:
            for name in self.cards:
                if name in names:
                    return True
            abilities = self.abilities
            if abilities:
                for name in abilities:
                    if name in names:
                        return True
        return False

    def copy(self) -> Character:
        return Character(self.id, self.lives, self.max_lives, list(self.weapons), list(self.spells),
                         list(self.keys), list(self.treasures), list(self.items), list(self.cards),
                         None if self.abilities is None else list(self.abilities), self.cursed,
                         self.unconscious, self.possessed, dict(self.stats), dict(self.max_stats),
                         dict(self.spent), self.no_abilities)

    def own_abilities(self, rules: Ruleset) -> tuple[str, ...]:
        key = ("abilities", self.id)
        try:
            return rules._cache[key]  # type: ignore[no-any-return]
        except KeyError:
            return rules.memo(key, lambda: tuple(  # type: ignore[no-any-return]
                sorted(e.id for e in rules.children(self.id, "ability"))))


@dataclass(init=False)
class Side:
    """One side of a fight: the dice, the modifiers collected from effects, and the result."""

    who: Character
    dice: list[int] = field(default_factory=list)
    first_dice: tuple[int, ...] = ()
    attack: int = 0
    spells_used: list[str] = field(default_factory=list)
    tie_wins: bool = False
    weapon_values: dict[str, int] = field(default_factory=dict)
    counts_as: dict[int, int] = field(default_factory=dict)
    rolled_in_doubles: set[int] = field(default_factory=set)  # faces counted as rolled when judging a double
    keep: set[str] = field(default_factory=set)
    after_roll: set[str] = field(default_factory=set)
    slot_ok: set[tuple[str, str]] = field(default_factory=set)
    loss_costs: int | None = None
    tie_costs: int | None = None
    opponent_mod: int = 0
    rerolled: bool = False
    dice_spec: tuple[int, int] = (2, 6)
    seen_faces: set[int] = field(default_factory=set)
    frozen: set[tuple[str, str]] = field(default_factory=set)
    inactive: set[str] = field(default_factory=set)  # decks whose cards do not work in this fight
    opponent_stats: dict[str, int] = field(default_factory=dict)  # the opponent's stat changes
    spells_after_roll: bool = False  # every spell may be chosen after the fighter's own roll
    no_retreat: bool = False
    retreat_to: str | None = None
    attacker: bool = True
    opponent_id: str = ""  # the monster or hero fought (for the play statistics)
    lives_spent: int = 0
    total: int | None = None
    outcome: Outcome | None = None
    margin: int = 0

    def __init__(self, who: Character, dice: list[int] | None = None, first_dice: tuple[int, ...] = (),
                 attack: int = 0, spells_used: list[str] | None = None, tie_wins: bool = False,
                 weapon_values: dict[str, int] | None = None, counts_as: dict[int, int] | None = None,
                 rolled_in_doubles: set[int] | None = None, keep: set[str] | None = None,
                 after_roll: set[str] | None = None, slot_ok: set[tuple[str, str]] | None = None,
                 loss_costs: int | None = None, tie_costs: int | None = None, opponent_mod: int = 0,
                 rerolled: bool = False, dice_spec: tuple[int, int] = (2, 6), seen_faces: set[int] | None = None,
                 frozen: set[tuple[str, str]] | None = None, inactive: set[str] | None = None,
                 opponent_stats: dict[str, int] | None = None, spells_after_roll: bool = False,
                 no_retreat: bool = False, retreat_to: str | None = None, attacker: bool = True,
                 opponent_id: str = "", lives_spent: int = 0, total: int | None = None,
                 outcome: Outcome | None = None, margin: int = 0) -> None:
        # (written out, not made by @dataclass: compiled, the dataclass's own __init__ stays interpreted and
        # cost ~19,000 instructions a fight side; the same fields, order, defaults and fresh containers)
        self.who = who
        self.dice = [] if dice is None else dice
        self.first_dice = first_dice
        self.attack = attack
        self.spells_used = [] if spells_used is None else spells_used
        self.tie_wins = tie_wins
        self.weapon_values = {} if weapon_values is None else weapon_values
        self.counts_as = {} if counts_as is None else counts_as
        self.rolled_in_doubles = set() if rolled_in_doubles is None else rolled_in_doubles
        self.keep = set() if keep is None else keep
        self.after_roll = set() if after_roll is None else after_roll
        self.slot_ok = set() if slot_ok is None else slot_ok
        self.loss_costs = loss_costs
        self.tie_costs = tie_costs
        self.opponent_mod = opponent_mod
        self.rerolled = rerolled
        self.dice_spec = dice_spec
        self.seen_faces = set() if seen_faces is None else seen_faces
        self.frozen = set() if frozen is None else frozen
        self.inactive = set() if inactive is None else inactive
        self.opponent_stats = {} if opponent_stats is None else opponent_stats
        self.spells_after_roll = spells_after_roll
        self.no_retreat = no_retreat
        self.retreat_to = retreat_to
        self.attacker = attacker
        self.opponent_id = opponent_id
        self.lives_spent = lives_spent
        self.total = total
        self.outcome = outcome
        self.margin = margin

    def faces(self) -> list[int]:
        """The dice after abilities that change what a face counts as."""
        return [self.counts_as.get(d, d) for d in self.dice]


_serials = count().__next__  # `Fight.serial`


@dataclass(init=False)
class Fight:
    against: str  # monster | hero | dragon | guardian | character
    sides: list[Side]
    monster: EntityData | None = None
    target: int | None = None  # the value to beat when fighting a monster
    # names this fight for `first_use(per=fight)`; never reused in a process (an `id()` could be, once the
    # fight before it is freed, which made "once per fight" effects depend on memory layout)
    serial: int = field(default_factory=_serials)
    # in a game (live inputs): the fighter as the fight began, and the answers the inputs gave since
    # (`Inputs.journal`): what the exact odds replay to reach a choice of this fight
    start: Character | None = None
    journal: list[Any] | None = None

    def __init__(self, against: str, sides: list[Side], monster: EntityData | None = None, target: int | None = None,
                 serial: int | None = None) -> None:
        # (written out, not made by @dataclass, like `Side.__init__`: the same fields, order and defaults)
        self.against = against
        self.sides = sides
        self.monster = monster
        self.target = target
        self.serial = _serials() if serial is None else serial
        self.start = None
        self.journal = None

    def other(self, side: Side) -> Side | None:
        return next((s for s in self.sides if s is not side), None)


_tuple_new: Final = tuple.__new__  # makes a Choice (a named tuple) without its Python-level __new__

_PLANS: Final = "fire plans"  # the ruleset cache entry: trigger -> _FirePlan | None


class _FirePlan:
    """Who can react to one trigger: the global owners that have an effect of it (in order), the other
    entities that have one (`local`), each character's own abilities among them (filled as characters act),
    and the rules that act only where a card of their kinds takes part (`scoped`, with `every` the global
    owners in order including those). `react(ctx, actor)` answers for a character: made once per trigger,
    for the shape of its plan (see `_reactor`); `find` gives the effects of an event without values."""

    __slots__ = ("trigger", "glob", "local", "every", "scoped", "tile", "own", "curse", "effects", "commons",
                 "last_variants", "last_mine", "react", "shape")

    def __init__(self, trigger: str, glob: tuple[str, ...], local: frozenset[str], every: tuple[str, ...],
                 scoped: dict[str, tuple[str, ...]], tile: bool, curse: tuple[str, ...] = ()) -> None:
        self.trigger = trigger
        self.glob, self.local, self.every, self.scoped, self.tile = glob, local, every, scoped, tile
        self.own: dict[str, tuple[str, ...]] = {}
        self.curse = curse  # the curse cards among `local` (a cursed character carries them)
        # the effects of a list of owners, by the owners and the variants switched on (events without values)
        self.effects: dict[tuple[str, ...], dict[frozenset[str], list[EffectDef]]] = {}
        # (for `find`) variants -> character id (or None for the global owners only) -> effects; `last_*` hold
        # the variants asked about last and their dict (a game asks with the same variants all along)
        self.commons: dict[frozenset[str], dict[str | None, list[EffectDef]]] = {}
        self.last_variants: frozenset[str] | None = None
        self.last_mine: dict[str | None, list[EffectDef]] = {}
        self.react: Callable[[Context, Character], tuple[str, ...]] = _reactor(self)
        # which way `find` answers: rules scoped to kinds of cards, no local owner, or local owners
        self.shape = _SCOPED if scoped else _EVERYONE if not local else _LOCAL

    def common_of(self, ctx: Context) -> dict[str | None, list[EffectDef]]:
        variants = ctx.variants
        if variants is self.last_variants:
            return self.last_mine
        mine = self.commons.get(variants)
        if mine is None:
            mine = self.commons[variants] = {}
        self.last_variants, self.last_mine = variants, mine
        return mine

    def of(self, ctx: Context, owners: tuple[str, ...]) -> list[EffectDef]:
        # (by the owners, then by the variants: no key tuple made, hashed and compared per event)
        variants = ctx.variants
        by_variants = self.effects.get(owners)
        if by_variants is None:
            by_variants = self.effects[owners] = {}
        found = by_variants.get(variants)
        if found is None:
            found = by_variants[variants] = ctx.rules.effects_of(owners, self.trigger, variants)
        return found

    def usual(self, ctx: Context, who: str | None, owners: tuple[str, ...]) -> list[EffectDef]:
        found = self.common_of(ctx)[who] = self.of(ctx, owners)
        return found

    def find(self, ctx: Context, actor: Character | None) -> list[EffectDef]:
        """The effects `Context._fire` runs for an event without values: the effects of `react`'s owners. In
        the usual case (see `_reactor`: nothing carried, stood on or fought has an effect of the trigger) the
        owners are the global ones plus the character's own abilities, so the effects are remembered by the
        character and the variants alone: no owners tuple is built or hashed per event. Same lists, same
        order. (A method, not a closure per plan: compiled, a direct call.)"""
        shape = self.shape
        if shape == _SCOPED:
            return self.of(ctx, self.glob if actor is None else ctx._reacting(self, actor))
        if actor is None or shape == _EVERYONE:
            found = (self.last_mine if ctx.variants is self.last_variants else self.common_of(ctx)).get(None)
            return self.usual(ctx, None, self.glob) if found is None else found
        local = self.local
        if actor.id in local or (self.curse and actor.cursed):
            return self.of(ctx, ctx._reacting(self, actor))
        abilities = actor.abilities
        if actor.has_any(local):
            return self.of(ctx, ctx._reacting(self, actor))
        fight = ctx.fight
        if fight is not None and fight.monster is not None and fight.monster.id in local:
            return self.of(ctx, ctx._reacting(self, actor))
        facts = ctx.facts
        if "place" in facts and str(facts["place"]) in local:
            return self.of(ctx, ctx._reacting(self, actor))
        if self.tile:
            play = ctx.play
            if play is None:
                return self.of(ctx, ctx._reacting(self, actor))
            placed = play.last_revealed if facts.get("revealing") else actor.standing_on(play)
            if placed is not None and not placed.corridor and (
                    placed.tile in local or (placed.tokens and not local.isdisjoint(placed.tokens))):
                return self.of(ctx, ctx._reacting(self, actor))
        who = None if actor.no_abilities or abilities is not None else actor.id
        found = (self.last_mine if ctx.variants is self.last_variants else self.common_of(ctx)).get(who)
        if found is not None:
            return found
        if who is None:
            return self.usual(ctx, None, self.glob)
        own = self.own.get(who)
        if own is None:  # the character's own abilities of the trigger are not known yet: found by `_reacting`
            return self.of(ctx, ctx._reacting(self, actor))
        return self.usual(ctx, who, self.glob + own if own else self.glob)


# `_FirePlan.shape` (written out where compared: compiled, a literal is a constant)
_SCOPED: Final = 0
_EVERYONE: Final = 1
_LOCAL: Final = 2


def _reactor(plan: _FirePlan) -> Callable[[Context, Character], tuple[str, ...]]:
    """`Context._reacting` for one plan, made once per trigger: most events reach a character that carries
    nothing with an effect of the trigger, stands on no such tile and fights no such monster. That answer
    (the global owners and the character's own abilities of the trigger) is found here with a few tests
    that run in C; any other case takes the general way. Same answers, same order."""
    glob, local, curse, own_of, tile = plan.glob, plan.local, plan.curse, plan.own, plan.tile
    if plan.scoped:
        return lambda ctx, actor: ctx._reacting(plan, actor)
    if not local:
        return lambda ctx, actor: glob
    isdisjoint = local.isdisjoint

    def react(ctx: Context, actor: Character) -> tuple[str, ...]:
        if actor.id in local or (curse and actor.cursed):
            return ctx._reacting(plan, actor)
        abilities = actor.abilities
        if actor.has_any(local):
            return ctx._reacting(plan, actor)
        fight = ctx.fight
        if fight is not None and fight.monster is not None and fight.monster.id in local:
            return ctx._reacting(plan, actor)
        facts = ctx.facts
        if "place" in facts and str(facts["place"]) in local:
            return ctx._reacting(plan, actor)
        if tile:
            play = ctx.play
            if play is None:
                return ctx._reacting(plan, actor)
            placed = play.last_revealed if facts.get("revealing") else actor.standing_on(play)
            if placed is not None and not placed.corridor and (
                    placed.tile in local or (placed.tokens and not isdisjoint(placed.tokens))):
                return ctx._reacting(plan, actor)
        if actor.no_abilities or abilities is not None:
            return glob
        own = own_of.get(actor.id)
        if own is None:
            return ctx._reacting(plan, actor)
        return glob + own if own else glob

    return react


@dataclass(init=False)
class Context:
    """Everything an effect may look at: the ruleset, switched-on variants, explicit facts and inputs."""

    rules: Ruleset
    inputs: Inputs
    variants: frozenset[str] = frozenset()
    facts: dict[str, Any] = field(default_factory=dict)
    characters: dict[str, Character] = field(default_factory=dict)
    log: list[tuple[Any, ...]] = field(default_factory=list)
    actor: Character | None = None
    side: Side | None = None
    fight: Fight | None = None
    owner: str = ""
    last_roll: int | None = None
    lord: str | None = None
    provisional: set[str] = field(default_factory=set)
    setup: dict[str, int] = field(default_factory=dict)  # stat and slot modifiers collected at setup
    effect: str = ""  # the key of the effect running now (owner#index)
    used: set[tuple[str, object]] = field(default_factory=set)  # (effect, scope) for first_use
    prevented: bool = False  # a `prevent` ran for the event being fired
    loops: dict[str, int] = field(default_factory=dict)
    turn: int = 0
    inactive: set[str] = field(default_factory=set)
    play: Play | None = None  # the table of a game being played (board, zones, turn); None for a lone fight
    fights: list[Side] = field(default_factory=list)  # every fight side that started a fight, in order
    event_values: dict[str, Any] = field(default_factory=dict)  # values of the next fired event (e.g. count)
    fired: set[str] = field(default_factory=set)  # every trigger fired so far (conditions such as final_battle)
    loop_cap: int = 10_000  # a `while` of a procedure runs at most this often per call
    # the ruleset's fire plans (its cache entry `_PLANS`), held from the first event fired: not looked up in the
    # ruleset's cache at every event (a context lives while its ruleset does not change)
    fire_plans: dict[str, _FirePlan | None] | None = field(default=None, init=False, repr=False, compare=False)

    def __init__(self, rules: Ruleset, inputs: Inputs, variants: frozenset[str] = frozenset(),
                 facts: dict[str, Any] | None = None, characters: dict[str, Character] | None = None,
                 log: list[tuple[Any, ...]] | None = None, actor: Character | None = None, side: Side | None = None,
                 fight: Fight | None = None, owner: str = "", last_roll: int | None = None, lord: str | None = None,
                 provisional: set[str] | None = None, setup: dict[str, int] | None = None, effect: str = "",
                 used: set[tuple[str, object]] | None = None, prevented: bool = False,
                 loops: dict[str, int] | None = None, turn: int = 0, inactive: set[str] | None = None,
                 play: Play | None = None, fights: list[Side] | None = None,
                 event_values: dict[str, Any] | None = None, fired: set[str] | None = None,
                 loop_cap: int = 10_000) -> None:
        # (written out, not made by @dataclass, like `Side.__init__`: compiled, the dataclass's own __init__ stays
        # interpreted, and the exact odds make a context per run; the same fields, order, defaults and fresh
        # containers)
        self.rules = rules
        self.inputs = inputs
        self.variants = variants
        self.facts = {} if facts is None else facts
        self.characters = {} if characters is None else characters
        self.log = [] if log is None else log
        self.actor = actor
        self.side = side
        self.fight = fight
        self.owner = owner
        self.last_roll = last_roll
        self.lord = lord
        self.provisional = set() if provisional is None else provisional
        self.setup = {} if setup is None else setup
        self.effect = effect
        self.used = set() if used is None else used
        self.prevented = prevented
        self.loops = {} if loops is None else loops
        self.turn = turn
        self.inactive = set() if inactive is None else inactive
        self.play = play
        self.fights = [] if fights is None else fights
        self.event_values = {} if event_values is None else event_values
        self.fired = set() if fired is None else fired
        self.loop_cap = loop_cap
        self.fire_plans = None

    # ---- procedures ---------------------------------------------------------------

    def run_procedure(self, name: str) -> None:
        """Run the game's procedure `name` (declared in content, generated as a function)."""
        try:
            proc = self.rules.procedures[name]
        except KeyError:
            raise KeyError(f"{self.rules.game} declares no procedure `{name}`; declared: "
                           f"{', '.join(sorted(self.rules.procedures)) or 'none'}") from None
        proc.run(self)

    def fire_here(self, trigger: str, event: dict[str, Any] | None = None) -> None:
        """`fire TRIGGER` in a procedure: for whoever acts now, on the fight side in progress. The event's values
        come as one dict, not as keywords: compiled, `**event` cost a keyword parse and a new dict at each of the
        ~2,000 fires of a game, nearly all without values."""
        if self.event_values:
            event = {**self.event_values, **(event or {})}
            self.event_values = {}
        self.prevented = False
        if event:
            self._fire(trigger, self.actor, self.side, event)
            return
        # `_fire` without values, inlined: a procedure fires ~2,000 events a game, most of which nothing
        # reacts to
        self.fired.add(trigger)
        actor = self.actor
        if actor is not None and trigger == "always":
            actor.no_abilities = False  # `always` modifiers hold while their card or rule does: recomputed
        kept = self.fire_plans
        if kept is None:
            kept = self.fire_plans = self.rules.memo(_PLANS, dict)
        plans: dict[str, _FirePlan | None] = kept  # (typed as a dict alone: compiled, a look-up in a union-typed
        # value is a generic one)
        plan: _FirePlan | None
        try:
            plan = plans[trigger]
        except KeyError:
            plan = self._new_plan(trigger)
        if plan is None:
            return
        effects = plan.find(self, actor)
        if effects:
            self._run(effects, actor, self.side)

    def loop(self, point: str) -> bool:
        """Counts the passes of a `while`; past the cap the game is stopped (it would never end)."""
        count = self.loops.get(point, 0) + 1
        self.loops[point] = count
        if count > self.loop_cap:
            raise TurnCap(f"the loop `{point}` ran {self.loop_cap} times without its condition turning false")
        return True

    def each(self, what: str) -> Iterator[None]:
        """`for each`: the body runs once per member, each acting (and fighting on its side) in turn. (The
        generated rules write this loop out over `members`, setting and restoring `actor` and `side` as here.)"""
        saved = (self.actor, self.side)
        try:
            for who, side in self.members(what):
                self.actor, self.side = who, side
                yield
        finally:
            self.actor, self.side = saved

    def members(self, what: str) -> list[tuple[Character, Side | None]]:
        """Who a `for each` runs over, in order, with the fight side each acts on (None outside a fight)."""
        members: list[tuple[Character, Side | None]]
        if what == "side":
            if self.fight is None:
                raise RuntimeError("`for each side` needs a fight in progress")
            members = [(s.who, s) for s in self.fight.sides]
        else:
            if self.play is None:
                raise RuntimeError(f"`for each {what}` needs a game in play")
            order = self.play.order
            start = order.index(self.play.current) if self.play.current in order else 0
            ids = order[start:] + order[:start]
            if what in ("opponent", "other_here"):
                ids = [i for i in ids if self.actor is None or i != self.actor.id]
            if what == "other_here" and self.actor is not None:
                here = self.play.position.get(self.actor.id)
                ids = [i for i in ids if self.play.position.get(i) == here]
            members = [(self.characters[i], None) for i in ids]
        return members

    # ---- decisions and randomness ---------------------------------------------

    def who(self) -> str:
        return self.actor.id if self.actor else "table"

    def may(self, point: str, *offer: Any) -> bool:
        """A `may` statement: the acting player decides (default: no); the offer is logged."""
        if offer:
            self.record("offered", *offer)
        who = self.who()
        inputs = self.inputs
        if inputs.direct:  # (the bots' inputs: no `Choice` made, the point's id made only if read)
            return bool(inputs.pick_at(who, point, (False, True)))
        return bool(inputs.choose(_tuple_new(Choice, (who, point_id(who, point), (False, True)))))

    def choose(self, point: str, options: tuple[str, ...]) -> str:
        """A `choose` statement: the acting player picks one of the legal options; with none, nothing is done."""
        if not options:
            return ""
        who = self.who()
        inputs = self.inputs
        if inputs.direct:
            found = inputs.pick_at(who, point, options)
            return found if isinstance(found, str) else str(found)
        return str(inputs.choose(_tuple_new(Choice, (who, point_id(who, point), options))))

    def ask(self, point: str, options: tuple[Any, ...], chooser: str | None = None) -> Any:
        who = chooser or self.who()
        inputs = self.inputs
        if inputs.direct:
            return inputs.pick_at(who, point, options)
        return inputs.choose(_tuple_new(Choice, (who, point_id(who, point), options)))

    def roll(self, sides: int = 6) -> int:
        return self.inputs.roll(sides)

    def roll_dice(self, count: int, sides: int = 6) -> list[int]:
        return list(self.inputs.roll_dice(count, sides))

    def record(self, *event: Any) -> None:
        self.log.append((self.who(),) + event)  # (one tuple joined; compiled, `(who, *event)` went by a list)

    def fact(self, name: str, default: Any = None) -> Any:
        """An explicit input about the situation (first step, players, ...)."""
        if name not in self.facts and default is None:
            raise KeyError(f"the situation does not say `{name}`: pass it in facts")
        return self.facts.get(name, default)

    # ---- effects ------------------------------------------------------------------

    def owners(self, actor: Character | None, trigger: str) -> tuple[str, ...]:
        """The entities whose effects apply to `actor` for `trigger`, in resolution order (a later setting
        overrides an earlier one): the rules of the game, variants, the tile or place, the monster fought,
        the character, its cards, abilities (unless switched off) and items."""
        rules = self.rules
        glob: tuple[str, ...] = rules.memo("global owners", lambda: tuple(
            e.id for e in sorted(rules.entities.values(), key=_global_order) if _is_global(e)))
        if trigger in WORLD_TRIGGERS:
            return tuple(sorted(rules.entities))
        if actor is None:
            return rules.memo("unscoped global owners", lambda: tuple(  # type: ignore[no-any-return]
                g for g in glob if not rules.entity(g).attr("applies_to")))
        abilities: tuple[str, ...] = ()
        if not actor.no_abilities:
            abilities = tuple(actor.abilities) if actor.abilities is not None else actor.own_abilities(rules)
        monster = self.fight.monster.id if self.fight is not None and self.fight.monster is not None else None
        tile: Any = None
        if trigger in TILE_TRIGGERS:
            if self.play is not None:
                placed = self.play.last_revealed if self.facts.get("revealing") else self.play.here(actor.id)
                if placed is not None and not placed.corridor:
                    tile = (placed.tile, *placed.tokens)
            else:
                tile = self.facts.get("tile")
        key = ("owners", actor.id, tuple(actor.cards), abilities, tuple(actor.held()), monster, tile,
               self.facts.get("place"), actor.cursed)
        return rules.memo(key, lambda: self._owners(actor, glob, abilities, monster, tile))  # type: ignore[no-any-return]

    def _owners(self, actor: Character, glob: tuple[str, ...], abilities: tuple[str, ...], monster: str | None,
                tile: Any) -> tuple[str, ...]:
        known = self.rules.entities
        own: list[str] = []
        if isinstance(tile, tuple):
            own.extend(tile)
        elif tile is not None:
            own.append(str(tile))
        if "place" in self.facts:
            own.append(str(self.facts["place"]))
        if monster is not None:
            own.append(monster)
        own += [actor.id, *actor.cards, *abilities, *actor.held()]
        if actor.cursed:  # the curse is a card the cursed hero carries (its effects switch abilities off)
            own.extend(e.id for e in self.rules.of_kind("curse"))
        present = [known[o] for o in dict.fromkeys(own) if o in known]
        return tuple(g for g in glob if _applies(known[g], present)) + tuple(e.id for e in present)

    def relevant_owners(self, actor: Character | None, trigger: str) -> tuple[str, ...]:
        """`owners(actor, trigger)` reduced to the entities that have an effect of `trigger` at all, in the
        same order: the same effects in the same order, found without building (and hashing) the whole list
        on every event. Each group of candidates (tile, items, ...) is looked at only when it holds one."""
        try:
            plan: _FirePlan | None = self.rules._cache[_PLANS][trigger]
        except KeyError:
            plan = self._new_plan(trigger)
        if plan is None:
            return ()
        return plan.glob if actor is None else plan.react(self, actor)

    def _reacting(self, plan: _FirePlan, actor: Character) -> tuple[str, ...]:
        """`relevant_owners` for a character, by the trigger's plan."""
        glob = plan.glob
        scoped = plan.scoped
        if scoped:  # rules that act only where a card of their kinds takes part
            ok = {r for r, kinds in scoped.items() if self._takes_part(actor, kinds)}
            glob = tuple(g for g in plan.every if g not in scoped or g in ok)
        local = plan.local
        if not local:
            return glob
        mine: list[str] = []
        if plan.tile:
            play = self.play
            if play is not None:
                placed = play.last_revealed if self.facts.get("revealing") else actor.standing_on(play)
                if placed is not None and not placed.corridor:
                    if placed.tile in local:
                        mine.append(placed.tile)
                    if placed.tokens and not local.isdisjoint(placed.tokens):
                        mine += [o for o in placed.tokens if o in local]
            else:
                tile = self.facts.get("tile")
                if isinstance(tile, tuple):
                    mine += [o for o in tile if o in local]
                elif tile is not None and str(tile) in local:
                    mine.append(str(tile))
        facts = self.facts
        if "place" in facts and str(facts["place"]) in local:
            mine.append(str(facts["place"]))
        fight = self.fight
        if fight is not None and fight.monster is not None and fight.monster.id in local:
            mine.append(fight.monster.id)
        if actor.id in local:
            mine.append(actor.id)
        if actor.no_abilities:
            own: tuple[str, ...] | None = ()
            override: list[str] = []
        elif actor.abilities is None:  # the character's own abilities that have the trigger, found once
            own = plan.own.get(actor.id)
            if own is None:
                own = plan.own[actor.id] = tuple(o for o in actor.own_abilities(self.rules) if o in local)
            override = []
        else:
            own, override = None, actor.abilities
        # (nothing it carries, no card or overriding ability, has an effect of the trigger: list by list)
        if not (actor.has_any(local, cards=False) or any(o in local for o in actor.cards)
                or any(o in local for o in override)):
            if own:  # nothing carried has an effect of the trigger: only the own abilities can
                mine += own
        else:  # in order: cards, abilities, then what is held
            mine += [o for o in actor.cards if o in local]
            mine += own if own is not None else [o for o in override if o in local]
            for group in (actor.weapons, actor.spells, actor.keys, actor.treasures, actor.items):
                if group and not local.isdisjoint(group):
                    mine += [o for o in group if o in local]
        if actor.cursed:  # the curse is a card the cursed hero carries (its effects switch abilities off)
            mine += plan.curse
        return glob + tuple(mine) if mine else glob

    def _new_plan(self, trigger: str) -> _FirePlan | None:
        plans: dict[str, _FirePlan | None] = self.rules.memo(_PLANS, dict)
        if trigger not in plans:
            plans[trigger] = self._fire_plan(trigger)
        return plans[trigger]

    def _takes_part(self, actor: Character, kinds: tuple[str, ...]) -> bool:
        """Whether an entity of one of the kinds takes part for the actor (see `_applies`)."""
        ids = [*actor.cards, *actor.held()]
        if self.fight is not None and self.fight.monster is not None:
            ids.append(self.fight.monster.id)
        if "place" in self.facts:
            ids.append(str(self.facts["place"]))
        if not actor.no_abilities:
            ids += actor.abilities if actor.abilities is not None else actor.own_abilities(self.rules)
        present = [e for e in (self.rules.get(i) for i in ids) if e is not None]
        return _applies_kinds(kinds, present)

    def _fire_plan(self, trigger: str) -> _FirePlan | None:
        """For `trigger`: the global owners that have an effect of it (in order), the other entities that
        have one, and (filled as characters act) each character's own abilities among them. None: no entity
        has an effect of `trigger`."""
        has = self.rules.owners_of(trigger)
        if not has:
            return None
        if trigger in WORLD_TRIGGERS:
            return _FirePlan(trigger, tuple(o for o in sorted(self.rules.entities) if o in has), frozenset(), (), {},
                             False)
        glob = tuple(o for o in self.owners(None, trigger) if o in has)
        every = tuple(o for o in self.rules.memo("global owners", tuple) if o in has)  # with the scoped ones
        scoped = {o: tuple(str(k) for k in self.rules.entity(o).attr("applies_to"))
                  for o in every if o not in glob}
        local = has - frozenset(every)
        cards = self.rules.memo(("curse cards",), lambda: [e.id for e in self.rules.of_kind("curse")])
        curse = tuple(o for o in cards if o in local)
        return _FirePlan(trigger, glob, local, every, scoped, trigger in TILE_TRIGGERS, curse)

    def fire(self, trigger: str, actor: Character | None = None, side: Side | None = None,
             **event: Any) -> list[EffectDef]:
        """Run every active effect of `trigger` for `actor`; returns the effects that ran."""
        return self._fire(trigger, actor, side, event)

    def _fire(self, trigger: str, actor: Character | None, side: Side | None,
              event: dict[str, Any]) -> list[EffectDef]:
        self.fired.add(trigger)
        if trigger == "always" and actor is not None:
            actor.no_abilities = False  # `always` modifiers hold while their card or rule does: recomputed
        try:
            plan: _FirePlan | None = self.rules._cache[_PLANS][trigger]
        except KeyError:
            plan = self._new_plan(trigger)
        if plan is None:
            return []
        if event:
            owners = plan.glob if actor is None else plan.react(self, actor)
            if not owners:
                return []
            effects = self.rules.effects_of(owners, trigger, self.variants, event)
        else:  # (the same list `effects_of` gives, remembered by the plan: see `_FirePlan.find`)
            effects = plan.find(self, actor)
        if effects:
            self._run(effects, actor, side)
        return effects

    def _run(self, effects: list[EffectDef], actor: Character | None, side: Side | None) -> None:
        """Run the effects of a fired event for `actor` on `side` (skipping those of decks switched off)."""
        # (four locals, not a tuple of them: compiled, no tuple made per event that runs effects)
        saved_actor, saved_side, saved_owner, saved_effect = self.actor, self.side, self.owner, self.effect
        self.actor, self.side = actor, side
        try:
            for fx in effects:
                if (self.inactive or (self.side is not None and self.side.inactive)) and self._inactive(fx.owner):
                    continue
                self.owner, self.effect = fx.owner, fx.key
                notes = fx.provisional
                if notes:  # (note by note: compiled, `set.update` with a tuple is a generic call, and the notes
                    known = self.provisional  # are nearly always known already)
                    for note in notes:
                        if note not in known:
                            known.add(note)
                fx.run(self)
        finally:
            self.actor, self.side, self.owner, self.effect = saved_actor, saved_side, saved_owner, saved_effect

    def _inactive(self, owner: str) -> bool:
        if not self.inactive and (self.side is None or not self.side.inactive):
            return False
        off = self.inactive | (self.side.inactive if self.side is not None else set())
        entity = self.rules.get(owner)
        return entity is not None and entity.attr("deck") in off

    def run(self, fx: EffectDef) -> None:
        self.owner, self.effect = fx.owner, fx.key
        self.provisional.update(fx.provisional)
        fx.run(self)

    def active_owners(self, owners: Iterable[str]) -> list[str]:
        return [o for o in owners if o in self.rules.entities]

    # ---- lives ----------------------------------------------------------------------

    def lose_lives(self, who: Character, amount: int, cause: str = "") -> None:
        """Take lives away; on the last one, `last_life_lost` effects may step in, else the hero falls
        unconscious (a base rule that is only provisional, see base-game-facts 1.4)."""
        if amount <= 0 or who.unconscious:
            return
        lost = min(amount, who.lives)
        who.lives = max(0, who.lives - amount)
        self.log.append((who.id, "lose_life", amount))
        if self.play is not None:
            self.play.lost(who.id, cause or self.owner or "effect", lost)
        if who.lives == 0:
            self.prevented = False
            self.fire("always", who)
            mark = len(self.log)
            self.fire("last_life_lost", who)
            if self.prevented:  # what the event would have done did not happen
                who.unconscious = False
                self.log[mark:] = [e for e in self.log[mark:] if e[:2] != (who.id, "fall_unconscious")]
            elif who.lives == 0 and not who.unconscious:
                who.unconscious = True
                self.provisional.add("no rule says what happens at 0 lives: the engine assumes unconsciousness")
                self.log.append((who.id, "fall_unconscious"))
            if who.unconscious and self.play is not None:
                self.play.knocked_out(who.id, cause or self.owner or "effect")


def actor_of(ctx: Context) -> Character:
    """The character the verb acts for; a verb that needs one, run without, is a content error."""
    if ctx.actor is None:
        raise RuntimeError(f"{ctx.owner or 'a procedure'}: this needs a character")
    return ctx.actor


def _applies(rule: EntityData, present: list[EntityData]) -> bool:
    """A rule with `applies_to: [kinds]` acts as if printed on each card of those kinds: only where one of
    them takes part (the monster fought, the place, a card or item of the character)."""
    kinds = rule.attr("applies_to")
    return not kinds or _applies_kinds(tuple(str(k) for k in kinds), present)


def _applies_kinds(kinds: tuple[str, ...], present: list[EntityData]) -> bool:
    return any(p.is_a(k) for p in present for k in kinds)


def _is_global(e: EntityData) -> bool:
    return any(e.is_a(k) for k in GLOBAL_KINDS)


def _global_order(e: EntityData) -> tuple[bool, str]:
    """Rules of the game first, then variants (which override them)."""
    return (e.kind == "variant" or e.variant is not None, e.id)
