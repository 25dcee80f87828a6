"""Standing rules as they hold now: the modifiers of `always` effects, collected afresh for one character (or
the table) at the moment a verb needs them. Game-neutral.

`ctx.setup` keeps every modifier ever recorded (a rule that held once, e.g. while a character stood on some
board, stays there); a verb that must know whether a rule holds *now* asks `standing` instead.
"""

from __future__ import annotations

from .context import Character, Context


def standing(ctx: Context, who: Character | None, trigger: str = "always") -> dict[str, int]:
    """The modifiers the effects of `trigger` (`always` unless told) set for `who` (None: the table's own
    rules) as the state is now; the context's own modifiers, prevented effects and actor are left as they were."""
    saved_setup, saved_prevented, saved_actor = ctx.setup, ctx.prevented, ctx.actor
    ctx.setup = {}
    try:
        ctx.fire(trigger, who)
        return dict(ctx.setup)
    finally:
        ctx.setup, ctx.prevented, ctx.actor = saved_setup, saved_prevented, saved_actor


def board_only(ctx: Context, card: str, rules: dict[str, int]) -> list[str]:
    """The boards a standing `usable_only_on` limits the card to (named by the card or by one of its kinds)."""
    entity = ctx.rules.get(card)
    out = []
    for key in rules:
        if key.startswith("only_on:"):
            name, board = key.split(":", 2)[1:]
            if name == card or (entity is not None and entity.is_a(name)):
                out.append(board)
    return out


def usable_here(ctx: Context, who: Character, card: str, rules: dict[str, int] | None = None) -> bool:
    """The card may be used by `who` where it stands now: no standing `usable_only_on` names another board, no
    `cannot_use` names it, and it needs no terrain while `terrain_cards_unusable` holds."""
    rules = standing(ctx, who) if rules is None else rules
    if rules.get(f"cannot_use:{who.id}:{card}"):
        return False
    entity = ctx.rules.get(card)
    if rules.get(f"no_terrain:{who.id}") and entity is not None and "terrain" in entity.tags:
        return False
    boards = board_only(ctx, card, rules)
    where = ctx.facts.get("marks", {}).get(f"board:{who.id}")
    return not boards or where in boards
