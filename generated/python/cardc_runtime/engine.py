"""Playing a whole game from its procedures: `setup` once, then `turn` for each player in turn order until an
`end when` condition holds (or the game's own `end_game`), then `winner by`. It knows no game.

Every decision goes through one interface, `Bot.choose(view, options) -> index`: a seeded random bot, a
person at the terminal, a script; dice come from the same seeded generator, so a seed replays a game.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any, Final, NamedTuple, Protocol

from .context import Character, Context, TurnCap
from .errors import SetupError
from .fight import make_hero, slot_limits
from .inputs import Choice, Inputs, below, point_id, shuffle_in_place, uniform
from .model import Ruleset
from .play_verbs import _takeable
from .state import Placed, Play, Pos
from .table_verbs import _team_win, _teams


class View(NamedTuple):
    """What a bot may look at when it decides: who decides, the choice point, and the table (read only).
    (A named tuple: one is made for every decision, and a tuple is the cheapest to make.)"""

    chooser: str
    point: str
    ctx: Context


class Bot(Protocol):
    def choose(self, view: View, options: Sequence[Any]) -> int:
        """The index of the option taken (options are the legal ones only)."""


class RandomBot:
    """Takes a random legal option, from its own seeded generator."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: View, options: Sequence[Any]) -> int:
        return below(self.rng, len(options))


_tuple_new: Final = tuple.__new__  # makes a View (a named tuple) without its Python-level __new__
_MONSTERS: Final = ("sensible monsters",)  # `Play.token_memo` entry: board position -> strength of its monster


# Answers kept per process, by a plain dict (compiled, an `lru_cache` call costs about ten times a dict look-up):
# emptied when full, as an `lru_cache(maxsize=4096)` would forget its oldest; the answers never change.
_MEMO_SIZE: Final = 4096
_LABEL_POS: Final[dict[str, Pos]] = {}
_POINT_KINDS: Final[dict[str, tuple[str, str]]] = {}
_NAME_KINDS: Final[dict[str, tuple[str, str]]] = {}  # the same answers by the point's name alone (see `_name_kind`)


def _label_pos(label: str) -> Pos:
    """The board position in a `<tile>@x,y` option label (labels repeat: parsed once)."""
    pos = _LABEL_POS.get(label)
    if pos is None:
        if len(_LABEL_POS) >= _MEMO_SIZE:
            _LABEL_POS.clear()
        x, y = (int(v) for v in label.rsplit("@", 1)[1].split(","))
        pos = _LABEL_POS[label] = (x, y)
    return pos


class _Worth:
    """What the sensible bot knows for a hero holding some items: `_worth`'s answers by the items lying on a
    tile, and `_wanted`'s tiles with when they were found (`Play.item_moves`; -1: not yet)."""

    __slots__ = ("answers", "moves", "tiles")

    def __init__(self) -> None:
        self.answers: dict[Any, bool] = {}
        self.moves = -1
        self.tiles: list[Pos] = []


def _items_key(items: list[str]) -> Any:
    """What lies on a tile, as the key of the sensible bot's memo of its worth: the item itself when it is
    alone (the usual case: a string, hashed once and found by identity), else the tuple of them (no tuple is
    ever equal to a string, so the two kinds of key never meet)."""
    return items[0] if len(items) == 1 else tuple(items)


def _holding(me: Character) -> tuple[Any, ...]:
    return (me.id, tuple(me.weapons), tuple(me.spells), tuple(me.keys), tuple(me.treasures), tuple(me.items))


def _slot(ctx: Context, item: str) -> str:
    """The item's `slot` attribute ("" without one), looked up once per ruleset."""
    known: dict[str, str] = ctx.rules.table("bot slot")
    found = known.get(item)
    if found is not None:
        return found
    slot = known[item] = str(ctx.rules.entity(item).attr("slot", ""))
    return slot


