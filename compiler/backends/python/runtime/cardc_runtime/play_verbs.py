"""The verbs a game's procedures play with: the fight's steps, the board, the bag, steps and turns.

Each is the runtime function of the catalogue verb of the same name (re-exported by `verbs.py`). Outside a
game in play (`ctx.play is None`: a lone fight for the odds) the verbs that need a table only log what
they would do, exactly as before, so the exact odds do not depend on the table.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Final

from . import fight as fights
from .context import Character, Context, Side, actor_of
from .state import SHAPES, SIDES, Placed, Play, Pos, opposite, step, turned

Range = tuple[int, int]


def _side(ctx: Context) -> Side:
    if ctx.side is None:
        raise RuntimeError(f"{ctx.owner or 'a procedure'}: this needs a fight in progress")
    return ctx.side


def _in(value: int, r: Range | int) -> bool:
    lo, hi = (r, r) if isinstance(r, int) else r
    return lo <= value <= hi


# ---- the steps of a fight (procedures `fight` and `attack_roll`) ------------------------------------


def choose_spells(ctx: Context, when: str = "before_roll") -> None:
    fights.offer_spells(ctx, _side(ctx), after=when == "after_roll")


def roll_attack(ctx: Context) -> None:
    fights.roll_attack(ctx, _side(ctx))


def count_attack(ctx: Context) -> None:
    fights.count_attack(ctx, _side(ctx))


def compare_totals(ctx: Context) -> None:
    if ctx.fight is None:
        raise RuntimeError("compare_totals needs a fight in progress")
    fights.compare_totals(ctx, ctx.fight)


def settle_fight(ctx: Context) -> None:
    side = _side(ctx)
    if ctx.play is not None and side.outcome == "loss" and ctx.fight is not None and ctx.fight.monster is not None:
        _stake(ctx, side)
    fights.settle(ctx, side)


def rolled(ctx: Context) -> bool:
    return _side(ctx).total is not None


def must_retreat(ctx: Context) -> bool:
    return fights.must_retreat(_side(ctx))


def prevented(ctx: Context) -> bool:
    return ctx.prevented


def retreat(ctx: Context) -> None:
    """Back to the tile the hero came from (or, where an effect says so, a revealed neighbour it picks)."""
    side = ctx.side
    where = (side.retreat_to if side is not None else None) or "came_from"
    who = actor_of(ctx)
    ctx.log.append((who.id, "retreat", where))
    play = ctx.play
    if play is None:
        return
    pos = play.position.get(who.id)
    target = play.came_from.get(who.id)
    if where != "came_from" or target is None or target == pos:
        options = tuple(sorted(p for p in _neighbours(play, pos, walls=True) if p != pos)) if pos else ()
        if options:
            target = options[0] if len(options) == 1 else ctx.ask("retreat_to", options, who.id)
    if target is not None and target in play.board:
        _move(ctx, who, target)


def defeat_monster(ctx: Context) -> None:
    """The monster fought is turned over: its reward (and anything staked under it) lies on the tile."""
    fight = ctx.fight
    who = actor_of(ctx)
    if fight is None or fight.monster is None:
        return
    reward = fight.monster.attr("reward")
    ctx.log.append((who.id, "reward", reward))
    play = ctx.play
    if play is None:
        return
    placed = play.here(who.id)
    if placed is None or fight.monster.id not in placed.tokens:
        return
    placed.tokens.remove(fight.monster.id)
    play.tokens_moved(placed)
    placed.defeated.append(fight.monster.id)
    if reward:
        play.put_item(placed, str(reward))
    for item in list(placed.staked):  # whoever defeats the monster takes what was staked under it
        placed.staked.remove(item)
        if not _give(ctx, who, item, placed):
            play.put_item(placed, item)


def _stake(ctx: Context, side: Side) -> None:
    """Remember the tile of the monster fought, for stake_treasure (before the hero retreats)."""
    ctx.facts["fought_at"] = ctx.play.position.get(side.who.id) if ctx.play else None


# ---- set-up ---------------------------------------------------------------------------------------


def _play(ctx: Context) -> Play:
    if ctx.play is None:
        raise RuntimeError("this verb needs a game in play (cardc play / engine.play_game)")
    return ctx.play


def _exits(ctx: Context, tile: str) -> frozenset[int]:
    shape = ctx.rules.entity(tile).attr("shape")
    if shape not in SHAPES:
        raise RuntimeError(f"tile {tile} has no known shape ({shape!r}); give it one of {', '.join(SHAPES)}")
    return SHAPES[shape]


def place_start(ctx: Context) -> None:
    play = _play(ctx)
    start = [e for e in ctx.rules.entities.values() if e.attr("start") is True and e.attr("shape")]
    if not start:
        raise RuntimeError("no tile is marked `start: true`")
    tile = sorted(start, key=lambda e: e.id)[0].id
    origin: Pos = (0, 0)  # (one tuple: the board's key and the tile's `pos`)
    if origin in play.board:  # laid again: what the characters remember standing on is forgotten
        for c in ctx.characters.values():
            c.on_tile = None
    play.replace_tile(Placed(tile, origin, _exits(ctx, tile), entered=True, order=0))
    play.revealed[ctx.rules.entity(tile).kind] += 1
    ctx.record("place_start", tile)


def stack_tiles(ctx: Context) -> None:
    """Every tile but the start tile, in its copies, shuffled face down."""
    play = _play(ctx)
    stack = [e.id for e in sorted(ctx.rules.entities.values(), key=lambda e: e.id)
             if e.attr("shape") is not None and not e.attr("start") for _ in range(_copies(ctx, e.id))]
    play.zones["stack"] = ctx.inputs.shuffle(stack)
    ctx.record("stack_tiles", len(stack))


def _copies(ctx: Context, ident: str) -> int:
    e = ctx.rules.entity(ident)
    if e.variant is not None and e.variant not in ctx.variants:
        return 0
    return int(e.copies or 0)


def fill_bag(ctx: Context, kinds: tuple[str, ...] = ()) -> None:
    play = _play(ctx)
    bag = [e.id for e in sorted(ctx.rules.entities.values(), key=lambda e: e.id)
           if any(e.is_a(k) for k in kinds) for _ in range(_copies(ctx, e.id))]
    play.zones["bag"] = ctx.inputs.shuffle(bag)
    ctx.record("fill_bag", len(bag))


def place_players(ctx: Context) -> None:
    play = _play(ctx)
    start = next(pos for pos, p in play.board.items() if p.order == 0)
    for who in play.order:
        play.position[who] = start
    ctx.record("place_players", tuple(play.order))


def pick_first_player(ctx: Context) -> None:
    """Everyone rolls a die; the highest begins (the tied highest roll again)."""
    play = _play(ctx)
    pool = list(play.order)
    while len(pool) > 1:
        rolls = {who: ctx.inputs.roll(6) for who in pool}
        ctx.log.append(("table", "first_roll", tuple(sorted(rolls.items()))))
        top = max(rolls.values())
        pool = [w for w in pool if rolls[w] == top]
    play.current = pool[0]
    ctx.log.append(("table", "first_player", pool[0]))


# ---- the turn -----------------------------------------------------------------------------------


def steps(ctx: Context, count: int) -> None:
    if ctx.play is None:
        ctx.setup["steps"] = count
        return
    ctx.play.steps_left = count


def steps_left(ctx: Context) -> bool:
    return ctx.play is not None and ctx.play.steps_left > 0


def turn_over(ctx: Context) -> bool:
    return ctx.play is not None and ctx.play.turn_over


def game_over(ctx: Context) -> bool:
    return ctx.play is not None and ctx.play.game_over


def end_turn(ctx: Context) -> None:
    actor = ctx.actor
    ctx.log.append((actor.id if actor else "table", "end_turn"))  # (= ctx.record("end_turn"), no tuples joined)
    if ctx.play is not None and ctx.actor is not None and ctx.actor.id == ctx.play.current:
        ctx.play.turn_over = True


def continue_turn(ctx: Context) -> None:
    ctx.record("continue_turn")
    if ctx.play is not None and ctx.actor is not None and ctx.actor.id == ctx.play.current:
        ctx.play.turn_over = False


def spend_steps(ctx: Context, count: int) -> None:
    ctx.record("spend_steps", count)
    if ctx.play is not None:
        spent = min(count, ctx.play.steps_left)
        ctx.play.steps_left -= spent
        ctx.play.steps_taken += spent


def steps_taken(ctx: Context, range: Range) -> bool:  # noqa: A002 - the catalogue's parameter name
    if ctx.play is None:
        return bool(ctx.facts.get("steps_taken", False))
    return _in(ctx.play.steps_taken, range)


def last_step(ctx: Context) -> bool:
    if ctx.play is None:
        return bool(ctx.facts.get("last_step", False))
    return ctx.play.steps_left == 0


def first_step(ctx: Context) -> bool:
    if ctx.play is None:
        return bool(ctx.fact("first_step", False))
    return ctx.actor is not None and ctx.actor.id == ctx.play.current and ctx.play.steps_taken == 1


def first_entry(ctx: Context) -> bool:
    if ctx.play is None:
        return bool(ctx.fact("first_entry", True))
    return bool(ctx.facts.get("first_entry", False))


def end_game(ctx: Context) -> None:
    ctx.record("end_game")
    if ctx.play is not None:
        ctx.play.game_over = True
        ctx.play.end_reason = f"{ctx.who()}:{ctx.owner or 'procedure'}"


def declare_winner(ctx: Context, ties: str = "shared") -> None:
    """The highest total `value` of the items held wins; with `shared` every tied player wins."""
    play = _play(ctx)
    scores = {who: _score(ctx, ctx.characters[who]) for who in play.order}
    top = max(scores.values())
    play.winners = [w for w in play.order if scores[w] == top]
    if ties != "shared" and len(play.winners) > 1:
        play.winners = play.winners[:1]
    play.winner_reason = "score " + ", ".join(f"{w} {scores[w]:g}" for w in sorted(scores, key=lambda w: -scores[w]))
    ctx.log.append(("table", "winner", tuple(play.winners), tuple(sorted(scores.items()))))


def _score(ctx: Context, who: Character) -> float:
    return float(sum(float(ctx.rules.entity(i).attr("value", 0) or 0) for i in who.treasures))


# ---- moving -------------------------------------------------------------------------------------


def _flags(ctx: Context) -> dict[str, Any]:
    return ctx.facts.setdefault("turn_flags", {})  # type: ignore[no-any-return]


def _flag(ctx: Context, name: str) -> bool:
    """A flag of this turn, read without making the flags (most turns set none)."""
    flags: dict[str, Any] | None = ctx.facts.get("turn_flags")
    return flags is not None and bool(flags.get(name))


def walk_through_walls(ctx: Context) -> None:
    if ctx.actor is not None:
        _flags(ctx)[f"walls:{ctx.actor.id}"] = True


def no_explore(ctx: Context) -> None:
    if ctx.actor is not None:
        _flags(ctx)[f"no_explore:{ctx.actor.id}"] = True


def portal_link(ctx: Context) -> None:
    """A modifier of a tile: read by probing the tile's `always` effects (see `_tile_has`)."""
    ctx.setup["portal_link"] = 1


