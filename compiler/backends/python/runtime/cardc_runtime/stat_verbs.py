"""Fight steps for games whose fighters fight with a stat (stones owned) and whose opponents roll too: the
runtime functions of the catalogue verbs `count_stat` and `opponent_rolls` (re-exported by `verbs.py`).

Which stat a fight is fought with is the situation's fact `fight_stat` (default: strength), the same the
opponent's value to beat is read from (`fight.fight_monster`).
"""

from __future__ import annotations

from .context import Context, Side

__all__ = ["count_stat", "opponent_rolls"]


def fight_stat(ctx: Context) -> str:
    """The stat this fight is fought with."""
    return str(ctx.facts.get("fight_stat", "strength"))


def _side(ctx: Context) -> Side:
    if ctx.side is None:
        raise RuntimeError(f"{ctx.owner or 'a procedure'}: this needs a fight in progress")
    return ctx.side


def count_stat(ctx: Context) -> None:
    """The total: the dice as they count, the fighter's own value of the stat fought with, and every attack
    modifier (no weapons or spells: a game that has them counts with `count_attack`)."""
    side = _side(ctx)
    stat = fight_stat(ctx)
    value = side.who.stats.get(stat)
    if value is None:
        raise RuntimeError(f"the {stat} of {side.who.id} is not known: give it (e.g. cardc odds --stat {stat}=N)")
    side.total = sum(side.faces()) + value + side.attack


def opponent_rolls(ctx: Context, dice: tuple[int, int]) -> None:
    """The opponent fought (a monster, not another fighter) rolls the dice: they add to the value to beat,
    with every change the fighters' effects made to its stat (`opponent_stat`)."""
    fight = ctx.fight
    if fight is None or fight.monster is None or fight.target is None:
        return
    count, sides = dice
    faces = ctx.roll_dice(count, sides)
    stat = fight_stat(ctx)
    fight.target += sum(faces) + sum(s.opponent_stats.get(stat, 0) for s in fight.sides)
    ctx.log.append((fight.monster.id, "opponent_roll", tuple(faces), fight.target))
