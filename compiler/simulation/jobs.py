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


# The last project's packages, by game: the balance backend asks for them several times per game (whether
# it is playable, its win rates, its names), and generating every game's modules costs a few tenths of a second.
_last: tuple[Project, object, dict[str, tuple[tuple[tuple[str, str], ...], str]]] | None = None


def package_name(game: str, digest: str) -> str:
    """The name a process imports a game's generated package under (one per content version)."""
    return f"_cardc_sim_{digest[:16]}_{game}"


def package_files(project: Project, game: str) -> tuple[tuple[tuple[str, str], ...], str]:
    """The generated files of `game` and their digest (generated once per project and catalogue)."""
    global _last
    from cardc.backends.python import python_files
    from cardc.catalogue import default_catalogue

    catalogue = default_catalogue()
    if _last is None or _last[0] is not project or _last[1] is not catalogue:
        every = python_files(project)
        packages: dict[str, tuple[tuple[tuple[str, str], ...], str]] = {}
        for name in project.games:
            files = tuple(sorted((rel, text) for rel, text in every.items() if rel.split("/", 1)[0] == name))
            h = hashlib.sha256()
            for rel, text in files:
                h.update(rel.encode() + b"\0" + text.encode() + b"\0")
            packages[name] = (files, h.hexdigest())
        _last = (project, catalogue, packages)
    return _last[2].get(game, ((), hashlib.sha256().hexdigest()))