def _tile_has(ctx: Context, tile: str, modifier: str) -> bool:
    """Whether the tile's own `always` effects set `modifier` (e.g. portal_link). Remembered per ruleset by the
    variants, the modifier and the tile (nested dicts: compiled, a tuple key is made and hashed at each ask)."""
    by_variants: dict[frozenset[str], dict[str, dict[str, bool]]] = ctx.rules.table("tile has")
    by_modifier = by_variants.get(ctx.variants)
    if by_modifier is None:
        by_modifier = by_variants[ctx.variants] = {}
    known = by_modifier.get(modifier)
    if known is None:
        known = by_modifier[modifier] = {}
    found = known.get(tile)
    if found is None:
        found = known[tile] = _probe_tile(ctx, tile, modifier)
    return found


def _probe_tile(ctx: Context, tile: str, modifier: str) -> bool:
    test = Context(ctx.rules, ctx.inputs, ctx.variants)
    for fx in ctx.rules.effects_of([tile], "always", ctx.variants):
        test.run(fx)
    return modifier in test.setup


def _neighbours(play: Play, pos: Pos | None, *, walls: bool = False, ctx: Context | None = None) -> list[Pos]:
    """Revealed tiles one step away: through a passage, through a wall (walls=True) or by portal."""
    if pos is None or pos not in play.board:
        return []
    if walls:
        out = [there for side in range(4) if (there := step(pos, side)) in play.board]
    else:
        out = list(play.passages()[pos])
    if ctx is not None and _tile_has(ctx, play.board[pos].tile, "portal_link"):
        out += [p for p in _portals(ctx, play) if p != pos]
    return out


