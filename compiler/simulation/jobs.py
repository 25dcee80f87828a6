"""A `Job` is one game set-up to play many times: the generated rule package (as text, so it can travel to
another process or a Ray node) and the table: players, expansions, variants, bot, turn cap, heroes."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from typing import Any

from cardc.model import Project


@dataclass(frozen=True)
class Job:
    game: str
    files: tuple[tuple[str, str], ...]  # the generated package: (path under python/, source)
    digest: str  # hash of `files`: workers load each package once
    players: int
    expansions: tuple[str, ...] = ()
    variants: tuple[str, ...] = ()
    bot: str = "random"
    turn_cap: int | None = None
    heroes: tuple[str, ...] = ()  # fixed heroes; empty: drawn per game from the game's seed
    label: str = ""

    def with_(self, **changes: Any) -> Job:
        return replace(self, **changes)

    def describe(self) -> dict[str, Any]:
        return {"game": self.game, "players": self.players, "expansions": list(self.expansions),
                "variants": list(self.variants), "bot": self.bot, "turn_cap": self.turn_cap,
                "heroes": list(self.heroes)}


def package_files(project: Project, game: str) -> tuple[tuple[tuple[str, str], ...], str]:
    """The generated files of `game` and their digest."""
    from cardc.backends.python import python_files

    files = tuple(sorted((rel, text) for rel, text in python_files(project).items()
                         if rel.split("/", 1)[0] == game))
    h = hashlib.sha256()
    for rel, text in files:
        h.update(rel.encode() + b"\0" + text.encode() + b"\0")
    return files, h.hexdigest()