# Option names (of a content's `choose`) that a purposeful player usually takes when they are offered, and how
# often: going on rather than back, fighting for the goal, learning when it can, now and then using a card it
# owns. Names, not games.
_PURPOSE: Final = (("use_card", 0.1), ("final_battle", 0.9), ("forward", 0.85), ("enter", 0.85), ("learn", 0.5),
            ("train", 0.6), ("attack", 0.35), ("use_it", 0.7))


_Offered = tuple[bool, tuple[tuple[str, float], ...], bool]
_OFFERED: Final[dict[Any, _Offered]] = {}  # options -> what `purposeful` looks for among them


def _offered(opts: Sequence[Any]) -> _Offered:
    """Whether `instead` is offered, the entries of `_PURPOSE` offered (in order) and whether `use_card` is:
    worked out once per set of options (the same few come back all game)."""
    key = opts if type(opts) is tuple else tuple(opts)
    try:
        found = _OFFERED.get(key)
    except TypeError:  # an option that cannot be a key
        return _new_offered(opts)
    if found is None:
        if len(_OFFERED) >= _MEMO_SIZE:
            _OFFERED.clear()
        found = _OFFERED[key] = _new_offered(opts)
    return found


def _new_offered(opts: Sequence[Any]) -> _Offered:
    return "instead" in opts, tuple([(w, p) for w, p in _PURPOSE if w in opts]), "use_card" in opts


def purposeful(rng: random.Random, ctx: Context, who: str, opts: Sequence[Any]) -> int | None:
    """The index of a named option that makes progress (see `_PURPOSE`), if one is taken this time. A card
    used `instead` of moving is taken mostly when the character has lost lives or spent stones (healing,
    magic), rarely otherwise."""
    instead, present, use_card = _offered(opts)
    if instead:
        me = ctx.characters.get(who)
        hurt = me is not None and (me.lives < me.max_lives or any(me.spent.values()))
        if uniform(rng) < (0.6 if hurt else 0.05):
            return opts.index("instead")
    for want, p in present:  # (the entries of _PURPOSE offered, in order: a draw for each, as before)
        if uniform(rng) < p:
            return opts.index(want)
    if use_card and len(opts) > 1 and uniform(rng) < 0.9:  # not as the default pick: a card used
        others = [i for i, o in enumerate(opts) if o != "use_card"]  # every turn would stall the game
        return others[below(rng, len(others))]  # (= rng.randrange(len(others)))
    return None


def going_on(rng: random.Random, ctx: Context, point: str, opts: Sequence[Any]) -> int:
    """A random option of the choice `point` (without its chooser), leaving out, at an effect's choice, the
    options that end the turn while another is offered (`Ruleset.option_verbs`: what each option does is on the
    card): a bot that cannot judge a choice does not give up a whole turn for it. One draw, as a plain random
    pick makes."""
    verbs = ctx.rules.option_verbs(point) if "#" in point else None
    if verbs is not None:
        kept = [i for i, o in enumerate(opts) if _END_TURN not in verbs.get(str(o), ())]
        if kept and len(kept) < len(opts):
            return kept[below(rng, len(kept))]
    return below(rng, len(opts))


_END_TURN: Final = "end_turn"  # the catalogue's verb that ends the turn

_STEP: Final = "step"
_MAY: Final = "may"
_WALK_TO: Final = "walk_to"
_SWAP_FOR: Final = "swap_for"
_TAKE_WHICH: Final = "take_which"
_TAKE_REWARD: Final = "take_reward"
_TRADE: Final = "trade"
_OTHER: Final = "other"


def _point_kind(point: str) -> tuple[str, str]:
    """A choice point without its chooser (`<hero>:walk_to` -> `walk_to`) and which of the sensible bot's
    rules answers it (points repeat all game: worked out once)."""
    known = _POINT_KINDS.get(point)
    if known is None:
        if len(_POINT_KINDS) >= _MEMO_SIZE:
            _POINT_KINDS.clear()
        known = _POINT_KINDS[point] = _new_point_kind(point)
    return known