def _portals(ctx: Context, play: Play) -> list[Pos]:
    """The laid tiles linked by portals, in board order: kept all game, the tiles laid since the last call
    looked at (a board only grows, in order; a laid tile never changes). The caller must not change the list."""
    kept = play.laid_memo()
    found: list[Pos] | None = kept.get("portals")
    if found is None:
        found = kept["portals"] = []
    board = play.board
    for p in play.laid_since("portals"):
        if _tile_has(ctx, board[p].tile, "portal_link"):
            found.append(p)
    return found


def _reachable(ctx: Context, who: Character) -> tuple[Pos, ...]:
    """The tiles `who` may step to, in board order (remembered until a tile is laid)."""
    return _steps(ctx, who)[0]


def _steps(ctx: Context, who: Character) -> tuple[tuple[Pos, ...], tuple[str, ...]]:
    """The tiles `who` may step to, in board order, and their option labels (remembered: they depend on
    where `who` stands, the tiles next to it, whether walls stop it, and on a portal on every portal laid)."""
    play = _play(ctx)
    pos = play.position.get(who.id)
    flags: dict[str, Any] | None = ctx.facts.get("turn_flags")  # (most turns set none: no name made)
    walls = flags is not None and bool(flags.get(f"walls:{who.id}"))
    if pos is None:
        return (), ()
    # kept until a tile is laid next to `pos`; a portal's (it leads to every portal laid) until any tile is laid
    near = play.near_memo(pos)
    known = near.get(walls)  # (not try/except: a miss raised costs more)
    if known is not None:
        return known  # type: ignore[no-any-return]
    memo = play.board_memo()
    key = ("reachable", pos, walls)
    known = memo.get(key)
    if known is not None:
        return known  # type: ignore[no-any-return]
    options = tuple(sorted(set(_neighbours(play, pos, walls=walls, ctx=ctx))))
    found = (options, tuple(_label(play, p) for p in options))
    placed = play.board.get(pos)
    if placed is not None and _tile_has(ctx, placed.tile, "portal_link"):
        memo[key] = found
    else:
        near[walls] = found
    return found


def _open_sides(ctx: Context, who: Character) -> list[int]:
    """The sides of `who`'s tile that open towards a square with no tile yet (callers must not change the
    list)."""
    play = _play(ctx)
    pos = play.position.get(who.id)
    return play.open_sides(pos) if pos is not None else []


