"""Helpers for the rules tests: the bundled content compiled once, its rule packages generated and imported,
and the same content with one effect stripped (to show that a result comes from that effect)."""

from __future__ import annotations

import dataclasses
import os
from functools import lru_cache
from pathlib import Path
from types import ModuleType
from typing import Any

from cardc.backends.python.loader import ensure_runtime, load_games
from cardc.frontend import compile_paths
from cardc.model import Project

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "rules"

ensure_runtime()


@lru_cache(maxsize=1)
def bundled_project() -> Project:
    old = Path.cwd()
    os.chdir(ROOT)
    try:
        result = compile_paths([Path("content")])
    finally:
        os.chdir(old)
    assert result.ok, [d.message for d in result.diagnostics if d.is_error][:5]
    return result.project


@lru_cache(maxsize=4)
def games() -> dict[str, ModuleType]:
    return load_games(bundled_project())


def rules(game: str = "karak", expansions: tuple[str, ...] | None = None) -> Any:
    """A fresh ruleset of the bundled game (through the generated package)."""
    return games()[game].ruleset(expansions)


def stripped(entity: str, index: int | None = None, game: str = "karak",
             expansions: tuple[str, ...] | None = None) -> Any:
    """The ruleset generated from the bundled content with the effects of `entity` (or only its effect
    number `index`) removed from the IR before generation; every other entity's errata of it too.
    `expansions`: the expansions in play (default: all)."""
    project = bundled_project()
    found = False
    entities = []
    for e in project.entities:
        if e.id == entity and e.game == game:
            found = True
            kept = tuple(fx for fx in e.effects if index is not None and fx.index != index)
            e = dataclasses.replace(e, effects=kept)
        entities.append(e)
    assert found, f"no entity {entity} in {game}"
    return load_games(dataclasses.replace(project, entities=tuple(entities)))[game].ruleset(expansions)


def compile_fixture(*names: str) -> Project:
    result = compile_paths([FIXTURES / n for n in names])
    assert result.ok, [d.render(result.sources) for d in result.diagnostics if d.is_error]
    return result.project


def effect_index(entity: str, trigger: str, game: str = "karak") -> int:
    """The number of `entity`'s first effect on `trigger` in the bundled content."""
    for e in bundled_project().entities:
        if e.id == entity and e.game == game:
            return next(fx.index for fx in e.effects if fx.trigger.verb == trigger)
    raise LookupError(entity)


def prophecy_table(r: Any = None, *, players: int = 2, variants: tuple[str, ...] = (),
                   expansions: tuple[str, ...] = ("dragon_realm",), seed: int = 0) -> Any:
    """A Prophecy table after the content's set-up (draft, spheres, realm board laid out), seats p1, p2, ...,
    random bots seeded with `seed`, p1 on turn and acting. `r`: a ruleset (default: the bundled Prophecy with
    `expansions`)."""
    from cardc.backends.python.runtime.cardc_runtime.engine import BotInputs, RandomBot, new_game

    ref: list[Any] = []
    ctx = new_game(r or rules("prophecy", expansions), [f"p{i}" for i in range(1, players + 1)], variants=variants,
                   inputs=BotInputs(seed, {}, RandomBot(seed), ref))
    ref.append(ctx)
    ctx.run_procedure("setup")
    assert ctx.play is not None
    ctx.play.current = "p1"
    ctx.actor = ctx.characters["p1"]
    return ctx


def table_zones(ctx: Any) -> dict[str, list[str]]:
    """The table's zones (decks, places, piles) by name."""
    assert ctx.play is not None
    return ctx.play.zones  # type: ignore[no-any-return]


def table_marks(ctx: Any) -> dict[str, Any]:
    """The content's marks (who stands where, which board, ...)."""
    return ctx.facts["marks"]  # type: ignore[no-any-return]