def _name_kind(name: str) -> tuple[str, str]:
    """`_point_kind(f"{who}:{name}")` for any `who` without a colon: by the point's name alone."""
    known = _NAME_KINDS.get(name)
    if known is None:
        if len(_NAME_KINDS) >= _MEMO_SIZE:
            _NAME_KINDS.clear()
        known = _NAME_KINDS[name] = _new_point_kind(":" + name)
    return known


def _new_point_kind(point: str) -> tuple[str, str]:
    name = point.split(":", 1)[-1]
    if name.startswith("step"):
        return name, _STEP
    if ".may." in name:
        return name, _MAY
    if name.startswith("swap_for:"):
        return name, _SWAP_FOR
    kinds = {"walk_to": _WALK_TO, "take_which": _TAKE_WHICH, "take_reward": _TAKE_REWARD, "trade": _TRADE}
    return name, kinds.get(name, _OTHER)


class SensibleBot(RandomBot):
    """A bot that plays with purpose, knowing no game: it explores and walks towards the nearest monster it
    expects to beat (by the `strength` and `attack` attributes), takes items that add attack, and otherwise
    chooses at random (but for an option that ends the turn: `going_on`). `cardc play` and the balance tables
    use it unless told otherwise."""

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self._worth_seen: dict[Any, Any] = {}

    def choose(self, view: View, options: Sequence[Any]) -> int:
        return self.decide(view.chooser, view.point, view.ctx, options)

    def decide(self, chooser: str, point_id: str, ctx: Context, options: Sequence[Any]) -> int:
        """`choose`, from the view's parts."""
        point, kind = _point_kind(point_id)
        return self._decide(chooser, point, kind, ctx, options)

    def decide_at(self, chooser: str, name: str, ctx: Context, options: Sequence[Any]) -> int:
        """`decide(chooser, f"{chooser}:{name}", ctx, options)`, for a chooser whose id has no colon (`BotInputs`
        asks a `SensibleBot` so, without making a view or the point's id)."""
        point, kind = _name_kind(name)
        return self._decide(chooser, point, kind, ctx, options)

    def _decide(self, chooser: str, point: str, kind: str, ctx: Context, options: Sequence[Any]) -> int:
        opts = options  # (read only: indexed and searched, never changed)
        if kind is _STEP:
            # the first place of each name offered, found in one pass (compiled, each `in` and `index` on the
            # options walked them with generic comparisons); only `pick_up` may be left out of `opts_left`
            pick = use = explore = walk = -1
            i = 0
            for o in opts:
                if isinstance(o, str):
                    if o == "pick_up":
                        if pick < 0:
                            pick = i
                    elif o == "use_item":
                        if use < 0:
                            use = i
                    elif o == "explore":
                        if explore < 0:
                            explore = i
                    elif o == "walk" and walk < 0:
                        walk = i
                i += 1
            opts_left: Sequence[Any]
            if pick >= 0 and not self._worth_taking(ctx, chooser):
                opts_left = [o for o in opts if o != "pick_up"]
                pick = -1
            else:
                opts_left = opts
            # (in order, a draw for each option offered; written out: compiled, no tuples walked)
            rng = self.rng
            if pick >= 0 and uniform(rng) < 0.9:
                return pick
            if use >= 0 and uniform(rng) < 0.15:
                return use
            if explore >= 0 and uniform(rng) < 0.75:
                return explore
            if walk >= 0 and uniform(rng) < 0.95:
                return walk
            return opts.index(opts_left[below(rng, len(opts_left))])  # (= rng.choice(opts_left))
        if kind is _MAY:
            return opts.index(True) if True in opts and uniform(self.rng) < 0.8 else 0
        if kind is _WALK_TO and ctx.play is not None:
            return self._towards(ctx, chooser, opts)
        if kind is _SWAP_FOR:
            new = point.split(":", 1)[1]
            worth = [self._attack(ctx, o) for o in opts[1:]]
            low = min(range(len(worth)), key=lambda i: worth[i])
            return low + 1 if self._attack(ctx, new) > worth[low] else 0
        if kind is _TAKE_WHICH:
            return max(range(len(opts)), key=lambda i: self._attack(ctx, str(opts[i])))
        if kind is _TAKE_REWARD:
            return opts.index(True) if True in opts else 0
        if kind is _TRADE and "none" in opts and uniform(self.rng) < 0.75:  # a gift to a partner now and then
            return opts.index("none")
        wanted = purposeful(self.rng, ctx, chooser, opts)  # a named option that makes progress
        return going_on(self.rng, ctx, point, opts) if wanted is None else wanted

    def _worth_taking(self, ctx: Context, who: str) -> bool:
        play = ctx.play
        placed = play.here(who) if play is not None else None
        return placed is not None and self._worth(ctx, ctx.characters[who], placed)

    def _worth(self, ctx: Context, me: Character, placed: Any, holds: tuple[Any, ...] | None = None) -> bool:
        """An item lies there that fills a free slot or beats the weakest item of its full slot. Remembered
        per game by what the hero holds and what lies there (all the answer depends on)."""
        known = self._worth_for(ctx, holds or _holding(me)).answers
        items = _items_key(placed.items)
        try:
            return bool(known[items])
        except KeyError:
            pass
        found = known[items] = self._worth_now(ctx, me, placed)
        return found

    def _worth_for(self, ctx: Context, holds: tuple[Any, ...]) -> _Worth:
        """What is known for a hero holding `holds` (`_holding`); per game. (By what is held first: the nested
        tuple is hashed once per question, not once per tile.)"""
        seen = self._worth_seen
        if seen.get("_table") is not ctx:  # a new game (or another table): start afresh
            seen.clear()
            seen["_table"] = ctx
        known: _Worth | None = seen.get(holds)
        if known is None:
            known = seen[holds] = _Worth()
        return known

    def _worth_now(self, ctx: Context, me: Character, placed: Any) -> bool:
        limits = slot_limits(ctx.rules, ctx.variants)
        for item in _takeable(ctx, me, placed):
            slot = _slot(ctx, item)
            held = [h for h in me.held() if _slot(ctx, h) == slot]
            if slot not in limits or len(held) < limits[slot]:
                return True
            if self._attack(ctx, item) > min(self._attack(ctx, h) for h in held):
                return True
        return False

    @staticmethod
    def _attack(ctx: Context, item: str) -> float:
        known: dict[str, float] = ctx.rules.table("bot attack")
        found = known.get(item)
        if found is not None:
            return found
        e = ctx.rules.get(item)
        value = 0.0 if e is None else float(e.attr("attack", 0) or 0) + float(e.attr("value", 0) or 0) * 2
        known[item] = value
        return value

    def _towards(self, ctx: Context, who: str, labels: Sequence[Any]) -> int:
        """The neighbour on a shortest path to the nearest monster the hero expects to beat (or, with none,
        to the frontier where new tiles are found)."""
        play = ctx.play
        assert play is not None
        me = ctx.characters[who]
        weapons = me.weapons
        attack: Any = 0  # (summed as `sum` does, from 0 in order: any float the same; an Any, as compiled
        for w in weapons:  # code would make a declared float of 7 + 0)
            attack = attack + self._attack(ctx, w)
        power = 7 + attack + (1 if me.spells else 0)
        tiles = play.board.values()
        memo = play.token_memo()  # (where the monsters are changes only when a tile is laid or a token moves)
        monsters: dict[Pos, int] | None = memo.get(_MONSTERS)
        if monsters is None:
            strength = self._strengths(ctx)
            monsters = memo[_MONSTERS] = {}
            for t in tiles:  # monsters by tile (the last token counts)
                if t.tokens:
                    for tok in t.tokens:
                        if tok in strength:
                            monsters[t.pos] = strength[tok]
        beatable: frozenset[Pos] | None = memo.get((_MONSTERS, power))
        if beatable is None:
            beatable = memo[_MONSTERS, power] = frozenset(p for p, s in monsters.items() if s < power + 3)
        # the goals: read-only sets shared with the memos, copied only when a tile with items or the
        # hero's own tile changes them
        goals: AbstractSet[Pos] = beatable
        if not goals:  # nothing to fight yet: the frontier, where new tiles (and items) are found
            goals = play.open_edges() if play.zones.get("stack") else goals
        if not goals and monsters:
            weakest = min(monsters.values())
            goals = {p for p, s in monsters.items() if s == weakest}
        here = play.position.get(who)
        # a goal besides the hero's own tile: the goals are not empty whatever lies on the tiles, so the draw
        # comes first, and a random step looks at no items (the same draws and answers as drawing after)
        drawn = len(goals) > 1 or (len(goals) == 1 and here not in goals)
        if drawn and uniform(self.rng) < 0.2:
            return below(self.rng, len(labels))
        wanted = self._wanted(ctx, me, play)
        if wanted or here in goals:
            goals = {*goals, *wanted}
            goals.discard(here)
        if not drawn and (not goals or uniform(self.rng) < 0.2):
            return below(self.rng, len(labels))
        targets: list[Pos] = []
        for label in labels:  # (the labels the board made: their positions are known)
            text = str(label)
            at = play.label_pos(text)
            targets.append(at if at is not None else _label_pos(text))
        for i, pos in enumerate(targets):  # a goal a step away is at distance 0: the nearest, no search
            if pos in goals:
                return i
        dist = play.steps_to(goals, (), targets)  # (only as far as the neighbours)
        best, best_d = 0, 10**6
        for i, pos in enumerate(targets):
            d = dist.get(pos, 10**6)
            if d < best_d:
                best, best_d = i, d
        return best

    def _wanted(self, ctx: Context, me: Character, play: Play) -> list[Pos]:
        """The tiles with an item worth taking for `me` (`_worth`), kept with what the hero holds until an item is
        put on a tile or taken off one (`Play.item_moves`): the same tiles `_wanted_now`
        finds (in another order, which no caller depends on: the positions are made a set)."""
        known = self._worth_for(ctx, _holding(me))  # (what `_worth` answers, without a call per tile)
        places = play.item_places()  # (first: a tile laid with items counts as items moved)
        moves = play.item_moves
        if known.moves != moves:
            known.tiles, known.moves = self._wanted_now(ctx, me, places, known.answers), moves
        return known.tiles

    def _wanted_now(self, ctx: Context, me: Character, places: Iterable[Placed],
                    known: dict[Any, bool]) -> list[Pos]:
        """`_wanted` from scratch, over `places` (every tile that may hold an item)."""
        wanted: list[Pos] = []
        # (a plain loop: compiled, a native attribute read per tile, in CPython a specialised one; both cheaper
        # than `filter(attrgetter("items"), ...)`, which reads the attribute generically)
        for t in places:
            if t.items:
                items = _items_key(t.items)
                worth = known.get(items)
                if worth is None:
                    worth = known[items] = self._worth_now(ctx, me, t)
                if worth:
                    wanted.append(t.pos)
        return wanted

    def _strengths(self, ctx: Context) -> dict[str, int]:
        def compute() -> dict[str, int]:
            return {e.id: int(s) for e in ctx.rules.entities.values() if isinstance(s := e.attr("strength"), int)}
        return ctx.rules.memo("bot strengths", compute)  # type: ignore[no-any-return]