def can_walk(ctx: Context) -> bool:
    play = ctx.play
    if play is None:
        return False
    who = ctx.actor or actor_of(ctx)  # (asked every step: the call only when there is no actor, to raise)
    if play.passages().get(play.position.get(who.id)):  # type: ignore[arg-type]
        return True  # a passage leads on (through walls or by portal as well): no need to list the tiles
    return bool(_reachable(ctx, who))


def can_explore(ctx: Context) -> bool:
    play = ctx.play
    if play is None or not play.zones.get("stack"):
        return False
    who = ctx.actor or actor_of(ctx)
    flags: dict[str, Any] | None = ctx.facts.get("turn_flags")  # (most turns set none: no name made)
    return not (flags is not None and flags.get(f"no_explore:{who.id}")) and bool(_open_sides(ctx, who))


def _move(ctx: Context, who: Character, to: Pos, *, came_from: bool = True) -> None:
    play = _play(ctx)
    here = play.position.get(who.id)
    if came_from and here is not None:
        play.came_from[who.id] = here
    placed = play.board[to]
    play.position[who.id] = placed.pos  # (the board's own key: the same tuple as `to`, found at once)
    ctx.facts["first_entry"] = not placed.entered
    placed.entered = True
    placed.face_down = False


def _index(options: tuple[str, ...], got: Any) -> int:
    """`options.index(str(got))`, by a loop (compiled, `index` on a tuple is a method call by name)."""
    text = got if isinstance(got, str) else str(got)
    i = 0
    for o in options:
        if o is text or o == text:
            return i
        i += 1
    raise ValueError(f"{text!r} is not one of the options")


def _label(play: Play, pos: Pos) -> str:
    return play.label(pos)


def walk(ctx: Context) -> None:
    who = actor_of(ctx)
    play = _play(ctx)
    options, labels = _steps(ctx, who)
    if not options:
        return
    chosen = options[_index(labels, ctx.ask("walk_to", labels, who.id))] if len(labels) > 1 else options[0]
    _move(ctx, who, chosen)
    play.steps_left -= 1
    play.steps_taken += 1
    ctx.log.append((who.id, "walk", play.board[chosen].tile, chosen))


def explore(ctx: Context, enter: bool = True) -> None:
    """Draw the top tile, lay it beyond an open side of the hero's tile, turned so that it connects."""
    who = actor_of(ctx)
    play = ctx.play
    if play is None:
        ctx.record("explore", enter)
        return
    sides = _open_sides(ctx, who)
    if not sides or not play.zones.get("stack"):
        return
    names = tuple(SIDES[s] for s in sides)
    side = sides[_index(names, ctx.ask("explore_side", names, who.id))] if len(names) > 1 else sides[0]
    here = play.position[who.id]
    pos = step(here, side)
    tile = play.zones["stack"].pop()
    fits, labels = _turnings(_exits(ctx, tile), side)
    pick = _index(labels, ctx.ask("explore_turn", labels, who.id)) if len(labels) > 1 else 0
    placed = Placed(tile, pos, fits[pick], order=len(play.board))
    play.board[pos] = placed
    play.last_revealed = placed
    kind = ctx.rules.entity(tile).kind
    play.revealed[kind] += 1
    play.steps_left -= 1
    play.steps_taken += 1
    ctx.log.append((who.id, "explore", tile, pos, labels[pick]))
    if enter:
        _move(ctx, who, pos)
    else:  # revealed from next door: the tile's reveal happens there, the hero stays
        ctx.facts["revealing"] = True
        try:
            ctx.run_procedure("reveal")
        finally:
            ctx.facts.pop("revealing", None)


@lru_cache(maxsize=256)
def _turnings(shape: frozenset[int], side: int) -> tuple[tuple[frozenset[int], ...], tuple[str, ...]]:
    """The distinct ways a tile of these exits can be turned to open towards `side` (the side it is laid
    beyond, seen from the new tile: its opposite), and their option labels. A few shapes: worked out once."""
    fits = tuple(dict.fromkeys(ex for ex in (turned(shape, r) for r in range(4)) if opposite(side) in ex))
    return fits, tuple("-".join(SIDES[s] for s in sorted(ex)) for ex in fits)


def revealed(ctx: Context, kind: str) -> bool:
    play = ctx.play
    if play is None or play.last_revealed is None:
        return False
    entity = ctx.rules.entity(play.last_revealed.tile)
    if not entity.is_a(kind):
        return False
    ctx.event_values["count"] = play.revealed[entity.kind]
    return True


def _focus(ctx: Context) -> Placed | None:
    """The tile a verb is about: the one being revealed from next door, else the one the hero stands on."""
    if ctx.play is None:
        return None
    if ctx.facts.get("revealing"):
        return ctx.play.last_revealed
    return actor_of(ctx).standing_on(ctx.play)


def tile_attr(ctx: Context, name: str) -> bool:
    placed = _focus(ctx)
    return placed is not None and not placed.corridor and ctx.rules.entity(placed.tile).attr(name) is True


def token_here(ctx: Context) -> bool:
    placed = _focus(ctx)
    return placed is not None and bool(placed.tokens or placed.defeated)


_FOUGHT: Final = ("has strength",)  # the ruleset's memo: token -> whether it is fought (has a strength)


