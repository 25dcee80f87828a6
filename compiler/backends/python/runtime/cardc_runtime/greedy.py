"""The `greedy` bot: a sensible player that knows no game, only what the content and the exact odds say.

- It fights when the odds are good: before walking onto an undefeated monster it computes the exact chance
  to win that fight with its weapons and abilities (`fight_odds.monster_win`, every die face enumerated;
  spells left out, they only add to it), and before exploring, the chance against the median monster still
  in the bag. Below `WIN_ENOUGH` (0.15: a lost fight costs one life, and bolder bots win more; see the
  constant) it stays away, unless nothing else is left to do.
- With no monster it would fight and no item it wants in reach, it explores: where it stands if it can (even
  when the room behind looks risky: walking to another open edge would find the same bag there), else from
  the nearest open edge.
- Its searches (to goals, edges, healing tiles) step as the engine moves the hero: through walls while it
  may walk through them, and between any two portals laid (`Play.graph`), not along passages only.
- It heals when low: at `LOW_LIVES` (1) lives or fewer it heads for the nearest tile that heals at the end of a
  turn (found by trying the tile's effects on a wounded probe hero), or uses an item that heals.
- It keeps the better weapon: when a slot is full it drops the held item worth least (attack, treasure
  value) if the new one is worth more, and takes the most valuable item when it may pick one. Offered the
  item lying where it stands (a procedure's `may take_item`, after a fight won), it takes it when it wants
  it (`_wants`).
- Spells: before the roll it casts one when the exact odds without it are below `WIN_ENOUGH`; after the
  roll when the dice so far would not win.
- Any other choice inside a monster fight (an ability's "a life for +1 attack") it takes as the exact odds'
  policy does, from the fight so far (`fight_choice`).
- An effect's choice outside fights it judges by what each option does (the catalogue's verbs on the card,
  `Ruleset.option_verbs`; `_effect_choice`): it sneaks past a monster it would likely lose to, teleports to
  fight the monster with the best odds unless low on lives, sprints when it walks to a goal rather than
  explores, looks into a room before entering where exploring looks risky, opens a chest worth opening, gives
  up its turn to swap places with another hero only when that place is `SWAP_GAIN` (8) steps nearer its goals. It
  passes a curse to the hero holding most and challenges the one holding least. Of tokens drawn onto a room
  it enters, it sends back the one worse to meet (a monster with poor odds before a chest it cannot open). Of
  any other choice of an effect it does not know, it leaves out the options that end the turn (what each
  option does is on the card: `Ruleset.option_verbs`) while another is offered, and picks one of the rest at
  random; any other choice at random. All its random picks are seeded.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from functools import lru_cache
from hashlib import blake2b
from typing import Any, ClassVar, Final

from .context import Character, Context, Fight
from .engine import _SHUFFLED, going_on, purposeful
from .fight import _FirstOption  # (compiled with the runtime: dice show 1, choices take the first option)
from .inputs import below, point_id
from .model import Ruleset
from .play_verbs import _monster_token, _portals, can_explore
from .state import Graph, Nearest, Placed, Play, Pos

# The odds from which the bot takes a fight on. Low: a lost fight costs one life, a won one a reward and progress.
# Measured by one seat playing another value against three at the default (bench/README, 3,000 games each): against
# 0.5, the seat won 27.3% at 0.35, 31.1% at 0.25, 34.7% at 0.15, 33.9% at 0.05; against 0.15, 21.0% at 0.3 and
# 24.4% at 0.05 (25% is even)
WIN_ENOUGH = 0.15
# At this many lives or fewer the bot heads for healing and explores no more. Measured as `WIN_ENOUGH` (4,000 games
# each, bench/README): against 2, the seat won 27.4% at 1, 24.5% at 0 and 23.3% at 3; against 1, 23.4% at 2
LOW_LIVES = 1

try:
    from mypy_extensions import mypyc_attr
except ImportError:  # (without mypy installed: the decorator only speaks to mypyc, which compiles this module)
    def mypyc_attr(*_: Any, **__: Any) -> Any:  # type: ignore[misc]
        return lambda cls: cls


def win_chance(rules: Ruleset, hero: Character, monster: str, variants: frozenset[str]) -> float:
    """The exact chance that `hero` beats `monster` with its weapons and abilities, spells not counted
    (a spell can only raise it, and the bot casts one when this chance is too low), at full lives. Memoized on
    the ruleset, so the enumeration runs once per loadout and monster over all the games a worker plays."""
    known = _loadout_odds(rules, hero, variants)
    try:
        return known[monster]  # (asked ~20 times per step: no closure made)
    except KeyError:
        pass
    probe = hero.copy()
    probe.spells = []
    probe.unconscious = False
    probe.lives = probe.max_lives  # lives change often and rarely the odds: one figure per loadout
    stored: dict[str, float] | Callable[[], dict[str, float]] | None = rules._cache.get(_STORED)
    if stored is None:
        found = _probe_win(rules, probe, monster, variants)
    else:
        if not isinstance(stored, dict):  # the store's figures, read at the first miss of a process
            stored = rules._cache[_STORED] = stored()
        whole = fight_key(probe, monster, variants)
        got = stored.get(whole)
        if got is None:
            got = _probe_win(rules, probe, monster, variants)
            fresh: dict[str, float] = rules.memo(_FRESH, dict)
            fresh[whole] = got
        found = got
    known[monster] = found = float(found)
    return found


_ODDS = ("greedy odds",)  # ruleset memo: (hero, weapons in order, cursed, variants) -> monster -> win chance


def _loadout_odds(rules: Ruleset, hero: Character, variants: frozenset[str]) -> dict[str, float]:
    """The win chances `win_chance` knows for `hero`'s loadout, by monster: one look-up of the loadout, then one
    by the monster's id per fight weighed (a key of the loadout and the monster together, a nest of tuples, cost
    several hundred instructions to hash and compare at each ask)."""
    tables: dict[tuple[Any, ...], dict[str, float]] | None = rules._cache.get(_ODDS)
    if tables is None:
        tables = rules._cache[_ODDS] = {}
    key = (hero.id, _in_order(hero.weapons), hero.cursed, variants)
    known = tables.get(key)
    if known is None:
        known = tables[key] = {}
    return known


def _in_order(items: list[str]) -> tuple[str, ...]:
    """`tuple(sorted(items))`, without sorting none or one (a hero's weapons, asked about at every step: sorting
    even one makes a list and calls the sort)."""
    return tuple(items) if len(items) < 2 else tuple(sorted(items))


def _probe_win(rules: Ruleset, probe: Character, monster: str, variants: frozenset[str]) -> float:
    from .fight_odds import monster_win

    shared = _class_win(rules, probe, monster, variants)
    if shared is not None:
        return shared
    try:
        return float(monster_win(rules, probe, monster, variants))
    except (ValueError, KeyError):  # a monster without a known strength: unknown odds, avoid it
        return 0.0


_STORED = ("greedy stored odds",)  # ruleset memo: whole fight key -> win chance, or the function that reads them
_FRESH = ("greedy fresh odds",)  # ruleset memo: the figures computed in this process that the store lacked
_STORED_CHOICES = ("greedy stored choices",)  # as _STORED, for `fight_choice`'s answers (by `choice_key`)
_FRESH_CHOICES = ("greedy fresh choices",)  # as _FRESH, for those answers


def fight_key(probe: Character, monster: str, variants: frozenset[str]) -> str:
    """Everything the exact odds of `probe` against `monster` depend on besides the ruleset, as a digest of its
    text: every field of the probe (its dataclass fields, in order: a field added later is part of it too), the monster
    and the variants. `win_chance`'s own key leaves out what rarely matters (items without effects...) and
    keeps the figure of its first ask in a process; a figure kept under this key is the one an enumeration
    for this very probe gives, so a run that reads it plays the games it would play without it."""
    fields = []
    for name in probe.__dataclass_fields__:
        value = getattr(probe, name)
        if isinstance(value, list):
            value = tuple(value)
        elif isinstance(value, dict):
            value = tuple(sorted(value.items()))
        fields.append((name, value))
    return blake2b(repr((monster, tuple(sorted(variants)), tuple(fields))).encode(), digest_size=16).hexdigest()


def use_store(rules: Ruleset, read: Callable[[], dict[str, float]],
              read_choices: Callable[[], dict[str, int | None]] | None = None) -> None:
    """Let `win_chance` take figures computed in earlier runs (`read()` gives them by `fight_key`, called at
    the first figure this process lacks) instead of enumerating them again; and `fight_choice` its answers
    (`read_choices()`, by `choice_key`)."""
    rules._cache[_STORED] = read
    if read_choices is not None:
        rules._cache[_STORED_CHOICES] = read_choices


def more_stored(rules: Ruleset, read: Callable[[], dict[str, float]],
                read_choices: Callable[[], dict[str, int | None]]) -> None:
    """Add to the store's figures and answers this process has read (`use_store`) those stored since (`read()`
    and `read_choices()` give only those: other workers' of the same run): a figure found is the one the
    enumeration gives, so the games are the same, and a process does not enumerate what another already did.
    Nothing is read for a store this process has not read yet (it will read it whole at its first miss)."""
    for key, more in ((_STORED, read), (_STORED_CHOICES, read_choices)):
        kept = rules._cache.get(key)
        if isinstance(kept, dict):
            kept.update(more())


def choice_key(start: tuple[Any, ...], prefix: tuple[Any, ...], point: str, options: list[Any]) -> str:
    """Everything the exact answer at a choice inside a fight depends on besides the ruleset (`fight_choice`):
    the fight's start as `fight_choice` keeps it (the monster, the variants, what the fighter carries in:
    `_state`, and its spells), the answers and dice so far, the choice and its options, as a digest. (The start
    by that key, not by every field of the fighter: a process answers every start of a key from the first it
    met, so the answer is the key's, and another process that met another start first finds it.)"""
    monster, variants, state, spells = start
    text = repr((monster, tuple(sorted(variants)), state, spells, prefix, point, tuple(options)))
    return blake2b(text.encode(), digest_size=16).hexdigest()


def fresh_choices(rules: Ruleset) -> dict[str, int | None]:
    """The fight answers (by `choice_key`) this process found that the store lacked; taken, as `fresh_odds`."""
    fresh: dict[str, int | None] = rules._cache.pop(_FRESH_CHOICES, {})
    return fresh


def fresh_odds(rules: Ruleset) -> dict[str, float]:
    """The figures (by `fight_key`) this process computed that the store lacked; taken: a second call gives only
    those computed since."""
    fresh: dict[str, float] = rules._cache.pop(_FRESH, {})
    return fresh


_CLASS_WINS = ("greedy class wins",)  # ruleset memo: variants -> (probe's state, class) -> wins or None
_CLASS_OF = ("greedy class of",)  # ruleset memo: monster -> the monsters it shares an enumeration with
_ACTIVE = ("greedy effect owners",)  # ruleset memo: the entities that own an effect


def _class_win(rules: Ruleset, probe: Character, monster: str, variants: frozenset[str]) -> float | None:
    """The chance `monster_win` gives for `probe` against `monster`, from one enumeration shared by the
    monsters the rules tell apart only by strength (`fight_classes`: the same paths and leaves as each one's
    own enumeration, so the same figure), made once for all of them; None when the monster is alone in its
    class or the shared enumeration cannot run (the fight is then enumerated alone, as before). The shared
    figures are kept by what the probe holds (`_state`), so a member asked later by a hero that holds more
    than the `win_chance` key says is not answered from an earlier probe's enumeration."""
    from .fight_classes import SHARED

    if not SHARED:
        return None
    members = _class_of(rules, monster)
    if len(members) < 2:
        return None
    by_variants: dict[frozenset[str], dict[Any, dict[str, float] | None]] = rules.memo(_CLASS_WINS, dict)
    known = by_variants.get(variants)
    if known is None:
        known = by_variants[variants] = {}
    key = (_state(rules, probe), members)
    if key not in known:
        from .fight_classes import _ONE_BY_ONE, _class_odds

        try:
            odds = _class_odds(rules, probe, members, tuple(variants), None, "strength")
            known[key] = {m: float(o.win) for m, o in odds.items()}
        except _ONE_BY_ONE:  # (as `fight_classes.outcomes`: the lone fights then do as before, errors included)
            known[key] = None
    wins = known[key]
    return None if wins is None else wins[monster]


def _class_of(rules: Ruleset, monster: str) -> tuple[str, ...]:
    """The monsters (entities with a whole-number strength) in the class of `monster`, per ruleset."""
    found: dict[str, tuple[str, ...]] | None = rules._cache.get(_CLASS_OF)
    if found is None:
        from .fight_classes import classes

        fighters = sorted(i for i, e in rules.entities.items() if type(e.attr("strength")) is int)
        found = {m: members for members in classes(rules, fighters, "strength") for m in members}
        rules._cache[_CLASS_OF] = found
    return found.get(monster, (monster,))


def _state(rules: Ruleset, who: Character) -> tuple[Any, ...]:
    """What a fight of a copy of `who` can tell apart, as a key: everything the copy carries over but lives,
    spells and being unconscious (`win_chance`'s probe sets those) and the keys, treasures and other items
    that own no effect (as `win_chance`'s own key, which leaves out all of them, assumes)."""
    active: frozenset[str] | None = rules._cache.get(_ACTIVE)
    if active is None:
        active = rules._cache[_ACTIVE] = frozenset(fx.owner for fx in rules.effects)
    return (who.id, who.max_lives, tuple(who.weapons), tuple(who.cards),
            None if who.abilities is None else tuple(who.abilities), who.cursed, who.possessed, who.no_abilities,
            tuple(who.stats.items()), tuple(who.max_stats.items()), tuple(who.spent.items()),
            tuple(i for i in (*who.keys, *who.treasures, *who.items) if i in active))


def cached_odds(rules: Ruleset) -> dict[tuple[Any, ...], float]:
    """The win chances `win_chance` has computed on this ruleset so far, by ("greedy odds", hero, weapons,
    cursed, monster, variants) (for tests and reports)."""
    tables: dict[tuple[Any, ...], dict[str, float]] = rules._cache.get(_ODDS) or {}
    return {("greedy odds", *loadout[:3], monster, loadout[3]): chance
            for loadout, known in tables.items() for monster, chance in known.items()}


def _probe_heals(rules: Ruleset, owner: str, trigger: str, variants: frozenset[str]) -> bool:
    """Whether the owner's effects of `trigger` give a wounded hero lives back (tried on a probe); remembered by
    trigger and variants, then by owner (asked for every item held and tile laid at a low hero's steps)."""
    tables: dict[tuple[str, frozenset[str]], dict[str, bool]] = rules.memo(_HEALS, dict)
    key = (trigger, variants)
    known = tables.get(key)
    if known is None:
        known = tables[key] = {}
    try:
        return known[owner]
    except KeyError:
        pass
    probe = Character("_probe_", 1, 5)
    ctx = Context(rules, _FirstOption(), variants, {}, {probe.id: probe})
    ctx.actor = probe
    try:
        for fx in rules.effects_of([owner], trigger, variants):
            ctx.run(fx)
    except RuntimeError:  # an effect that needs a fight or a table (verbs say so): judged by what it did so far
        pass
    found = known[owner] = probe.lives > 1
    return found


_HEALS = ("greedy heals",)


def worth(rules: Ruleset, item: str) -> float:
    """What an item is worth to the bot (attack, twice its treasure value, a little for a spell), looked up
    once per item and ruleset."""
    known: dict[str, float] = rules.memo(_WORTH, dict)
    try:
        return known[item]
    except KeyError:
        pass
    e = rules.get(item)
    value = 0.0 if e is None else (float(e.attr("attack", 0) or 0) + 2 * float(e.attr("value", 0) or 0)
                                   + (0.5 if e.is_a("spell") else 0.0))
    known[item] = value
    return value


_WORTH = ("greedy worth",)
_STRENGTH = ("greedy strength",)


def _strength(rules: Ruleset, token: str) -> int | None:
    """A token's `strength` when it is a whole number (a monster), else None; looked up once per ruleset."""
    known: dict[str, int | None] = rules.memo(_STRENGTH, dict)
    try:
        return known[token]
    except KeyError:
        pass
    s = rules.entity(token).attr("strength")
    found = known[token] = int(s) if isinstance(s, int) else None
    return found


_ORDER = ("greedy monster order",)
_BAG = ("greedy last bag",)  # ruleset memo: the last bag a greedy bot asked about and its answer


def _monster_order(rules: Ruleset) -> tuple[dict[str, int], list[str]]:
    """Every entity with a whole-number strength (as `_strength` counts them), ranked by (strength, id): the
    rank of each (-1 for every other entity: one look-up tells a token's rank or that it is no monster), and
    the entity of each rank; per ruleset."""
    def compute() -> tuple[dict[str, int], list[str]]:
        ranked = sorted((s, e) for e in rules.entities if (s := _strength(rules, e)) is not None)
        rank = dict.fromkeys(rules.entities, -1)
        rank.update((e, i) for i, (_, e) in enumerate(ranked))
        return rank, [e for _, e in ranked]
    return rules.memo(_ORDER, compute)  # type: ignore[no-any-return]


def _holds(me: Character) -> tuple[tuple[str, ...], ...]:
    return (tuple(me.weapons), tuple(me.spells), tuple(me.keys), tuple(me.treasures), tuple(me.items))


def _wants(ctx: Context, me: Character, items: list[str], holds: tuple[tuple[str, ...], ...] | None = None) -> bool:
    """Whether one of `items` fills a free slot of the hero or beats the item worth least in its slot. The
    answer depends on the items, what the hero holds (`holds`: `_holds(me)`), the ruleset and the variants
    only: remembered per ruleset (asked for every tile with items at every step)."""
    known = _wants_for(ctx, holds or _holds(me))
    key = tuple(items)
    try:
        return known[key]
    except KeyError:
        pass
    found = known[key] = _wants_now(ctx, me, items)
    return found


def _wants_for(ctx: Context, holds: tuple[tuple[str, ...], ...]) -> dict[tuple[str, ...], bool]:
    """`_wants`' answers for a hero holding `holds`, by the items (by what is held first: the nested tuple
    is hashed once per step, not once per tile with items)."""
    try:
        known: dict[Any, dict[tuple[str, ...], bool]] = ctx.rules._cache["greedy wants", ctx.variants]
    except KeyError:
        known = ctx.rules.memo(("greedy wants", ctx.variants), dict)
    mine = known.get(holds)
    if mine is None:
        mine = known[holds] = {}
    return mine


def _wants_now(ctx: Context, me: Character, items: list[str]) -> bool:
    from .fight import slot_limits

    limits = slot_limits(ctx.rules, ctx.variants)
    for item in items:
        slot = str(ctx.rules.entity(item).attr("slot", "item"))
        held = {"weapon": me.weapons, "spell": me.spells, "key": me.keys, "treasure": me.treasures}.get(slot,
                                                                                                      me.items)
        if slot not in limits or len(held) < limits[slot]:
            return True
        if held and worth(ctx.rules, item) > min(worth(ctx.rules, h) for h in held):
            return True
    return False


def _monsters(ctx: Context, play: Play) -> dict[Pos, str]:
    """The monster on each tile that has one (by its position; the first token with a strength). Kept until
    a tile is laid or a token moves (`Play.token_memo`); the caller must not change the answer, nor keep it past
    the step. One map is kept all game (`Play.laid_memo`) and brought up to date from the tiles laid and the
    tiles whose tokens changed since (`Play.token_tiles_since`), not from the whole board."""
    memo = play.token_memo()
    found: dict[Pos, str] | None = memo.get(_MONSTERS)
    if found is not None:
        return found
    kept = play.laid_memo()
    found = kept.get(_MONSTERS)
    laid = play.laid_since(_MONSTERS_READER)
    changed = play.token_tiles_since(_MONSTERS_READER)
    board = play.board
    tiles: list[Placed]
    if found is None or changed is None:  # (the first time, or after a change on a tile not said: every tile)
        found = kept[_MONSTERS] = {}
        tiles = list(board.values())
    else:
        tiles = [board[pos] for pos in laid]
        tiles += changed
    for t in tiles:
        if board.get(t.pos) is not t:  # (not laid yet: counted when it is)
            continue
        m = _monster_token(ctx, t)
        if m is not None:
            found[t.pos] = m
        elif t.pos in found:
            del found[t.pos]
    memo[_MONSTERS] = found
    return found


_MONSTERS = ("greedy monsters",)
_MONSTERS_READER = "greedy monsters"  # (`Play.laid_since` / `token_tiles_since` reader)
_HEALING_READER = "greedy healing"  # (`Play.laid_since` reader)
_REPLACED = ("greedy healing: tiles replaced",)  # `Play.laid_memo` entry: `Play.tiles_replaced` when last read
_EDGES = ("greedy edges",)  # `Play.board_memo` entries: the open edges not avoided (`GreedyBot._edges`)


def _graph(ctx: Context, play: Play, walls: bool) -> Graph | None:
    """The steps a hero may take now (`Play.graph`): through walls while its turn allows it (`walls`: the
    engine's flag of `walk_through_walls`) and between the portals laid (`portal_link`), as the engine offers
    them; None when only the passages lead."""
    return play.graph(walls, tuple(_portals(ctx, play)))


@lru_cache(maxsize=4096)
def _pos(label: Any) -> Pos:
    """The board position in a `<tile>@x,y` option label (labels repeat: parsed once)."""
    x, y = str(label).rsplit("@", 1)[1].split(",")
    return (int(x), int(y))


def _monster(ctx: Context, play: Play, pos: Pos) -> str | None:
    placed = play.board.get(pos)
    return None if placed is None else _monster_token(ctx, placed)


class _World:
    """What a step's avoided monsters and goals were found for (the token memo, context, hero, items moved,
    holdings and whether cursed), those two, and the win chances known for the hero's loadout (`_loadout_odds`).
    A class, not a tuple: compiled, its fields are compared as what they are."""

    __slots__ = ("memo", "ctx", "who", "item_moves", "holds", "cursed", "avoided", "goals", "known")

    def __init__(self, memo: dict[Any, Any], ctx: Context, who: str, item_moves: int,
                 holds: tuple[tuple[str, ...], ...], cursed: bool, avoided: frozenset[Pos], goals: frozenset[Pos],
                 known: dict[str, float]) -> None:
        self.memo, self.ctx, self.who, self.item_moves, self.holds = memo, ctx, who, item_moves, holds
        self.cursed, self.avoided, self.goals, self.known = cursed, avoided, goals, known


@mypyc_attr(allow_interpreted_subclasses=True)  # (a designer's bot may derive from it, on the compiled runtime too)
class GreedyBot:
    """See the module docstring. `WIN_ENOUGH`, `LOW_LIVES`, `SNEAK_BELOW` and `SWAP_GAIN` are class attributes a
    subclass may change."""

    WIN_ENOUGH: ClassVar[float] = WIN_ENOUGH
    LOW_LIVES: ClassVar[int] = LOW_LIVES
    # below these odds the bot passes a monster by when an ability lets it (a sneak): a fight it meets costs at
    # most a life and may win a reward; in 3,000 games (bench/README, all seats at `WIN_ENOUGH` 0.5) sneaking below
    # 0.2 played best of 0.2, 0.35, 0.5, never and always
    SNEAK_BELOW: ClassVar[float] = 0.2
    # the steps nearer its goals another hero's place must be for the bot to give up its turn to swap into it
    # (`swap_places` with the turn's end): in 4,000 games of Lord Xanros (bench/README) he won 11.0% swapping for
    # a gain of 1 step, 17.3% for 2, 22.3% for 4, 23.9% for 6, 24.8% for 8 and 23.7% never swapping
    SWAP_GAIN: ClassVar[int] = 8

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)
        self.target: Pos | None = None
        self.avoid: AbstractSet[Pos] = frozenset()  # tiles whose monster the last step decided not to fight
        # the search from the goals that gave `target` (`Play.nearest_search`, around `avoid`), the rank of
        # `target` in it and the board memo it belongs to (it holds while that is the board's memo): `_towards`
        # answers from it
        self.guide: Nearest | None = None
        self.guide_rank = -1
        self.guide_memo: dict[Any, Any] | None = None
        self.guide_steps = -1  # (the hero's steps to `target` when the guide was made)
        # the tiles of the monsters the step's odds say to avoid (for `_towards`: the same as asking the odds of
        # the monster on each tile), None when the step did not weigh them (it heads for a tile that heals)
        self.weak_at: frozenset[Pos] | None = None
        self.world: _World | None = None  # (the last step's, see `_step`)
        # the steps the hero may take (`Play.graph`: through walls, between portals), found by the last step;
        # None: the passages only
        self.graph: Graph | None = None
        self.graph_play: Play | None = None  # (the board, its size and whether walls stop it, for `graph`)
        self.graph_size = -1
        self.graph_walls = False
        # the tiles with items the hero wants, and what they were found for: (play, items moved, holdings, tiles)
        self.wanted: tuple[Any, ...] | None = None

    # ---- the decision points -------------------------------------------------------------------

    def choose(self, view: Any, options: Sequence[Any]) -> int:
        point = view.point.split(":", 1)[1] if ":" in view.point else view.point
        return self.decide(view.chooser, point, view.ctx, options)

    def decide(self, who: str, point: str, ctx: Context, options: Sequence[Any]) -> int:
        """`choose`, from the view's parts (`point` without its chooser): `BotInputs` asks a `GreedyBot` so,
        without making a view or the point's id (`engine.direct_bot`)."""
        opts = list(options)
        # the point's name (before `#`) and where the `#` is, per point: points repeat (compiled, a look-up of
        # a literal's kept hash costs less than a find and a new string)
        parsed = _POINTS.get(point)
        if parsed is None:
            if len(_POINTS) >= 4096:  # (a bound for points made from names)
                _POINTS.clear()
            at = point.find("#")
            parsed = _POINTS[point] = (point if at < 0 else point[:at], at)
        name, cut = parsed
        if name == "step" and ctx.play is not None and who in ctx.characters:
            return opts.index(self._step(ctx, who, opts))
        if name == "walk_to" and self.target is not None and ctx.play is not None:
            return self._towards(ctx, who, opts)
        if name == "explore_turn":  # the most exits leave the most ways on
            return max(range(len(opts)), key=lambda i: (str(opts[i]).count("-"), -i))
        if name.startswith("swap_for"):
            new = point.split(":", 1)[1] if ":" in point else ""
            held = [(worth(ctx.rules, str(o)), i) for i, o in enumerate(opts) if o != "keep"]
            low, i = min(held) if held else (0.0, 0)
            return i if held and worth(ctx.rules, new) > low else opts.index("keep") if "keep" in opts else 0
        if name in ("take_which", "give_which"):
            return max(range(len(opts)), key=lambda i: (worth(ctx.rules, str(opts[i])), -i))
        if name == "return_token" and ctx.play is not None and who in ctx.characters:
            me = ctx.characters[who]  # (tokens drawn onto the room it enters: the one worse to meet goes back)
            return min(range(len(opts)), key=lambda i: (self._token_value(ctx, me, str(opts[i])), i))
        if name in ("drop_item", "stake_which", "return_token"):
            return min(range(len(opts)), key=lambda i: (worth(ctx.rules, str(opts[i])), i))
        if name == "take_reward" and True in opts:
            return opts.index(True)
        if name.endswith(_MAY_TAKE) and True in opts and False in opts and ctx.play is not None \
                and who in ctx.characters:  # (an item lying here, after a fight won: taken when wanted)
            return opts.index(self._wants_here(ctx, ctx.characters[who], ctx.play.position.get(who)))
        if name == "heal_to":
            return max(range(len(opts)), key=lambda i: (int(opts[i]), -i))
        if name == "use_which":
            return self._use_which(ctx, who, opts)
        if name.startswith("spell") and all(isinstance(o, int) for o in opts):
            return self._spells(ctx, who, point, opts)
        if name == "swap_with" and ctx.play is not None and who in ctx.characters:  # (the place nearest its goals)
            gain = self._swap_gain(ctx, who)
            if gain is not None and ctx.play.order[gain[1]] in opts:
                return opts.index(ctx.play.order[gain[1]])
        fight = ctx.fight
        if fight is not None and fight.journal is not None:  # a choice inside a fight: as the exact odds choose
            chosen = fight_choice(ctx, fight, who, point, opts)
            if chosen is not None:
                return chosen
        if ctx.play is not None and who in ctx.characters:
            judged: int | None = None
            if cut >= 0:
                judged = self._effect_choice(ctx, who, point, opts)
            elif name == "teleport_to":
                judged = self._teleport_to(ctx, who, opts)
            elif name in ("curse_target", "challenge_whom"):
                judged = _other_hero(ctx, who, opts, richest=name == "curse_target")
            if judged is not None:
                return judged
        wanted = purposeful(self.rng, ctx, who, opts)  # a named option that makes progress (as the sensible bot)
        return going_on(self.rng, ctx, point, opts) if wanted is None else wanted  # (not one that ends the turn)

    # ---- an effect's choice outside fights, judged by what each option does ---------------------

    def _effect_choice(self, ctx: Context, who: str, point: str, opts: list[Any]) -> int | None:
        """An effect's `choose` or `may` (`owner#n`), judged by the verbs of each option
        (`Ruleset.option_verbs`, the catalogue's names), not by whose effect it is:

        - an option that `prevent`s what is happening, offered on a tile with a monster (meeting it): taken
          when the exact odds against it are below `SNEAK_BELOW` and the hero did not walk here to fight it;
        - an option that `teleport`s and fights a monster (`fight_monster`): taken when a monster stands on the
          board and the hero is not low on lives (`teleport_to` picks the one with the best odds). A fight
          chosen so costs at most a life and wins a reward: in 3,000 four-player games this plays better than
          teleporting only to odds of 0.3 or 0.5 (shorter games, more won; bench/README);
        - an option that sets the `steps` and forbids exploring (`no_explore`): taken when the bot's step from
          here walks to a goal rather than explores (in 3,000 games this played better than sprinting only
          towards a goal beyond the steps left, always, or never: bench/README);
        - a `may explore` (a look into a room without entering): taken where the bot's step would explore
          though the bag looks risky (`_explore_good`); a look where it would explore anyway spends a step
          for nothing it would not learn by entering;
        - a `may open_chest`: taken when what the chest holds is worth more than what opens it;
        - an option that swaps places with another hero (`swap_places`): taken when another hero's place is
          `SWAP_GAIN` steps nearer the hero's goals than its own (`_swap_gain`; `swap_with` then picks that hero);
        - a `may take_item`: taken, in a fight's result too (the item is picked by worth, `take_which`);
          every other rule applies outside fights only.

        None for any other choice: the caller decides as before."""
        verbs = ctx.rules.option_verbs(point)
        play = ctx.play
        if verbs is None or play is None:
            return None
        me = ctx.characters[who]
        here = play.position.get(who)
        does = [verbs.get(str(o), ()) for o in opts]
        if len(opts) == 2 and opts[0] is False and opts[1] is True:  # a `may`
            verb = does[1][0] if does[1] else ""
            if verb == _EXPLORE:  # (a look before a room it would enter though the bag looks risky)
                # (the bag first: where it looks good the look is not taken, whatever the step would be)
                return int(not self._explore_good(ctx, me) and self._plan(ctx, who) == "explore")
            if verb == _OPEN_CHEST:
                chest = ctx.rules.get(ctx.owner)
                if chest is None:
                    return None
                inside, key = chest.attr("contents"), chest.attr("opens_with")
                return int(worth(ctx.rules, str(inside)) > (worth(ctx.rules, str(key)) if key else 0.0))
            if verb == _TAKE_ITEM:
                return 1
            return None
        if ctx.fight is not None:  # (the rules below are for choices outside fights)
            return None
        if any(_PREVENT in d for d in does) and here is not None:
            monster = _monster(ctx, play, here)
            if monster is None:
                return None
            avoid = self.target != here and win_chance(ctx.rules, me, monster, ctx.variants) < self.SNEAK_BELOW
            return next((i for i, d in enumerate(does) if (_PREVENT in d) == avoid), None)
        fights = next((i for i, d in enumerate(does) if _TELEPORT in d and _FIGHT_MONSTER in d), None)
        if fights is not None:
            if _monsters(ctx, play) and me.lives > self.LOW_LIVES:  # (`teleport_to` weighs them)
                return fights
            return next((i for i, d in enumerate(does) if _FIGHT_MONSTER not in d), None)
        sprints = next((i for i, d in enumerate(does) if _STEPS in d and _NO_EXPLORE in d), None)
        if sprints is not None:
            walks = self._plan(ctx, who) == "walk"
            return sprints if walks else next((i for i, d in enumerate(does) if _NO_EXPLORE not in d), None)
        swaps = next((i for i, d in enumerate(does) if _SWAP_PLACES in d), None)
        if swaps is not None:
            gain = self._swap_gain(ctx, who)
            take = gain is not None and gain[0] >= self.SWAP_GAIN
            return swaps if take else next((i for i, d in enumerate(does) if _SWAP_PLACES not in d), None)
        return None

    def _swap_gain(self, ctx: Context, who: str) -> tuple[int, int] | None:
        """How many steps nearer its goals the hero would stand in another hero's place (`swap_places`), and
        the index in the table's order of the other hero whose place is nearest; None when no place is nearer
        or the hero is low on lives (it heads for healing then). The goals are its step's (`_step`: monsters it
        would fight, items it wants), or the open edges when it has none (it would explore); a goal it cannot
        reach counts as farther than any it can."""
        play = ctx.play
        assert play is not None
        me = ctx.characters[who]
        here = play.position.get(who)
        if here is None or me.lives <= self.LOW_LIVES:
            return None
        self._walker(ctx, who, play)
        world = self._world(ctx, who, me, play)  # (the step's: the monsters it avoids and its goals)
        avoided = world.avoided
        goals = world.goals or self._edges(play, avoided)
        if not goals:
            return None
        found = play.nearest_search(goals if isinstance(goals, frozenset) else frozenset(goals), avoided,
                                    self.graph)
        far = 10**6
        mine = play.nearest_at(found, here)[0]
        mine = far if mine < 0 else mine
        best: tuple[int, int] | None = None
        for i, other in enumerate(play.order):
            there = play.position.get(other)
            if other == who or there is None:
                continue
            d = play.nearest_at(found, there)[0]
            if d >= 0 and mine - d > 0 and (best is None or mine - d > best[0]):
                best = (mine - d, i)
        return best

    def _token_value(self, ctx: Context, me: Character, token: str) -> float:
        """What meeting `token` on a tile is worth to the hero: for a monster, its odds above `WIN_ENOUGH`
        (below, a likely lost life); for a chest, 1 when the hero holds what opens it, else 0."""
        if _strength(ctx.rules, token) is not None:
            return win_chance(ctx.rules, me, token, ctx.variants) - self.WIN_ENOUGH
        entity = ctx.rules.get(token)
        opens_with = entity.attr("opens_with") if entity is not None else None
        return 1.0 if opens_with and str(opens_with) in me.held() else 0.0

    def _plan(self, ctx: Context, who: str) -> Any:
        """What the bot's step would be now, given a step's usual options (walk, explore where it can, stop):
        for a choice before the step (an ability's at the turn's start or before each step). It leaves the
        step's target and guide as the step would (the next step sets them again)."""
        return self._step(ctx, who, ["explore", "walk", "stop"] if can_explore(ctx) else ["walk", "stop"])

    def _best_monster(self, ctx: Context, me: Character,
                      places: list[tuple[Pos, str]]) -> tuple[float, int, Pos] | None:
        """The best odds against the monsters at `places`, the first such in order, and where it stands."""
        best: tuple[float, int, Pos] | None = None
        for i, (pos, monster) in enumerate(places):
            chance = win_chance(ctx.rules, me, monster, ctx.variants)
            if best is None or chance > best[0]:
                best = (chance, i, pos)
        return best

    def _teleport_to(self, ctx: Context, who: str, opts: list[Any]) -> int | None:
        """Of tiles to teleport to that all hold a monster (a teleport to fight), the one with the best odds;
        None otherwise."""
        play = ctx.play
        assert play is not None
        places: list[tuple[Pos, str]] = []
        for label in opts:
            at = play.label_pos(label) if isinstance(label, str) else None
            monster = _monster(ctx, play, at) if at is not None else None
            if at is None or monster is None:
                return None
            places.append((at, monster))
        best = self._best_monster(ctx, ctx.characters[who], places)
        return None if best is None else best[1]

    # ---- a step: pick up, heal, fight or explore -----------------------------------------------

    def _step(self, ctx: Context, who: str, opts: list[Any]) -> Any:
        play = ctx.play
        assert play is not None
        me = ctx.characters[who]
        here = play.position.get(who)
        self.target = None
        self.guide = None
        self.weak_at = None
        self._walker(ctx, who, play)
        if "pick_up" in opts and self._wants_here(ctx, me, here):
            return "pick_up"
        if me.lives <= self.LOW_LIVES:
            heal = self._heal_step(ctx, me, here, opts)
            if heal is not None:
                return heal
        world = self._world(ctx, who, me, play)
        avoided: frozenset[Pos] = world.avoided
        goals: AbstractSet[Pos] = world.goals
        known = world.known
        blocked = avoided
        self.avoid = blocked
        self.weak_at = avoided
        if here in goals:
            goals = goals - {here}
        can_walk, can_explore = "walk" in opts, "explore" in opts  # (asked several times below: looked up once)
        # (a search only when it can find something: without goals, edges or monsters to try, nothing is
        # reachable, and the search from a new place would walk the whole board for nothing; no goal is
        # avoided, so the search avoids `blocked` itself)
        if can_walk and here is not None and goals:
            if can_explore and here not in blocked and self._explore_good(ctx, me, known):
                # (it explores unless a goal is one step away: how far the nearer goals are does not matter, and
                # the search from them, kept until a tile is laid, would be made again after the room it lays)
                self.guide = None
                next_to = play.least_next_to(here, goals, self.graph)
                if next_to is None:
                    return "explore"
                self.target = next_to
                return "walk"
            near = self._nearest(play, goals, blocked, here)
            if near is not None:
                self.target = near[1]
                if near[0] == 1 or not can_explore or not self._explore_good(ctx, me, known):
                    return "walk"
        if can_explore and self._explore_good(ctx, me, known):
            return "explore"
        # towards an open edge, to explore there: only from where exploring is not possible (walking from one
        # edge to another because the room behind this one looks risky is no better there, and heroes paced
        # between edges until the turn cap in a tenth of all games)
        if can_walk and not can_explore and here is not None and play.zones.get("stack"):
            edges = self._edges(play, blocked)
            if here in edges:
                edges = edges - {here}
            near = self._nearest(play, edges, blocked, here) if edges else None
            if near is not None:
                self.target = near[1]
                return "walk"
        if can_explore:
            return "explore"
        if can_walk and here is not None and me.lives > self.LOW_LIVES and blocked:
            # nothing better left: take on the monster with the best odds (a lost fight costs a life, and
            # only beaten monsters end the game)
            dist = play.steps_to((here,), (), blocked, graph=self.graph)  # (as far as the monsters avoided)
            chances = {p: win_chance(ctx.rules, me, m, ctx.variants) for p in blocked if p in dist
                       and (m := _monster(ctx, play, p)) is not None}
            if chances:
                self.target = max(chances, key=lambda p: (chances[p], -dist[p], p))
                return "walk"
        return "stop" if "stop" in opts else opts[0]

    def _walker(self, ctx: Context, who: str, play: Play) -> None:
        """Bring the bot's steps of the walker (`graph`) up to date: they change only when a tile is laid or the
        turn lets the hero through walls, so the last step's are taken again until then."""
        flags: dict[str, Any] | None = ctx.facts.get("turn_flags")
        walls = flags is not None and bool(flags.get("walls:" + who))
        if self.graph_play is not play or self.graph_size != len(play.board) or self.graph_walls != walls:
            self.graph = _graph(ctx, play, walls)
            self.graph_play, self.graph_size, self.graph_walls = play, len(play.board), walls

    def _world(self, ctx: Context, who: str, me: Character, play: Play) -> _World:
        """The step's world: the monsters the hero's loadout avoids (by the exact odds) and its goals.
        Half of all steps come after a step of the same hero with the same tiles, tokens, items and
        holdings (a walk on): the monsters avoided and the goals are then those of that step, kept by
        the bot (`world`) instead of looked up again in the memos by keys of nested tuples."""
        memo = play.token_memo()
        holds = _holds(me)
        world = self.world
        if (world is not None and world.memo is memo and world.ctx is ctx and world.who == who
                and world.item_moves == play.item_moves and world.holds == holds and world.cursed == me.cursed):
            return world
        known: dict[str, float]
        monsters = _monsters(ctx, play)
        # the monsters this loadout avoids, by the win chances known for it (those of the last step's world
        # when the hero holds the same)
        if world is not None and world.ctx is ctx and world.who == who and world.holds == holds \
                and world.cursed == me.cursed:
            known = world.known
        else:
            known = _loadout_odds(ctx.rules, me, ctx.variants)
        enough = self.WIN_ENOUGH
        weak: dict[str, bool] = {}
        places: list[Pos] = []
        for p, kind in monsters.items():  # (each monster's odds once, in the order met)
            too_strong = weak.get(kind)
            if too_strong is None:
                chance = known.get(kind)
                if chance is None:
                    chance = win_chance(ctx.rules, me, kind, ctx.variants)
                too_strong = weak[kind] = chance < enough
            if too_strong:
                places.append(p)
        avoided = frozenset(places)
        goals = self._goals(ctx, play, me, monsters, avoided, holds)
        world = self.world = _World(memo, ctx, who, play.item_moves, holds, me.cursed, avoided, goals, known)
        return world

    def _nearest(self, play: Play, goals: AbstractSet[Pos], blocked: frozenset[Pos],
                 here: Pos) -> tuple[int, Pos] | None:
        """The steps to the nearest goal from `here` and the least such goal (by position), found without
        entering a tile of `blocked` (`here` itself may be one): by one search from the goals, kept for every
        step towards them (`Play.nearest`) and kept as the step's guide for `_towards`, unless `here` is avoided;
        None when no goal can be reached."""
        self.guide = None
        if here in blocked:
            dist = play.steps_to((here,), blocked, goals, first=True, graph=self.graph)
            if not dist:
                return None
            target = min(dist, key=lambda g: (dist[g], g))
            return dist[target], target
        found = play.nearest_search(goals if isinstance(goals, frozenset) else frozenset(goals), blocked,
                                    self.graph)
        d, rank = play.nearest_at(found, here)
        if d < 0:
            return None
        self.guide, self.guide_rank, self.guide_memo = found, rank, play.board_memo()
        self.guide_steps = d
        return d, found.order[rank]

    @staticmethod
    def _edges(play: Play, blocked: frozenset[Pos]) -> frozenset[Pos]:
        """The open edges (`Play.open_edges`) not `blocked`; kept until a tile is laid (`Play.board_memo`)."""
        edges = play.open_edges()  # (first: caught up with the board)
        memo = play.board_memo()
        key = (_EDGES, blocked)
        found: frozenset[Pos] | None = memo.get(key)
        if found is None:
            found = memo[key] = frozenset(p for p in edges if p not in blocked)
        return found

    def _goals(self, ctx: Context, play: Play, me: Character, monsters: dict[Pos, str], avoided: frozenset[Pos],
               holds: tuple[tuple[str, ...], ...]) -> frozenset[Pos]:
        """The tiles a step may head for, the hero's own included: the monsters not `avoided` and the tiles
        with items the hero wants (`_wants`) that are not avoided."""
        goals = {p for p in monsters if p not in avoided}
        for p in self._wanted(ctx, play, me, holds):
            if p not in avoided:
                goals.add(p)
        return frozenset(goals)

    def _wanted(self, ctx: Context, play: Play, me: Character, holds: tuple[tuple[str, ...], ...]) -> list[Pos]:
        """The tiles with items the hero wants (`_wants`): they depend on what it holds (`holds`: `_holds(me)`)
        and where the items lie, so the bot keeps them until either changes (a tile laid or a monster beaten
        leaves them as they were)."""
        places = play.item_places()  # (first: a tile laid with items counts as items moved)
        kept = self.wanted
        if kept is not None and kept[0] is play and kept[1] == play.item_moves and kept[2] == holds:
            return kept[3]  # type: ignore[no-any-return]
        wants = _wants_for(ctx, holds)
        found: list[Pos] = []
        # (a plain loop over the tiles that ever held an item: on the compiled runtime `t.items` is a native
        # read, a filter with an attrgetter a generic one per tile)
        for t in places:
            if not t.items:
                continue
            items = tuple(t.items)
            wanted = wants.get(items)
            if wanted is None:
                wanted = wants[items] = _wants_now(ctx, me, t.items)
            if wanted:
                found.append(t.pos)
        self.wanted = (play, play.item_moves, holds, found)
        return found

    def _wants_here(self, ctx: Context, me: Character, pos: Pos | None) -> bool:
        placed = ctx.play.board.get(pos) if ctx.play is not None and pos is not None else None
        if placed is None or not placed.items:
            return False
        return _wants(ctx, me, placed.items)

    def _heal_step(self, ctx: Context, me: Character, here: Pos | None, opts: list[Any]) -> Any:
        play = ctx.play
        assert play is not None
        if "use_item" in opts and any(_probe_heals(ctx.rules, i, "use", ctx.variants) for i in me.held()):
            return "use_item"
        healing = self._healing(ctx, play)
        if here in healing:
            return "stop" if "stop" in opts else None
        if "walk" in opts and here is not None:
            blocked = frozenset(_monsters(ctx, play))
            self.avoid = blocked
            if not healing:
                return None
            through = blocked - healing
            if here not in through:  # (one search from the healing tiles, kept for the steps that follow)
                near = play.nearest(healing, through, here, self.graph)
                if near is not None:
                    self.target = near[1]
                    return "walk"
                return None
            dist = play.steps_to((here,), through, healing, first=True, graph=self.graph)
            if dist:
                self.target = min(dist, key=lambda p: (dist[p], p))
                return "walk"
        return None

    @staticmethod
    def _healing(ctx: Context, play: Play) -> frozenset[Pos]:
        """The laid tiles that heal at the end of a turn (depends on the laid tiles only: kept in the board's
        memo until a tile is laid). The set is kept all game (`Play.laid_memo`) and brought up to date from the
        tiles laid since (`Play.laid_since`), not from the whole board; from the whole board again when a tile
        was laid in another's stead. (A game's variants never change: one reader of the laid tiles for the key
        of each.)"""
        memo = play.board_memo()
        key = ("greedy healing", ctx.variants)
        found: frozenset[Pos] | None = memo.get(key)
        if found is None:
            kept = play.laid_memo()
            healing: set[Pos] | None = kept.get(key)
            board = play.board
            tiles = play.laid_since(_HEALING_READER)
            if healing is None or kept.get(_REPLACED) != play.tiles_replaced:  # (first, or a tile laid again)
                healing = kept[key] = set()
                kept[_REPLACED] = play.tiles_replaced
                tiles = list(board)
            for p in tiles:
                if _probe_heals(ctx.rules, board[p].tile, "turn_end", ctx.variants):
                    healing.add(p)
            found = memo[key] = frozenset(healing)
        return found

    def _explore_good(self, ctx: Context, me: Character, known: dict[str, float] | None = None) -> bool:
        """Whether a new room is worth the risk: the exact chance to beat the bag's median monster (by
        strength, counting every token; one enumeration per loadout instead of one per monster), weighed by
        how likely a room holds a monster at all. `known`: the win chances known for the hero's loadout as it
        is now (`_loadout_odds`), if the caller has them at hand."""
        play = ctx.play
        assert play is not None
        bag = play.zones.get("bag", [])
        count, median = self._bag_monsters(ctx, bag)
        if not count or me.lives <= self.LOW_LIVES:
            return me.lives > self.LOW_LIVES
        chance = known.get(median) if known is not None else None
        if chance is None:
            chance = win_chance(ctx.rules, me, median, ctx.variants)
        rooms_hold_monster = count / max(1, len(bag))
        return rooms_hold_monster * (1 - chance) < 1 - self.WIN_ENOUGH

    @staticmethod
    def _bag_monsters(ctx: Context, bag: list[str]) -> tuple[int, str]:
        """How many monsters the bag holds and the median one by strength (ties by id). The ruleset keeps the
        answer for the last bag asked about: a step asks several times, every bot of the table asks about the
        same bag between two draws, and the answer is a function of the bag and the ruleset alone."""
        rules = ctx.rules
        # (the last bag kept as a list: asked about far more often than it changes, and compared so without
        # making a tuple of it each time)
        last: tuple[list[str], tuple[int, str], list[int]] | None = rules._cache.get(_BAG)
        if last is not None and last[0] == bag:
            return last[1]
        # the monsters' places in the order (strength, id), sorted as integers (the same order as sorting
        # (strength, id) pairs, without a tuple per token)
        rank, by_rank = _monster_order(rules)
        places: list[int]
        if last is not None and len(bag) == len(last[0]) - 1 and last[0][:-1] == bag:
            # (one token drawn from the top of the last bag, as a draw does: its place taken out of the last
            # bag's sorted places, not the whole bag sorted again)
            places = list(last[2])
            gone = rank[last[0][-1]]
            if gone >= 0:
                places.remove(gone)
        else:
            places = []
            for t in bag:
                r = rank.get(t)
                if r is None:
                    rules.entity(t)  # (not an entity of the ruleset: raises, as `_strength` would)
                    continue
                if r >= 0:
                    places.append(r)
            places.sort()
        found = (len(places), by_rank[places[len(places) // 2]] if places else "")
        rules._cache[_BAG] = (list(bag), found, places)
        return found

    def _towards(self, ctx: Context, who: str, opts: list[Any]) -> int:
        play = ctx.play
        assert play is not None and self.target is not None
        best, best_d = None, 10**9
        me = ctx.characters[who]
        # passages join both ways: one search from the target, around the monsters the step avoided
        places: list[Pos | None] = []
        for label in opts:
            at = play.label_pos(label) if isinstance(label, str) else None  # (a label the board made: no parse)
            if at is not None:
                places.append(at)
                continue
            try:
                places.append(_pos(label))
            except (ValueError, IndexError):
                places.append(None)
        if self.target in places:  # the target is a step away: at distance 0 it is the nearest, no search
            return places.index(self.target)
        # the options on the board, but a monster the hero would not fight unless it is the target
        open_: list[tuple[int, Pos]] = []
        weak = self.weak_at
        for i, pos in enumerate(places):
            if pos is None:
                continue
            if weak is not None:
                if pos in weak and pos != self.target:
                    continue
                open_.append((i, pos))
                continue
            m = _monster(ctx, play, pos)
            if m is not None and pos != self.target and win_chance(ctx.rules, me, m, ctx.variants) < self.WIN_ENOUGH:
                continue
            open_.append((i, pos))
        guided = self._guided(play, open_)
        if guided is not None:
            return guided
        # (the search from the target kept with the board (`Play.nearest_search`, searched only as far as the
        # options): the walks that follow towards the same target, around the same tiles, answer from it too)
        target = self.target
        found = play.nearest_search(frozenset((target,)), frozenset(self.avoid) - {target}, self.graph)
        for i, pos in open_:
            d = play.nearest_at(found, pos)[0]
            if d < 0:
                d = 10**6
            if d < best_d:
                best, best_d = i, d
        return best if best is not None else below(self.rng, len(opts))

    def _guided(self, play: Play, open_: list[tuple[int, Pos]]) -> int | None:
        """`_towards`' answer among the options `open_` (index, position) from the step's guide (the search from
        the goals that chose the target), without a search from the target; None when the guide cannot tell (the
        caller then searches). Each option's steps to the nearest goal are at most its steps to the target, and
        equal to them when the target is its least nearest goal: so when the first option at the least steps has
        the target as its least goal, that option is the first at the least steps to the target (an option the
        guide did not reach, the target cannot)."""
        guide = self.guide
        if guide is None or play.board_memo() is not self.guide_memo:
            return None
        found: list[tuple[int, int, int]] = []  # (steps, least goal's rank, option) of the options the guide reached
        # An option next to the hero is at most one step farther from the goals than the hero's tile, and the one
        # on the way to the target one step nearer: options beyond the hero's own steps are not searched for
        # (the search would go on a whole level for them) unless no option is that near.
        # (plain loops: compiled, a loop over a tuple of limits or a `min` over a generator is a generic one)
        limit = self.guide_steps
        least = -1
        while True:
            for i, pos in open_:
                d, rank = play.nearest_at(guide, pos, limit)
                if d >= 0:
                    found.append((d, rank, i))
                    if least < 0 or d < least:
                        least = d
            if found or limit < 0:
                break
            limit = -1
        if not found:  # (no option reaches the target: the first one left, as the search's answer would be)
            return open_[0][0] if open_ else None
        for d, rank, i in found:
            if d == least:
                return i if rank == self.guide_rank else None
        return None

    def _use_which(self, ctx: Context, who: str, opts: list[Any]) -> int:
        me = ctx.characters.get(who)
        if me is not None and me.lives <= self.LOW_LIVES:
            for i, o in enumerate(opts):
                if _probe_heals(ctx.rules, str(o), "use", ctx.variants):
                    return i
        return below(self.rng, len(opts))

    def _spells(self, ctx: Context, who: str, point: str, opts: list[Any]) -> int:
        """How many of a spell to cast now: one when the odds without it are not good enough."""
        fight = ctx.fight
        me = ctx.characters.get(who)
        if fight is None or me is None or max(opts) < 1:
            return 0
        if fight.monster is None:  # a duel: the exact odds need the other side's choices; cast when armed less
            return 1 if self.rng.random() < 0.5 else 0
        if point.startswith("spell_after_roll"):
            side = next((s for s in fight.sides if s.who.id == who), None)
            target = getattr(fight, "target", None)
            if side is None or target is None:
                return 0
            weapons = sum(float(ctx.rules.entity(w).attr("attack", 0) or 0) for w in me.weapons)
            return 1 if sum(side.dice) + weapons + side.attack <= target else 0
        spell = point.split(":", 1)[1] if ":" in point else ""
        bare = me.copy()
        if spell in bare.spells:
            bare.spells = [s for s in bare.spells if s != spell]
        return 1 if win_chance(ctx.rules, bare, fight.monster.id, ctx.variants) < self.WIN_ENOUGH else 0


def fight_choice(ctx: Context, fight: Fight, who: str, point: str, opts: list[Any]) -> int | None:
    """The option the exact odds' policy (`odds.py`: the best chance to win, then the least cost, such as lives
    given) takes at the choice `point` of `who` in the monster fight in progress: the fight is enumerated again
    from its start (`Fight.start`), the answers given so far replayed (`Fight.journal`), and each option weighed
    to the fight's end. As for `win_chance`, the exact odds leave out the board and the situation's facts (where
    the fight is, whether the room was just entered) and weigh the fighter at full lives. Only for the choices
    of effects (`owner#n`: an ability's re-roll or sacrifice), not the procedure's or a verb's own (which item
    to take, where to retreat: the board decides them). None when the replay does not reach this very choice (a
    shuffle, effects of the board, or a choice offered only at the lives left): the caller then decides as
    before.

    The answers are kept per ruleset by fight start (the fighter, the monster and the variants) and path (the
    answers so far): a fight started alike and played alike is not enumerated again."""
    start, journal, monster = fight.start, fight.journal, fight.monster
    if start is None or journal is None or monster is None or start.id != who or "#" not in point \
            or _SHUFFLED in journal:
        return None
    key = (monster.id, ctx.variants, _state(ctx.rules, start), tuple(start.spells))
    kept: dict[Any, _FightChoices] = ctx.rules.memo(_FIGHT_CHOICES, dict)
    found = kept.get(key)
    if found is None:
        if len(kept) >= _FIGHT_STARTS_KEPT:  # (a cache: its answers are the same found again)
            kept.clear()
        probe = start.copy()
        probe.lives = probe.max_lives  # (as `win_chance`: lives change often and rarely the choice)
        probe.unconscious = False
        found = kept[key] = _FightChoices(ctx.rules, probe, monster.id, ctx.variants, key)
    return found.answer(who, point, tuple(journal), opts)


_POINTS: Final[dict[str, tuple[str, int]]] = {}  # `GreedyBot.decide`: point -> its name and the place of its `#`
_MAY_TAKE = ".may.take_item"  # a procedure's `may take_item` (the catalogue's verb): its point's ending
# the catalogue's verbs `_effect_choice` reads in an option (a test checks they are the catalogue's)
_PREVENT = "prevent"
_TELEPORT = "teleport"
_FIGHT_MONSTER = "fight_monster"
_STEPS = "steps"
_NO_EXPLORE = "no_explore"
_EXPLORE = "explore"
_OPEN_CHEST = "open_chest"
_TAKE_ITEM = "take_item"
_SWAP_PLACES = "swap_places"
JUDGED_VERBS = (_PREVENT, _TELEPORT, _FIGHT_MONSTER, _STEPS, _NO_EXPLORE, _EXPLORE, _OPEN_CHEST, _TAKE_ITEM,
                _SWAP_PLACES)


def _other_hero(ctx: Context, who: str, opts: list[Any], *, richest: bool) -> int | None:
    """Of heroes offered (a curse to pass on, a hero to challenge), another than `who`: the one holding the
    most worth (`richest`: the leader, to curse) or the least (the weakest, to challenge); None when an option
    is no hero or only `who` is offered."""
    held: list[tuple[float, int]] = []
    for i, o in enumerate(opts):
        other = ctx.characters.get(str(o))
        if other is None:
            return None
        if other.id != who:
            total = sum(worth(ctx.rules, item) for item in other.held())
            held.append((-total if richest else total, i))
    return min(held)[1] if held else None


_FIGHT_CHOICES = ("greedy fight choices",)  # ruleset memo: fight start -> `_FightChoices`
# Fight starts kept at most (16,000 after 10,000 four-player games, about 20 MB with their answers): a worker
# that plays on for hours stays within a bounded size
_FIGHT_STARTS_KEPT = 40_000


class _FightChoices:
    """One fight start (the fighter at full lives, the monster, the variants) and the answer found at each path
    (the answers so far)."""

    __slots__ = ("rules", "probe", "monster", "variants", "key", "answers")

    def __init__(self, rules: Ruleset, probe: Character, monster: str, variants: frozenset[str],
                 key: tuple[Any, ...]) -> None:
        self.rules, self.probe, self.monster, self.variants = rules, probe, monster, variants
        self.key = key  # (`fight_choice`'s key of the start: `choice_key` digests it)
        self.answers: dict[tuple[Any, ...], int | None] = {}

    def answer(self, who: str, point: str, prefix: tuple[Any, ...], opts: list[Any]) -> int | None:
        try:
            return self.answers[prefix]
        except KeyError:
            pass
        from .win_odds import best_choice

        rules = self.rules
        stored: dict[str, int | None] | Callable[[], dict[str, int | None]] | None = rules._cache.get(
            _STORED_CHOICES)
        whole = ""
        if stored is not None:
            if not isinstance(stored, dict):  # (read at the first miss of a process)
                stored = rules._cache[_STORED_CHOICES] = stored()
            whole = choice_key(self.key, prefix, point, opts)
            if whole in stored:
                found = self.answers[prefix] = stored[whole]
                return found
        found = self.answers[prefix] = best_choice(rules, self.probe, self.monster, self.variants, list(prefix),
                                                   who, point_id(who, point), opts)
        if stored is not None:
            fresh: dict[str, int | None] = rules.memo(_FRESH_CHOICES, dict)
            fresh[whole] = found
        return found


def _register() -> None:
    from .bots import register_bot
    from .engine import direct_bot

    register_bot("greedy")(GreedyBot)
    direct_bot(GreedyBot, GreedyBot.decide)


_register()
