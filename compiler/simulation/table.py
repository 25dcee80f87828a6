"""The bridge to the engine: load a job's rule package once per process and play one game of it.

Nothing here knows a game: heroes, expansions, variants and player counts come from the generated package
(`MODULES`, `VARIANTS`) and its ruleset; the game is played by `cardc_runtime.engine.play_game`.
"""

from __future__ import annotations

import gc
import importlib.util
import random
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from cardc.simulation import odds_store
from cardc.simulation.jobs import Job, package_name
from cardc.simulation.stats import GameRecord

DEFAULT_TURN_CAP = 400
_PACKAGES: dict[str, ModuleType] = {}
_TABLES: dict[Job, Table] = {}


class TableError(ValueError):
    """A set-up the content cannot play (unknown expansion, too many players, ...)."""


def _note(text: str) -> None:
    print(f"cardc: note: {text}", file=sys.stderr)


def load_package(job: Job) -> ModuleType:
    """Import the job's generated package (once per process, keyed by its digest); on the compiled runtime its
    modules compiled too, where they can be (compiled_rules.py)."""
    if job.digest in _PACKAGES:
        return _PACKAGES[job.digest]
    from cardc.backends.python import compiled_rules
    from cardc.backends.python.loader import ensure_runtime

    ensure_runtime()
    name = package_name(job.game, job.digest)
    compiled = compiled_rules.package(job.files, name, job.digest, _note)  # (on the compiled runtime)
    if compiled is not None:
        _PACKAGES[job.digest] = compiled
        return compiled
    tmp = Path(tempfile.mkdtemp(prefix="cardc-sim-"))
    try:
        for rel, text in job.files:
            path = tmp / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        init = tmp / job.game / "__init__.py"
        spec = importlib.util.spec_from_file_location(name, init, submodule_search_locations=[str(init.parent)])
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)  # imported: the modules live in memory now
    _PACKAGES[job.digest] = module
    return module


@dataclass(frozen=True)
class GameOptions:
    """What the content offers to play: expansions, variants (with the expansion each needs), heroes."""

    expansions: tuple[str, ...]
    variants: dict[str, str]  # variant -> its expansion ("base" for none)

    def expansion_of(self, variant: str) -> str:
        return self.variants.get(variant, "base")


def game_options(package: ModuleType) -> GameOptions:
    expansions = tuple(dict.fromkeys(m.EXPANSION for m in package.MODULES
                                     if m.EXPANSION != "base" and getattr(m, "VARIANT", None) is None))
    variants = {m.VARIANT: m.EXPANSION for m in package.MODULES if getattr(m, "VARIANT", None)}
    for v in getattr(package, "VARIANTS", ()):
        variants.setdefault(v, "base")
    return GameOptions(expansions, variants)


def in_play(job: Job) -> tuple[str, ...]:
    """The expansions a job plays with: those asked for, and those its variants come from."""
    options = game_options(load_package(job))
    need = [options.expansion_of(v) for v in job.variants]
    return tuple(dict.fromkeys([*job.expansions, *(e for e in need if e != "base")]))


class Table:
    """One job's ruleset, built once, and the games played on it."""

    def __init__(self, job: Job) -> None:
        from cardc.simulation.bots_loader import resolve_bot

        self.job = job
        self.package = load_package(job)
        self.rules = self.package.ruleset(in_play(job))
        self.heroes = [e.id for e in self.rules.of_kind("hero")]
        self.bot = resolve_bot(job.bot)
        odds_file = odds_store.path_for(job.digest, in_play(job))
        self.store = None if odds_file is None else odds_store.Reader(odds_file)
        if self.store is not None:  # the greedy bot's exact odds from earlier runs (odds_store.py)
            from cardc_runtime.greedy import use_store

            use_store(self.rules, self.store.odds, self.store.choices)

    def keep_odds(self) -> None:
        """Add the exact odds and fight answers this process computed since the last call to the store
        (odds_store.py), and take those the other workers added since (`greedy.more_stored`)."""
        if self.store is not None:
            from cardc_runtime.greedy import fresh_choices, fresh_odds, more_stored

            odds_store.merge(self.store.path, fresh_odds(self.rules))
            odds_store.merge_choices(self.store.path, fresh_choices(self.rules))
            more_stored(self.rules, self.store.odds, self.store.choices)

    def draw_heroes(self, seed: int) -> list[str]:
        """The job's heroes, or `players` heroes drawn by the game's seed; for a game without heroes (its
        set-up deals each player a character) the seats `p1`, `p2`, ..."""
        if self.job.heroes:
            return list(self.job.heroes)
        if not self.heroes:
            return seats(self.job.players)
        return random.Random(seed ^ 0x5EA7).sample(self.heroes, self.job.players)

    def play(self, index: int, seed: int) -> GameRecord:
        from cardc_runtime.bots import seat_seed
        from cardc_runtime.engine import play_game

        heroes = self.draw_heroes(seed)
        bots = {h: self.bot(seat_seed(seed, h)) for h in heroes}
        result = play_game(self.rules, heroes, variants=self.job.variants, seed=seed, bots=bots,
                           turn_cap=self.job.turn_cap or DEFAULT_TURN_CAP)
        return record_of(index, seed, result)