def _monster_token(ctx: Context, placed: Placed | None) -> str | None:
    if placed is None or not placed.tokens:
        return None
    try:
        known: dict[str, bool] = ctx.rules._cache[_FOUGHT]
    except KeyError:
        known = ctx.rules.memo(_FOUGHT, dict)
    for t in placed.tokens:
        fought = known.get(t)
        if fought is None:
            fought = known[t] = ctx.rules.entity(t).attr("strength") is not None
        if fought:
            return t
    return None


def monster_here(ctx: Context) -> bool:
    play = ctx.play
    if play is None:
        return False
    placed = (ctx.actor or actor_of(ctx)).standing_on(play)
    return placed is not None and bool(placed.tokens) and _monster_token(ctx, placed) is not None


def other_hero_here(ctx: Context) -> bool:
    play = ctx.play
    if play is None:
        return False
    who = (ctx.actor or actor_of(ctx)).id
    position = play.position
    pos = position.get(who)
    if pos is not None:  # (= bool(play.others_at(who)): the heroes placed, walked once, not looked up one by one)
        for c, there in position.items():
            if (there is pos or there == pos) and c != who and c in play.order:
                return True
        return False
    for c in play.order:
        if c != who and position.get(c) is None:
            return True
    return False


def items_here(ctx: Context) -> bool:
    """Items lie here that the hero could take (not only copies of what fills a full slot)."""
    play = ctx.play
    if play is None:
        return False
    who = ctx.actor or actor_of(ctx)
    placed = who.standing_on(play)  # (= play.here(who.id))
    return placed is not None and bool(placed.items) and bool(_takeable(ctx, who, placed))


def _takeable(ctx: Context, who: Character, placed: Placed) -> list[str]:
    if not placed.items:
        return []
    limits = fights.slot_limits(ctx.rules, ctx.variants)
    out = []
    items = placed.items
    for item in sorted(set(items)) if len(items) > 1 else items:  # (one item: no set made and sorted)
        slot = _slot_of(ctx, item)
        held = _list(who, slot)
        if slot not in limits or len(held) < limits[slot] or any(h != item for h in held):  # (= set(held) - {item})
            out.append(item)
    return out


def draw_tokens(ctx: Context, count: int = 1, keep: int = 1) -> None:
    """Draw tokens from the bag onto the hero's tile, keeping `keep` of them; the rest go back."""
    play = ctx.play
    if play is None:
        ctx.record("draw_tokens", count, keep)
        return
    who = actor_of(ctx)
    bag = play.zones.setdefault("bag", [])
    drawn = [bag.pop() for _ in range(min(count, len(bag)))]
    kept = list(drawn)
    while len(kept) > keep:
        back = str(ctx.ask("return_token", tuple(sorted(set(kept))), who.id))
        kept.remove(back)
        bag.insert(ctx.inputs.roll(len(bag) + 1) - 1, back)
    placed = _focus(ctx)
    if placed is not None:
        placed.tokens.extend(kept)
        play.tokens_moved(placed)
    ctx.log.append((who.id, "draw_token", tuple(kept)))


def teleport(ctx: Context, to: str = "fountain", who: str = "self", pick: str = "any") -> None:
    """Move a hero without steps to a revealed tile: one with the feature `to` (any attribute with that value)
    or, for monster_tile, one where an undefeated monster stands."""
    ctx.record("teleport", to, who, pick)
    play = ctx.play
    if play is None:
        return
    me = actor_of(ctx)
    mover = me
    if who != "self":
        others = tuple(sorted(ctx.characters))
        mover = ctx.characters[str(ctx.ask("teleport_who", others, me.id))]
    if to == "monster_tile":
        targets = [p for p, t in play.board.items() if _monster_token(ctx, t) is not None]
    else:
        targets = [p for p, t in play.board.items() if not t.corridor and to in _values(ctx, t.tile)]
    if not targets:
        return
    if pick == "nearest":
        dist = _distances(ctx, play, play.position[mover.id])
        best = min(dist.get(p, 10**6) for p in targets)
        targets = [p for p in targets if dist.get(p, 10**6) == best]
    targets.sort()
    labels = tuple(_label(play, p) for p in targets)
    chosen = targets[_index(labels, ctx.ask("teleport_to", labels, me.id))] if len(labels) > 1 else targets[0]
    _move(ctx, mover, chosen, came_from=False)
    play.came_from.pop(mover.id, None)
    ctx.actor = mover


def _values(ctx: Context, tile: str) -> set[Any]:
    """The tile's attribute values that are words (remembered per ruleset; callers only read the set)."""
    known: dict[str, set[Any]] = ctx.rules.table("word values")
    found = known.get(tile)
    if found is None:
        found = known[tile] = {v for k in ctx.rules.entity(tile).attrs for v in [ctx.rules.entity(tile).attr(k)]
                               if isinstance(v, str)}
    return found


def _distances(ctx: Context, play: Play, start: Pos) -> dict[Pos, int]:
    dist = {start: 0}
    frontier = [start]
    while frontier:
        nxt = []
        for p in frontier:
            for q in _neighbours(play, p, ctx=ctx):
                if q not in dist:
                    dist[q] = dist[p] + 1
                    nxt.append(q)
        frontier = nxt
    return dist


