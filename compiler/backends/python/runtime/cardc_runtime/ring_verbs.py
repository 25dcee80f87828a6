"""Verbs for a board of spaces that characters walk along: a path of the content (kind `path`) whose fields
are spaces, each of the sort its `shades` list names (a terrain, a guild, ...), open at both ends or a ring
(`loop`); the spaces from which the places of a sphere are entered (`entrances`); where the characters start
(`start_on`), moving a number of spaces either way (`move_along`) and what the space one stands on allows
(`on_space`, and `here` of `learn`, `can_attack_sphere`, `attack_sphere`). Game-neutral: the sorts of space are
the content's idents.

A character's space is the mark `space:<who>` (a zone name `path#n`, the zones `lay_paths` makes); while it
stands on another board (the mark `board:<who>`) it has none.

Each function is the runtime function of the catalogue verb of the same name (re-exported by `verbs.py`).
"""

from __future__ import annotations

from .context import Context, actor_of
from .table_verbs import _marks

__all__ = ["can_travel", "move_along", "on_space", "start_on", "travel"]


def _shades(ctx: Context, path: str) -> list[str]:
    shades = ctx.rules.entity(path).attr("shades")
    if not isinstance(shades, list | tuple) or not shades:
        raise RuntimeError(f"{path} lists no `shades`: its spaces are not known")
    return [str(s) for s in shades]


def space_of(ctx: Context, who: str) -> tuple[str, int] | None:
    """The path and number of the space the character stands on (None: on no space, or on another board)."""
    marks = _marks(ctx)
    at = marks.get(f"space:{who}")
    if not isinstance(at, str) or marks.get(f"board:{who}"):
        return None
    path, _, n = at.rpartition("#")
    return path, int(n)


def shade_here(ctx: Context, who: str) -> str | None:
    """The sort of the space the character stands on."""
    pos = space_of(ctx, who)
    return None if pos is None else _shades(ctx, pos[0])[pos[1] - 1]


def _set_space(ctx: Context, who: str, path: str, n: int) -> None:
    _marks(ctx)[f"space:{who}"] = f"{path}#{n}"


def start_on(ctx: Context, path: str, at: int = 1) -> None:
    """Every player's character stands on the path's space number `at`."""
    n = len(_shades(ctx, path))
    if not 1 <= at <= n:
        raise RuntimeError(f"{path} has {n} spaces: there is no space {at}")
    for who in ctx.characters:
        _set_space(ctx, who, path, at)
    ctx.record("start_on", path, at)


def move_along(ctx: Context, steps: int) -> None:
    """The character moves exactly `steps` spaces along its path, either way (the player picks where): round a
    ring (`loop`), or not past either end of an open path."""
    who = actor_of(ctx)
    pos = space_of(ctx, who.id)
    if pos is None:
        ctx.prevented = True
        return
    path, i = pos
    shades = _shades(ctx, path)
    loop = bool(ctx.rules.entity(path).attr("loop"))
    options: list[str] = []
    for d in (1, -1):
        j = i + d * steps
        if loop:
            j = (j - 1) % len(shades) + 1
        if 1 <= j <= len(shades) and f"{path}#{j}" not in options:
            options.append(f"{path}#{j}")
    if not options:
        ctx.prevented = True
        return
    to = str(ctx.ask("move_to", tuple(options)))
    n = int(to.rpartition("#")[2])
    _set_space(ctx, who.id, path, n)
    ctx.record("move_along", shades[n - 1], to)


def _listed(ctx: Context, who: str, via: str) -> tuple[str, int, list[int]] | None:
    """The character's path, space and the spaces the path lists under the attribute `via`, when it stands on
    one of them (a provisional list is recorded as such: the game rests on it)."""
    pos = space_of(ctx, who)
    if pos is None:
        return None
    entity = ctx.rules.entity(pos[0])
    spaces = entity.attr(via)
    if not isinstance(spaces, list | tuple):
        return None
    note = entity.provisional(via)
    if note:
        ctx.provisional.add(f"{pos[0]}.{via}: {note}")
    listed = [int(s) for s in spaces]
    return (pos[0], pos[1], listed) if pos[1] in listed else None


def _travel_options(ctx: Context, path: str, i: int, listed: list[int], nearest: bool) -> list[int]:
    """The listed spaces one may travel to from space i: every other one, or with `nearest` the nearest one
    each way (round a ring, the way back past its end counts)."""
    others = list(dict.fromkeys(s for s in listed if s != i))
    if not nearest:
        return others
    n = len(_shades(ctx, path))
    loop = bool(ctx.rules.entity(path).attr("loop"))
    out: list[int] = []
    for d in (1, -1):
        ahead = [((s - i) * d % n if loop else (s - i) * d, s) for s in others]
        ahead = [(dist, s) for dist, s in ahead if dist > 0]
        if ahead and min(ahead)[1] not in out:
            out.append(min(ahead)[1])
    return out


def can_travel(ctx: Context, via: str) -> bool:
    """The character stands on a space its path lists under `via` and another one is listed."""
    found = _listed(ctx, actor_of(ctx).id, via)
    return found is not None and bool(_travel_options(ctx, *found, nearest=False))


def travel(ctx: Context, via: str, nearest: bool = False) -> None:
    """From a space its path lists under `via`, the character moves to another listed space (the player
    picks; with `nearest`, the nearest one either way)."""
    who = actor_of(ctx)
    found = _listed(ctx, who.id, via)
    options = [] if found is None else _travel_options(ctx, *found, nearest=nearest)
    if found is None or not options:
        ctx.prevented = True
        return
    path = found[0]
    to = str(ctx.ask("move_to", tuple(f"{path}#{n}" for n in options)))
    n = int(to.rpartition("#")[2])
    _set_space(ctx, who.id, path, n)
    ctx.record("travel", via, _shades(ctx, path)[n - 1], to)


def on_space(ctx: Context, shades: tuple[str, ...]) -> bool:
    """The character stands on a space of one of these sorts."""
    return shade_here(ctx, actor_of(ctx).id) in shades


def entrances_here(ctx: Context, who: str, places: list[str]) -> list[str]:
    """The places (of those dealt at set-up, `places` in their order) entered from the character's space: a
    path's `entrances` lists the spaces each place is entered from, the same number for each place, in the
    order of the places."""
    pos = space_of(ctx, who)
    if pos is None:
        return []
    entrances = ctx.rules.entity(pos[0]).attr("entrances")
    dealt = _marks(ctx).get("sphere_places", [])
    if not isinstance(entrances, list | tuple) or not dealt:
        return []
    per = max(1, len(entrances) // len(dealt))
    return [p for k, p in enumerate(dealt) if p in places and pos[1] in entrances[k * per:(k + 1) * per]]


def entrance_spaces(ctx: Context, place: str) -> list[str]:
    """The spaces (zone names `path#n`) from which the place is entered, on every path that lists entrances."""
    dealt = _marks(ctx).get("sphere_places", [])
    if place not in dealt:
        return []
    k = dealt.index(place)
    out: list[str] = []
    for path in ctx.rules.of_kind("path"):
        entrances = path.attr("entrances")
        if isinstance(entrances, list | tuple) and entrances:
            per = max(1, len(entrances) // len(dealt))
            out.extend(f"{path.id}#{n}" for n in entrances[k * per:(k + 1) * per])
    return out
