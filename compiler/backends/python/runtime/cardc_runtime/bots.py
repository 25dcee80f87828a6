"""Bots by name: players that decide from the legal options only, through the interface a human uses.

A bot is a small class: `__init__(self, seed)` and `choose(self, view, options) -> index`, where `view`
(`engine.View`) says who decides, at which point (`"<hero>:step"`, `"<hero>:walk_to"`, ...) and shows the
table (`view.ctx`: read it, never change it), and `options` are the legal options. Register it with a name::

    from cardc_runtime.bots import register_bot

    @register_bot("cautious")
    class Cautious:
        def __init__(self, seed: int) -> None:
            self.seed = seed

        def choose(self, view, options):
            return options.index("stop") if "stop" in options else 0

and play it with `cardc simulate --bot path/to/cautious.py:Cautious` (or `--bot cautious` once the module
is imported). Bots get their own seed per player and game, so a run repeats exactly.

Built in: `random` (a uniformly random legal option), `sensible` (the engine's default bot) and `greedy`
(fights when the exact odds are good, heals when low, keeps the better weapon; see `greedy.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .engine import RandomBot, SensibleBot

BotFactory = Callable[[int], Any]
BOTS: dict[str, BotFactory] = {}


def register_bot(name: str) -> Callable[[BotFactory], BotFactory]:
    """Class decorator: make the bot available by `name`."""

    def add(cls: BotFactory) -> BotFactory:
        if BOTS.get(name, cls) is not cls:
            raise ValueError(f"a bot named {name!r} is already registered")
        BOTS[name] = cls
        return cls

    return add


def get_bot(name: str) -> BotFactory:
    if name not in BOTS:
        raise KeyError(f"no bot {name!r}; registered: {', '.join(sorted(BOTS))}")
    return BOTS[name]


def seat_seed(seed: int, player: str) -> int:
    """A bot's own seed, distinct per player and stable across processes (no salted `hash()`)."""
    h = 1469598103934665603
    for byte in f"{seed}:{player}".encode():
        h = ((h ^ byte) * 1099511628211) % (1 << 64)
    return h


register_bot("random")(RandomBot)
register_bot("sensible")(SensibleBot)

from . import greedy  # noqa: E402,F401  (registers `greedy`)