def move(ctx: Context, steps: int) -> None:
    """Up to `steps` steps over revealed tiles, besides the turn's own: after each the hero may stop."""
    ctx.record("move", steps)
    play = ctx.play
    if play is None:
        return
    who = actor_of(ctx)
    for _ in range(steps):
        options = _reachable(ctx, who)
        if not options:
            break
        labels = ("stop", *(_label(play, p) for p in options))
        chosen = str(ctx.ask("move_to", labels, who.id))
        if chosen == "stop":
            break
        to = options[labels.index(chosen) - 1]
        _move(ctx, who, to)
        ctx.log.append((who.id, "walk", play.board[to].tile, to))


def flee(ctx: Context, steps: int = 5) -> None:
    """Move exactly `steps` tiles without visiting a tile twice (as far as the board allows)."""
    count = steps
    ctx.record("flee", count)
    play = ctx.play
    if play is None:
        return
    who = actor_of(ctx)
    seen = {play.position[who.id]}
    for _ in range(count):
        options = [p for p in _neighbours(play, play.position[who.id], ctx=ctx) if p not in seen]
        if not options:
            break
        options.sort()
        labels = tuple(_label(play, p) for p in options)
        chosen = options[_index(labels, ctx.ask("flee_to", labels, who.id))] if len(labels) > 1 else options[0]
        _move(ctx, who, chosen)
        seen.add(chosen)


def swap_places(ctx: Context) -> None:
    ctx.record("swap_places")
    play = ctx.play
    if play is None:
        return
    me = actor_of(ctx)
    others = tuple(w for w in play.order if w != me.id)
    if not others:
        return
    other = str(ctx.ask("swap_with", others, me.id))
    play.position[me.id], play.position[other] = play.position[other], play.position[me.id]
    play.came_from.pop(me.id, None)


def becomes_corridor(ctx: Context) -> None:
    ctx.record("becomes_corridor")
    placed = ctx.play.here(actor_of(ctx).id) if ctx.play is not None else None
    if placed is not None:
        placed.corridor = True


def face_down_until_entered(ctx: Context) -> None:
    ctx.record("face_down_until_entered")
    placed = ctx.play.last_revealed if ctx.play is not None else None
    if placed is not None and not placed.entered:
        placed.face_down = True


# ---- fights started by the table ------------------------------------------------------------------


def fight_monster(ctx: Context) -> None:
    """Fight the undefeated monster on the hero's tile (through the procedure `fight`)."""
    play = ctx.play
    if play is None:
        ctx.record("fight_monster")
        return
    who = actor_of(ctx)
    monster = _monster_token(ctx, who.standing_on(play))
    if monster is None:
        return
    saved = ctx.facts.get("fight_by")
    ctx.facts["fight_by"] = ctx.owner or None
    ctx.facts["fought_at"] = play.position.get(who.id)
    try:
        fights.monster_fight(ctx, who, monster)  # (the report is not read: none made, no sort of its notes)
    finally:
        ctx.facts["fight_by"] = saved


def challenge(ctx: Context, who: str = "chosen") -> None:
    """Fight another hero: `other` - one standing on this tile; `chosen` - any other conscious hero, who is
    moved here first."""
    ctx.record("challenge", who)
    play = ctx.play
    if play is None:
        return
    me = actor_of(ctx)
    here = play.others_at(me.id)
    pool = [w for w in (here if who == "other" else play.order)
            if w != me.id and not ctx.characters[w].unconscious]
    if not pool:
        return
    other = str(ctx.ask("challenge_whom", tuple(pool), me.id)) if len(pool) > 1 else pool[0]
    if play.position.get(other) != play.position.get(me.id):
        _move(ctx, ctx.characters[other], play.position[me.id], came_from=False)
    saved = {k: ctx.facts.get(k) for k in ("fight_by", "place")}
    source = ctx.owner or "procedure"
    ctx.facts["fight_by"] = source
    entity = ctx.rules.get(source)
    if entity is not None and entity.attr("shape") is not None:
        ctx.facts["place"] = source
    ctx.log.append((me.id, "duel", other, source))
    try:
        fights.duel(ctx, me, ctx.characters[other])
    finally:
        for k, v in saved.items():
            if v is None:
                ctx.facts.pop(k, None)
            else:
                ctx.facts[k] = v


def on_turn(ctx: Context) -> bool:
    """The hero is the one whose turn it is (in play the table knows; alone, the fact `active` says)."""
    if ctx.play is not None:
        return ctx.actor is not None and ctx.actor.id == ctx.play.current
    active = ctx.facts.get("active")
    if active is None:
        ctx.provisional.add("assumed no hero is on turn (fact `active` not given)")
    return active == actor_of(ctx).id


def heal_full(ctx: Context) -> None:
    """Back to the most lives; in play the heal event fires (a full heal lifts the curse, Berserk picks)."""
    who = actor_of(ctx)
    before = who.lives
    who.lives = who.max_lives
    who.unconscious = False
    ctx.record("heal_full")
    if ctx.play is not None:
        ctx.facts["healed_from"] = before
        try:
            ctx.fire("heal", who)
        finally:
            ctx.facts.pop("healed_from", None)


