"""The reader's own turn loop, written from the export schema's `procedures` description (not from the
runtime's `play_game`): the table, `setup` once, then player after player in seat order from the one `setup`
chose to begin, the `end` conditions before each turn, the procedure `turn` with that player acting, and once
the game has ended `game_end` and the `winner` rule. Dice and decisions come from a seeded generator as
`cardc play` draws them, so one seed tells the same game in both.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from cardc_runtime import Context, Ruleset
from cardc_runtime.context import Character, TurnCap
from cardc_runtime.engine import Bot, SensibleBot, View
from cardc_runtime.fight import make_hero
from cardc_runtime.inputs import Choice, Inputs
from cardc_runtime.state import Play


class SeededInputs(Inputs):
    """Dice from `random.Random(seed)` (a die is `randint(1, sides)`, a shuffle is `Random.shuffle`); every
    choice with more than one legal option goes to the bot of the player who decides, and is counted."""

    def __init__(self, seed: int, bot: Bot) -> None:
        self.rng = random.Random(seed)
        self.bot = bot
        self.ctx: Context | None = None
        self.decisions = 0

    def roll(self, sides: int) -> int:
        return self.rng.randint(1, sides)

    def roll_dice(self, count: int, sides: int) -> tuple[int, ...]:
        return tuple(self.rng.randint(1, sides) for _ in range(count))

    def shuffle(self, items: Sequence[Any]) -> list[Any]:
        out = list(items)
        self.rng.shuffle(out)
        return out

    def choose(self, choice: Choice) -> Any:
        options = choice.options
        if len(options) == 1:  # a choice with one legal option is not asked (schema: `statement`)
            return options[0]
        self.decisions += 1
        assert self.ctx is not None
        index = self.bot.choose(View(choice.chooser, choice.point, self.ctx), options)
        return options[index]


def _is_hero(rules: Ruleset, ident: str) -> bool:
    """A seat names a hero of the content, or a player whose character the set-up deals (e.g. a draft)."""
    entity = rules.get(ident)
    return entity is not None and entity.is_a("hero")


def _table(rules: Ruleset, heroes: Sequence[str], variants: Sequence[str], inputs: SeededInputs) -> Context:
    """One character per hero, seated in the order given; `players` is known to the rules as a fact."""
    chars = {h: make_hero(rules, h) if _is_hero(rules, h) else Character(h) for h in heroes}
    ctx = Context(rules, inputs, frozenset(variants), {"players": len(heroes)}, chars)
    ctx.play = Play(order=list(heroes), current=heroes[0])
    inputs.ctx = ctx
    return ctx


def _ended(ctx: Context, play: Play) -> bool:
    """An action has ended the game, or one of the `end` conditions holds (tested with no player acting)."""
    if play.game_over:
        return True
    saved, ctx.actor = ctx.actor, None
    try:
        return any(rule.run(ctx) for rule in ctx.rules.end_rules)
    finally:
        ctx.actor = saved


def _turn(ctx: Context, play: Play, who: str) -> None:
    """One run of the procedure `turn` with `who` acting. A turn starts afresh: the turn count goes up (every
    player's turn counts), and what a turn counts (steps, the passes of each loop, once-per-turn flags) is
    back at zero. After it, a character knocked out who has lives again is back in play."""
    play.current = who
    play.turns += 1
    play.steps_left = play.steps_taken = 0
    play.turn_over = False
    ctx.turn = play.turns
    ctx.loops.clear()
    ctx.facts.pop("turn_flags", None)
    ctx.facts.pop("first_entry", None)
    ctx.log.append(("table", "turn", play.turns, who))
    saved = ctx.actor, ctx.side
    ctx.actor, ctx.side = ctx.characters[who], None
    try:
        ctx.run_procedure("turn")
    finally:
        ctx.actor, ctx.side = saved
    for c in ctx.characters.values():
        if c.unconscious and c.lives > 0:
            c.unconscious = False


def play(rules: Ruleset, heroes: Sequence[str], *, variants: Sequence[str] = (), seed: int = 0,
         turn_cap: int = 400, bot: Bot | None = None) -> dict[str, Any]:
    """One game, reported with the fields of `cardc play --json` (the log included)."""
    inputs = SeededInputs(seed, bot or SensibleBot(seed))
    ctx = _table(rules, heroes, variants, inputs)
    table = ctx.play
    assert table is not None
    capped, message = False, ""
    try:
        ctx.run_procedure("setup")
        order = table.order
        seat = order.index(table.current)  # the player `setup` chose to begin
        while not _ended(ctx, table):
            if table.turns >= turn_cap:
                capped = True
                message = f"stopped after {turn_cap} turns: the game did not end"
                break
            _turn(ctx, table, order[seat])
            seat = (seat + 1) % len(order)
    except TurnCap as cap:  # a loop that never ends (schema: `while`)
        capped, message = True, f"stopped: {cap}"
    if not capped:
        table.game_over = True
        ctx.actor = None
        ctx.fire("game_end", None)
        if rules.winner is not None:
            rules.winner.run(ctx)
    reason = table.winner_reason if not capped else message
    if table.end_reason and not capped:
        reason = f"the game ended ({table.end_reason.replace(':', ' by ')}); {reason}"
    return {
        "winners": list(table.winners) if not capped else [],
        "reason": reason,
        "turns": table.turns,
        "capped": capped,
        "heroes": list(heroes),
        "lives_lost": {h: dict(c) for h, c in table.lives_lost.items()},
        "deaths": dict(table.deaths),
        "deaths_by": {h: dict(c) for h, c in table.deaths_by.items()},
        "picked_up": {h: dict(c) for h, c in table.picked_up.items()},
        "used": {h: dict(c) for h, c in table.used.items()},
        "scores": {h: float(sum(float(rules.entity(t).attr("value", 0) or 0) for t in ctx.characters[h].treasures))
                   for h in heroes},
        "fights": len(ctx.fights),
        "decisions": inputs.decisions,
        "message": message,
        "provisional": sorted(ctx.provisional),
        "log": ctx.log,
    }