MAX_SEATS = 8  # players of a game whose set-up deals the characters (its decks may seat fewer)


def seats(players: int) -> list[str]:
    """The seats of a game whose set-up deals each player its character."""
    return [f"p{i}" for i in range(1, players + 1)]


def record_of(index: int, seed: int, result: Any) -> GameRecord:
    """The engine's `GameResult` as the small record statistics are made of (sums in plain dicts: Counters
    cost about 1% of a game)."""
    picked: dict[str, int] = {}
    used: dict[str, int] = {}
    for counts, into in ((result.picked_up, picked), (result.used, used)):
        for items in counts.values():
            for item, n in items.items():
                into[item] = into.get(item, 0) + n
    return GameRecord(index, seed, tuple(result.heroes), tuple(result.winners), result.turns, result.capped,
                      result.reason, _by_cause(result.lives_lost), _by_cause(result.deaths_by),
                      tuple(sorted(picked.items())), tuple(sorted(used.items())),
                      tuple(tuple(t) for t in getattr(result, "teams", ())))


def _by_cause(counts: dict[str, dict[str, int]]) -> tuple[tuple[str, str, int], ...]:
    """(hero, cause, n) for each hero's count of each cause, sorted (a hero and a cause come once each)."""
    return tuple(sorted((hero, cause, n) for hero, causes in counts.items() for cause, n in causes.items()))


def table_for(job: Job) -> Table:
    if job not in _TABLES:
        _TABLES[job] = Table(job)
        # The loaded rules live as long as the process plays games: out of the cyclic collector's sight, its
        # full collections stop walking them again and again while games allocate (about 15% of a game).
        gc.freeze()
    return _TABLES[job]


def validate(job: Job) -> Job:
    """The job, with its player count settled, or TableError saying what the content cannot play."""
    from cardc.diagnostics import did_you_mean

    options = game_options(load_package(job))

    def check(kind: str, ident: str, known: list[str]) -> None:
        if ident not in known:
            hint = did_you_mean(ident, known)
            raise TableError(f"unknown {kind} `{ident}`" + (f"; {hint}" if hint else f"; known: {', '.join(known)}"))

    for e in job.expansions:
        check("expansion", e, list(options.expansions))
    for v in job.variants:
        check("variant", v, sorted(options.variants))
    rules = load_package(job).ruleset(in_play(job))
    heroes = [e.id for e in rules.of_kind("hero")]
    if "turn" not in getattr(rules, "procedures", {}):
        raise TableError(f"`{job.game}` declares no procedure `turn`, so it cannot be played whole")
    for h in job.heroes:
        check("hero", h, heroes)
    players = job.players or (len(job.heroes) if job.heroes else 2)
    if job.heroes and len(job.heroes) != players:
        raise TableError(f"--heroes names {len(job.heroes)} heroes for {players} players")
    if len(set(job.heroes)) != len(job.heroes):
        raise TableError("--heroes names a hero twice")
    if not heroes:  # the set-up deals the characters: seats only
        if job.heroes:
            raise TableError(f"`{job.game}` has no heroes to pick: its set-up deals each player a character")
        if not 1 <= players <= MAX_SEATS:
            raise TableError(f"--players must be 1 to {MAX_SEATS}")
    elif not 1 <= players <= len(heroes):
        raise TableError(f"{players} players cannot play: `{job.game}` with these expansions has "
                         f"{len(heroes)} heroes")
    if job.turn_cap is not None and job.turn_cap < 1:
        raise TableError("--turn-cap must be at least 1")
    return job.with_(players=players)


def names_of(job: Job) -> dict[str, str]:
    """English names of every entity, for text reports (ids stay the keys in JSON)."""
    rules = load_package(job).ruleset(None)
    return {e.id: str(e.label("en")) for e in rules.entities.values()}