def heal_choose(ctx: Context) -> None:
    """The healed hero picks how many lives it ends with (from what it had before the heal)."""
    who = actor_of(ctx)
    low = int(ctx.facts.get("healed_from", who.lives))
    options = tuple(range(who.max_lives, min(low, who.max_lives) - 1, -1))
    who.lives = int(ctx.ask("heal_to", options))
    ctx.record("heal_to", who.lives)


# ---- items ----------------------------------------------------------------------------------------


def _slot_of(ctx: Context, item: str) -> str:
    """The item's `slot` attribute ("item" without one), looked up once per ruleset."""
    known: dict[str, str] = ctx.rules.table("slot of")
    slot = known.get(item)
    if slot is None:
        slot = known[item] = str(ctx.rules.entity(item).attr("slot", "item"))
    return slot


_LISTS: Final = {"weapon": "weapons", "spell": "spells", "key": "keys", "treasure": "treasures"}


def _list(who: Character, slot: str) -> list[str]:
    """The character's list for the slot (as `_LISTS` names them; compiled, an attribute read by name is generic)."""
    if slot == "weapon":
        return who.weapons
    if slot == "spell":
        return who.spells
    if slot == "key":
        return who.keys
    if slot == "treasure":
        return who.treasures
    return who.items


def _lay(ctx: Context, placed: Placed, item: str) -> None:
    """Leave an item on a tile (through `Play.put_item` in a game, which keeps count of items moved)."""
    if ctx.play is not None:
        ctx.play.put_item(placed, item)
    else:
        placed.items.append(item)


def _give(ctx: Context, who: Character, item: str, placed: Placed | None) -> bool:
    """Put the item into its slot; with the slot full the player may drop one held there (left on the
    tile) or give the new one up. Returns whether it was taken."""
    slot = _slot_of(ctx, item)
    limit = fights.slot_limits(ctx.rules, ctx.variants).get(slot)
    held = _list(who, slot)
    if limit is not None and len(held) >= limit:
        options = ("keep", *sorted(set(held) - {item}))
        if len(options) == 1:
            return False
        drop = str(ctx.ask(f"swap_for:{item}", options, who.id))
        if drop == "keep":
            return False
        held.remove(drop)
        if placed is not None:
            _lay(ctx, placed, drop)
        ctx.log.append((who.id, "drop_item", drop, "here"))
    held.append(item)
    if ctx.play is not None:
        ctx.play.count("picked_up", who.id, item)
    ctx.log.append((who.id, "take_item", item))
    return True


def take_item(ctx: Context, from_: str = "tile", chosen_by: str = "self", refused: str = "stays") -> None:
    """Take one item: lying on the tile, the reward just won, or the beaten opponent's."""
    play = ctx.play
    if play is None:
        ctx.record("take_item", from_, chosen_by, refused)
        return
    who = actor_of(ctx)
    placed = play.here(who.id)
    if from_ in ("tile", "reward"):
        if placed is None or not placed.items:
            return
        pool = _takeable(ctx, who, placed)
        if not pool:
            return
        if from_ == "reward" and ctx.fight is not None and ctx.fight.monster is not None:
            reward = ctx.fight.monster.attr("reward")
            pool = [str(reward)] if reward in placed.items else pool
        item = pool[0] if len(pool) == 1 else str(ctx.ask("take_which", tuple(pool), who.id))
        play.take_item(placed, item)
        if not _give(ctx, who, item, placed):
            play.put_item(placed, item)
        return
    other_side = ctx.fight.other(ctx.side) if ctx.fight is not None and ctx.side is not None else None
    if other_side is None:
        return
    loser = other_side.who
    items = sorted(set(loser.held()))
    if not items:
        return
    picker = who.id if chosen_by == "self" else loser.id
    item = items[0] if len(items) == 1 else str(ctx.ask("give_which", tuple(items), picker))
    _list(loser, _slot_of(ctx, item)).remove(item)
    if not _give(ctx, who, item, placed) and placed is not None:
        play.put_item(placed, item)


def drop_item(ctx: Context, where: str = "here") -> None:
    """Leave an item on a tile (`came_from`: the tile the hero attacked from): the item running this effect,
    or one the hero picks."""
    who = actor_of(ctx)
    item = ctx.owner if ctx.owner in who.held() else (
        str(ctx.ask("drop_item", tuple(sorted(set(who.held()))))) if who.held() else None)
    if item is not None:
        _list(who, _slot_of(ctx, item)).remove(item)
        if ctx.play is not None:
            pos = ctx.play.came_from.get(who.id) if where == "came_from" else ctx.play.position.get(who.id)
            target = ctx.play.board.get(pos) if pos is not None else None
            if target is not None:
                ctx.play.put_item(target, item)
            else:
                ctx.play.zones.setdefault("removed", []).append(item)
    ctx.record("drop_item", item, where)