# Bots asked without a view (`direct_bot`): exact class -> decide(bot, chooser, point without its chooser, table,
# options) -> the index taken
_DIRECT: Final[dict[type, Callable[[Any, str, str, Context, Sequence[Any]], int]]] = {}


def direct_bot(cls: type, decide: Callable[[Any, str, str, Context, Sequence[Any]], int]) -> None:
    """Let `BotInputs` ask the bots of exactly `cls` (not its subclasses, which may choose otherwise) by
    `decide(bot, chooser, point, table, options)`, `point` without its chooser, where it would make a view for
    `choose`: the same answer as `choose` gives, without the view and the point's id (a built-in bot defined
    outside this module, such as `greedy`)."""
    _DIRECT[cls] = decide


_GAME_OVER = RandomBot()  # the bot of inputs whose game is over (see the end of `play_game`)


class BotInputs(Inputs):
    """Dice from a seeded generator; every choice asked of the bot of the player who decides. While a fight is
    in progress every answer is noted in `journal` too (see `Inputs.journal`)."""

    def __init__(self, seed: int, bots: dict[str, Bot], default: Bot, ctx_ref: list[Context]) -> None:
        self.direct = True  # (`Context` asks by `pick`)
        self.rng = random.Random(seed)
        self.bots = bots
        self.default = default
        self.ctx_ref = ctx_ref
        self.decisions = 0
        self.journal = None

    def roll(self, sides: int) -> int:
        face = 1 + below(self.rng, sides) if sides > 0 else self.rng.randint(1, sides)  # (= randint(1, sides))
        journal = self.journal
        if journal is not None:
            journal.append(face)
        return face

    def roll_dice(self, count: int, sides: int) -> tuple[int, ...]:
        if sides <= 0:
            faces = tuple(self.rng.randint(1, sides) for _ in range(count))
        else:
            rng = self.rng  # (= randint(1, sides), see inputs.below)
            faces = tuple([1 + below(rng, sides) for _ in range(count)])
        journal = self.journal
        if journal is not None and count > 0:  # (as `Replay` takes them: one die alone, several as sorted faces)
            journal.append(faces[0] if count == 1 else tuple(sorted(faces)))
        return faces

    def shuffle(self, items: Sequence[Any]) -> list[Any]:
        out = list(items)
        shuffle_in_place(self.rng, out)
        journal = self.journal
        if journal is not None:  # (not dice `Replay` could replay: the fight's journal no longer replays)
            journal.append(_SHUFFLED)
        return out

    def choose(self, choice: Choice) -> Any:
        return self.pick(choice.chooser, choice.point, choice.options)

    def pick(self, chooser: str, point: str, options: tuple[Any, ...]) -> Any:
        return self._noted(self._pick(chooser, point, options))

    def _noted(self, answer: Any) -> Any:
        """`answer`, noted in the journal of the fight in progress, if any."""
        journal = self.journal
        if journal is not None:
            journal.append(answer)
        return answer

    def _pick(self, chooser: str, point: str, options: tuple[Any, ...]) -> Any:
        if len(options) == 1:
            return options[0]
        self.decisions += 1
        bot = self.bots.get(chooser, self.default)
        # (the built-in bots by their exact class: compiled, a direct call, and no view made for them)
        if type(bot) is RandomBot:
            index = below(bot.rng, len(options))
        elif type(bot) is SensibleBot:
            index = bot.decide(chooser, point, self.ctx_ref[0], options)
        else:
            index = bot.choose(_tuple_new(View, (chooser, point, self.ctx_ref[0])), options)
        if not 0 <= index < len(options):
            raise ValueError(f"bot chose option {index} of {len(options)} at {point}")
        return options[index]

    def pick_at(self, chooser: str, name: str, options: tuple[Any, ...]) -> Any:
        """`pick(chooser, point_id(chooser, name), options)`; the built-in bots are asked without the point's id
        (the random bot does not read it; the sensible bot reads its name), other bots through `pick`."""
        return self._noted(self._pick_at(chooser, name, options))

    def _pick_at(self, chooser: str, name: str, options: tuple[Any, ...]) -> Any:
        if len(options) == 1:
            return options[0]
        bot = self.bots.get(chooser, self.default)
        if type(bot) is RandomBot:
            self.decisions += 1
            return options[below(bot.rng, len(options))]
        if type(bot) is SensibleBot and ":" not in chooser:
            self.decisions += 1
            index = bot.decide_at(chooser, name, self.ctx_ref[0], options)
            if not 0 <= index < len(options):
                raise ValueError(f"bot chose option {index} of {len(options)} at {point_id(chooser, name)}")
            return options[index]
        if ":" not in chooser:
            decide = _DIRECT.get(type(bot))
            if decide is not None:
                self.decisions += 1
                index = decide(bot, chooser, name, self.ctx_ref[0], options)
                if not 0 <= index < len(options):
                    raise ValueError(f"bot chose option {index} of {len(options)} at {point_id(chooser, name)}")
                return options[index]
        return self._pick(chooser, point_id(chooser, name), options)