def stake_treasure(ctx: Context) -> None:
    """One of the hero's treasures goes under the monster fought; its slayer takes it too."""
    ctx.record("stake_treasure")
    play = ctx.play
    who = actor_of(ctx)
    if play is None or not who.treasures:
        return
    item = who.treasures[0] if len(set(who.treasures)) == 1 else str(
        ctx.ask("stake_which", tuple(sorted(set(who.treasures))), who.id))
    who.treasures.remove(item)
    pos = ctx.facts.get("fought_at")
    target = play.board.get(pos) if pos is not None else None
    if target is not None:
        target.staked.append(item)
    else:
        play.zones.setdefault("removed", []).append(item)


def open_chest(ctx: Context, ends_turn: bool = False) -> None:
    """Spend a key to turn the chest over: its contents lie on the tile."""
    ctx.record("open_chest", ends_turn)
    play = ctx.play
    if play is None:
        return
    who = actor_of(ctx)
    placed = play.here(who.id)
    chest = ctx.owner
    if placed is None or chest not in placed.tokens:
        return
    key = ctx.rules.entity(chest).attr("opens_with")
    if key in who.held():
        _list(who, _slot_of(ctx, str(key))).remove(str(key))
        play.zones.setdefault("discard", []).append(str(key))
    placed.tokens.remove(chest)
    play.tokens_moved(placed)
    placed.defeated.append(chest)
    contents = ctx.rules.entity(chest).attr("contents")
    if contents:
        play.put_item(placed, str(contents))
    if ends_turn:
        end_turn(ctx)


def took_reward(ctx: Context) -> bool:
    """In play the hero decides now whether it will take the reward it won; alone, an explicit input."""
    if ctx.play is None or ctx.fight is None or ctx.fight.monster is None:
        return bool(ctx.facts.get("took_reward", True))
    who = actor_of(ctx)
    return bool(ctx.ask("take_reward", (True, False), who.id))


def armed(ctx: Context, who: str = "self") -> bool:
    """Carrying a weapon: the hero (self), the other side or another hero on its tile (other), or both."""
    me = actor_of(ctx)
    mine = bool(me.weapons)
    if ctx.fight is not None and ctx.side is not None:
        other_side = ctx.fight.other(ctx.side)
        theirs = other_side is not None and bool(other_side.who.weapons)
    elif ctx.play is not None:
        theirs = any(ctx.characters[o].weapons for o in ctx.play.others_at(me.id))
    else:
        other = ctx.facts.get("other")
        theirs = bool(ctx.characters[str(other)].weapons) if other in ctx.characters else False
    return {"self": mine, "other": theirs, "both": mine and theirs}.get(who, mine)


def can_use_item(ctx: Context) -> bool:
    if ctx.play is None:
        return False
    who = ctx.actor or actor_of(ctx)
    if not (who.weapons or who.spells or who.keys or who.treasures or who.items):
        return False
    usable: frozenset[str] | None = ctx.rules.table(_USABLE).get(ctx.variants)  # (no key tuple made per ask)
    if usable is None:
        usable = _usable_set(ctx)
    return who.has_any(usable, cards=False)


_USABLE: Final = "items usable in own turn"  # the ruleset's memo, by variants: the items `_usable_items` says yes to


def _usable_set(ctx: Context) -> frozenset[str]:
    """Every item `_usable_items` says yes to (the entities with a `use` effect, tested once per ruleset and
    variants): `can_use_item`, asked every step, is then one test in C."""
    usable = _usable_items(ctx)
    owners = {fx.owner for fx in ctx.rules.by_trigger().get("use", ())}
    found = frozenset(o for o in sorted(owners) if o in ctx.rules.entities and usable(o))
    table = ctx.rules.table(_USABLE)
    if ctx.variants not in table:
        table[ctx.variants] = found
    return table[ctx.variants]  # type: ignore[no-any-return]


def _usable_items(ctx: Context) -> Any:
    """Whether an item can be used in its holder's own turn, as a function remembered per ruleset and
    variants (an attribute and the item's `use` effects: nothing of the game state)."""
    variants = ctx.variants
    try:
        return ctx.rules._cache[("usable in own turn", variants)]
    except KeyError:
        pass
    rules = ctx.rules
    known: dict[str, bool] = {}

    def usable(item: str) -> bool:
        try:
            return known[item]
        except KeyError:
            pass
        found = known[item] = bool(rules.entity(item).attr("used_in") == "own_turn"
                                   and rules.effects_of([item], "use", variants))
        return found
    return rules.memo(("usable in own turn", variants), lambda: usable)


def _usable_now(ctx: Context, who: Character) -> list[str]:
    if not (who.weapons or who.spells or who.keys or who.treasures or who.items):
        return []
    return sorted(set(filter(_usable_items(ctx), who.held())))


def use_item(ctx: Context) -> None:
    who = actor_of(ctx)
    items = _usable_now(ctx, who)
    if not items:
        return
    item = items[0] if len(items) == 1 else str(ctx.ask("use_which", tuple(items), who.id))
    if ctx.play is not None:
        ctx.play.count("used", who.id, item)
    ctx.log.append((who.id, "use_item", item))
    before = list(who.spells)
    fights.use_item(ctx, who, item)
    if ctx.play is not None and len(who.spells) < len(before):
        ctx.play.zones.setdefault("discard", []).append(item)


__all__ = sorted(n for n, v in list(globals().items())
                 if not n.startswith("_") and callable(v) and getattr(v, "__module__", None) == __name__)