_SHUFFLED: Final = ("a shuffle",)  # a journal entry no replay takes


@dataclass
class GameResult:
    """How a game went: who won and why, how long it took, and what happened to each hero."""

    winners: list[str]
    reason: str
    turns: int
    capped: bool
    heroes: list[str]
    lives_lost: dict[str, dict[str, int]] = field(default_factory=dict)  # hero -> cause -> lives
    deaths: dict[str, int] = field(default_factory=dict)  # hero -> times knocked out (0 lives)
    deaths_by: dict[str, dict[str, int]] = field(default_factory=dict)  # hero -> cause -> times
    picked_up: dict[str, dict[str, int]] = field(default_factory=dict)  # hero -> item -> count
    used: dict[str, dict[str, int]] = field(default_factory=dict)  # hero -> item -> count
    scores: dict[str, float] = field(default_factory=dict)
    fights: int = 0
    decisions: int = 0
    log: list[tuple[Any, ...]] = field(default_factory=list)
    message: str = ""
    provisional: list[str] = field(default_factory=list)  # every provisional value the game rested on
    teams: list[list[str]] = field(default_factory=list)  # the players of each team (none: no teams formed)

    def as_json(self) -> dict[str, Any]:
        # (the fields in order, as `__dict__` holds them; a compiled runtime's instances have no `__dict__`)
        fields = {k: getattr(self, k) for k in self.__dataclass_fields__}
        return {k: v for k, v in fields.items() if k != "log" and (k != "teams" or v)}  # teams: if any


def new_game(rules: Ruleset, heroes: Sequence[str], variants: Sequence[str] = (), inputs: Inputs | None = None,
             facts: dict[str, Any] | None = None) -> Context:
    """A table ready to play (the procedure `setup` not yet run): one character per hero, seats in order. A
    seat that names no hero of the content is a player whose character its set-up deals (e.g. a draft)."""
    chars = {h: make_hero(rules, h) if _is_hero(rules, h) else Character(h) for h in heroes}
    ctx = Context(rules, inputs or Inputs(), frozenset(variants), {"players": len(heroes), **(facts or {})}, chars)
    ctx.play = Play(order=list(heroes), current=heroes[0])
    return ctx


def _is_hero(rules: Ruleset, ident: str) -> bool:
    entity = rules.get(ident)
    return entity is not None and entity.is_a("hero")


def play_turn(ctx: Context, who: str) -> None:
    """One turn of `who`: the procedure `turn`, with the turn's own state reset first."""
    play = ctx.play
    assert play is not None
    play.current = who
    play.turns += 1
    play.steps_left = play.steps_taken = 0
    play.turn_over = False
    ctx.turn = play.turns
    ctx.loops.clear()
    facts = ctx.facts  # (`in` and `del`, not `pop(key, None)`: compiled, `pop` with a default is a call by name)
    if "turn_flags" in facts:
        del facts["turn_flags"]
    if "first_entry" in facts:
        del facts["first_entry"]
    ctx.log.append(("table", "turn", play.turns, who))
    me = ctx.characters[who]
    saved_actor, saved_side = ctx.actor, ctx.side  # (two locals: no tuple made)
    ctx.actor, ctx.side = me, None
    try:
        ctx.run_procedure("turn")
    finally:
        ctx.actor, ctx.side = saved_actor, saved_side
    for c in ctx.characters.values():  # a character with lives is conscious again
        if c.unconscious and c.lives > 0:
            c.unconscious = False


def ended(ctx: Context) -> bool:
    play = ctx.play
    assert play is not None
    if play.game_over:
        return True
    return any(rule.run(ctx) for rule in ctx.rules.end_rules)


def play_game(rules: Ruleset, heroes: Sequence[str], *, variants: Sequence[str] = (), seed: int = 0,
              bots: dict[str, Bot] | None = None, default_bot: Bot | None = None, turn_cap: int = 400,
              keep_log: bool = False, on_turn: Callable[[Context, str], None] | None = None) -> GameResult:
    """Play one game with bots: `heroes` in seat order, `turn_cap` turns at most (all players counted)."""
    ref: list[Context] = []
    inputs = BotInputs(seed, bots or {}, default_bot or SensibleBot(seed), ref)
    ctx = new_game(rules, heroes, variants, inputs)
    ref.append(ctx)
    play = ctx.play
    assert play is not None
    capped = False
    message = ""
    try:
        try:
            ctx.run_procedure("setup")
        except RuntimeError as e:
            if isinstance(e, TurnCap):
                raise
            raise SetupError(f"the set-up of {rules.game} failed for {len(heroes)} players: {e}") from None
        order = play.order
        index = order.index(play.current)
        while not ended(ctx):
            if play.turns >= turn_cap:
                capped = True
                message = (f"stopped after {turn_cap} turns: the game did not end (no `end when` condition "
                           "held and nothing ended it); check that the content can end, e.g. that the dragon "
                           "is in play")
                break
            who = order[index]
            play_turn(ctx, who)
            if on_turn is not None:
                on_turn(ctx, who)
            index = (index + 1) % len(order)
    except TurnCap as cap:
        capped, message = True, f"stopped: {cap}"
    if not capped:
        play.game_over = True
        ctx.actor = None
        ctx.fire("game_end", None)
        if rules.winner is not None:
            rules.winner.run(ctx)
        _team_win(ctx)
    scores = {h: float(sum(float(rules.entity(t).attr("value", 0) or 0) for t in ctx.characters[h].treasures))
              for h in heroes}
    reason = play.winner_reason if not capped else message
    if play.end_reason and not capped:
        reason = f"the game ended ({play.end_reason.replace(':', ' by ')}); {reason}"
    result = GameResult(
        winners=list(play.winners) if not capped else [],
        reason=reason,
        turns=play.turns,
        capped=capped,
        heroes=list(heroes),
        lives_lost={h: dict(c) for h, c in play.lives_lost.items()},
        deaths=dict(play.deaths),
        deaths_by={h: dict(c) for h, c in play.deaths_by.items()},
        picked_up={h: dict(c) for h, c in play.picked_up.items()},
        used={h: dict(c) for h, c in play.used.items()},
        scores=scores,
        fights=len(ctx.fights),
        decisions=inputs.decisions,
        log=ctx.log if keep_log else [],
        message=message,
        provisional=sorted(ctx.provisional),
        teams=_team_lists(ctx),
    )
    # The table refers to its inputs, which refer to the table (and to the bots, which may remember it): a
    # cycle that only the cyclic collector would free, with the whole game in it. Broken here, the game's
    # objects go as soon as the caller drops them.
    ref.clear()
    inputs.bots = {}
    inputs.default = _GAME_OVER
    return result


def _team_lists(ctx: Context) -> list[list[str]]:
    teams = _teams(ctx)
    play = ctx.play
    assert play is not None
    return [[p for p in play.order if teams.get(p) == t] for t in sorted(set(teams.values()))]


def place_counts(ctx: Context) -> Counter[str]:
    """Where every tile and token is, counted by id (the invariant: the same totals all game long)."""
    play = ctx.play
    assert play is not None
    out: Counter[str] = Counter()
    for placed in play.board.values():
        out[placed.tile] += 1
        out.update(placed.tokens)
        out.update(placed.defeated)
    out.update(play.zones.get("stack", []))
    out.update(play.zones.get("bag", []))
    return out


def holders(ctx: Context, item: str) -> int:
    """How many copies of an item are held by characters, lie on tiles or were discarded."""
    play = ctx.play
    assert play is not None
    held = sum(c.held().count(item) for c in ctx.characters.values())
    lying = sum(p.items.count(item) + p.staked.count(item) for p in play.board.values())
    return held + lying


__all__ = ["Bot", "BotInputs", "Character", "GameResult", "RandomBot", "SensibleBot", "SetupError", "View",
           "new_game", "play_game", "play_turn"]
