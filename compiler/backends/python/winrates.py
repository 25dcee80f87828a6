"""Win rates from whole games for the balance backend: `generated/balance/<game>-games.json` and `.md`.

For every game the engine can play (it declares a `turn` procedure): each hero's win rate with its 95%
interval, per player count, in the base game, with each expansion that adds pieces, and with each variant.
The games are `cardc simulate`'s (fixed seed, the `sensible` bot), so the figures repeat exactly. Playing
them takes a while, so they are cached on a digest of the generated rules, the runtime that plays them and
this code: a rebuild of unchanged content reuses the previous figures instead of replaying: from this build's
own previous output (the folder it writes to), else the user's cache folder, else the output folder of
another build of the same content beside it (a clean clone's committed `generated/`, recognised by its
build marker; this is what lets a build into a new folder start warm).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from cardc.lower import ODDS_KIND, ODDS_PARTS
from cardc.model import Procedure, Project

SEED = 2026
BOT = "sensible"  # the engine's default bot: the greedy bot's exact odds would make a cold build take too long
GAMES_PER_CELL = 6  # keeps a cold `cardc build` within minutes on two cores; CARDC_BALANCE_GAMES for more
TURN_CAP = 400
PLAYERS = range(2, 6)
FORMAT = 1


def games_per_cell() -> int:
    """`CARDC_BALANCE_GAMES` overrides the default, for a designer who wants narrower intervals."""
    try:
        return max(1, int(os.environ.get("CARDC_BALANCE_GAMES", GAMES_PER_CELL)))
    except ValueError:
        return GAMES_PER_CELL


def cache_dir() -> Path:
    base = os.environ.get("CARDC_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "cardc")
    return Path(base) / "winrates"


def _code_digest() -> str:
    """The runtime that plays the games and the simulation code: a change there replays the games."""
    from cardc.backends.python import RUNTIME_SOURCE

    h = hashlib.sha256()
    sim = Path(__file__).resolve().parents[2] / "simulation"
    for path in [*sorted(RUNTIME_SOURCE.glob("*.py")), *sorted(sim.glob("*.py")), Path(__file__)]:
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


# Declarations that are not pieces of play: an expansion made only of these (e.g. variants and their odds
# tables) is shown through its variants' columns, not as a column of its own.
NOT_PIECES = frozenset({"variant", "expansion", ODDS_KIND, *ODDS_PARTS})


def setups(job: Any) -> list[dict[str, Any]]:
    """Base game, each expansion that brings pieces of its own, each variant (with the expansion it needs)."""
    from cardc.simulation.table import game_options, load_package

    package = load_package(job)
    options = game_options(package)
    out: list[dict[str, Any]] = [{"id": "base", "expansions": [], "variants": []}]
    for e in options.expansions:
        pieces = [x for m in package.MODULES if m.EXPANSION == e and getattr(m, "VARIANT", None) is None
                  for x in m.ENTITIES if x.kind not in NOT_PIECES]
        if pieces:
            out.append({"id": e, "expansions": [e], "variants": []})
    for v, e in sorted(options.variants.items()):
        out.append({"id": v, "expansions": [] if e == "base" else [e], "variants": [v]})
    return out


def playable(project: Project, game: str) -> bool:
    from cardc.simulation.jobs import Job, package_files
    from cardc.simulation.table import load_package

    if not any(isinstance(p, Procedure) and p.name == "turn" for p in project.procedures_of(game)):
        return False  # no turn to play (seen in the IR: the rule package need not be generated and imported)

    files, digest = package_files(project, game)
    rules = load_package(Job(game, files, digest, 2)).ruleset(None)
    return "turn" in getattr(rules, "procedures", {}) and bool(rules.of_kind("hero"))


def winrate_data(project: Project, game: str, workers: int | None = None,
                 previous: Path | None = None) -> dict[str, Any]:
    """Every cell (setup x player count) played, or taken from the cache when nothing changed; `previous`
    is the output folder of the build (its last output may hold the figures)."""
    from cardc.simulation.jobs import Job, package_files

    files, digest = package_files(project, game)
    games = games_per_cell()
    base = Job(game, files, digest, 2, bot=BOT, turn_cap=TURN_CAP)
    plan = setups(base)
    heroes_by_setup = {}
    from cardc.simulation.table import in_play, load_package

    for s in plan:
        rules = load_package(base).ruleset(in_play(base.with_(expansions=tuple(s["expansions"]),
                                                              variants=tuple(s["variants"]))))
        heroes_by_setup[s["id"]] = len(rules.of_kind("hero"))
    key = hashlib.sha256(json.dumps({"format": FORMAT, "rules": digest, "code": _code_digest(), "games": games,
                                     "seed": SEED, "bot": BOT, "cap": TURN_CAP, "setups": plan,
                                     "players": list(PLAYERS)}, sort_keys=True).encode()).hexdigest()
    cached = _cached(_candidates(project, game, key, previous), key)
    if cached is not None:
        return cached
    from cardc.simulation.runner import run
    from cardc.simulation.stats import summarize

    jobs, cells = [], []
    for s in plan:
        for n in PLAYERS:
            if n <= heroes_by_setup[s["id"]]:
                jobs.append(base.with_(players=n, expansions=tuple(s["expansions"]), variants=tuple(s["variants"])))
                cells.append((s["id"], n))
    outcome = run(jobs, games, SEED, workers=workers)
    if outcome.interrupted:
        raise KeyboardInterrupt
    results = []
    for i, (setup, n) in enumerate(cells):
        summary = summarize(outcome.records.get(i, []), requested=games)
        results.append({"setup": setup, "players": n, "heroes": summary["heroes"], "length": summary["length"],
                        "turn_cap": summary["turn_cap"], "no_winner": summary["no_winner"]})
    data = {"game": game, "key": key, "seed": SEED, "bot": BOT, "games_per_cell": games, "turn_cap": TURN_CAP,
            "setups": plan, "players": list(PLAYERS), "cells": results}
    _store(key, data)
    return data


def _candidates(project: Project, game: str, key: str, previous: Path | None = None) -> list[Path]:
    from cardc.build import MARKER

    name = Path("balance") / f"{game}-games.json"
    out = [previous / name] if previous is not None else []
    out.append(cache_dir() / f"{key}.json")
    beside = Path(project.root).resolve().parent / "generated"
    if (beside / MARKER).is_file():  # only a folder `cardc build` wrote, never a guess at the cwd
        out.append(beside / name)
    return list(dict.fromkeys(out))


def _cached(candidates: list[Path], key: str) -> dict[str, Any] | None:
    for path in candidates:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and data.get("key") == key:
            return data
    return None


def _store(key: str, data: dict[str, Any]) -> None:
    """Best effort: a cache that cannot be written only costs time."""
    try:
        folder = cache_dir()
        folder.mkdir(parents=True, exist_ok=True)
        tmp = folder / f".{key}.tmp-{os.getpid()}"
        tmp.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
        tmp.replace(folder / f"{key}.json")
    except OSError:
        pass


def markdown(data: dict[str, Any], names: dict[str, str]) -> str:
    label = names.get
    out = [f"# {label(data['game'], data['game'])}: win rates from whole games", "",
           f"Each hero's share of games won, with its 95% (Wilson) interval, from {data['games_per_cell']} games "
           f"per cell played by the `{data['bot']}` bot (seed {data['seed']}, at most {data['turn_cap']} turns). "
           "Heroes are drawn at random for each game, so a hero plays in a cell's games in proportion to "
           "the players. Narrow the intervals with `cardc simulate --games N`.", ""]
    for n in data["players"]:
        cells = {c["setup"]: c for c in data["cells"] if c["players"] == n}
        if not cells:
            continue
        heroes = sorted({h["hero"] for c in cells.values() for h in c["heroes"]}, key=lambda h: label(h, h))
        setups = [s for s in data["setups"] if s["id"] in cells]
        out += [f"## {n} players", "",
                "| hero | " + " | ".join(label(s["id"], s["id"]) if s["id"] != "base" else "base game"
                                         for s in setups) + " |", "|" + "---|" * (len(setups) + 1)]
        for hero in heroes:
            row = []
            for s in setups:
                h = next((x for x in cells[s["id"]]["heroes"] if x["hero"] == hero), None)
                row.append("-" if h is None else f"{100 * h['win_rate']:.0f}% ({100 * h['ci95'][0]:.0f}-"
                           f"{100 * h['ci95'][1]:.0f}, {h['games']} games)")
            out.append(f"| {label(hero, hero)} | " + " | ".join(row) + " |")
        out.append("| *turn cap hit* | " + " | ".join(f"{100 * cells[s['id']]['turn_cap']['share']:.0f}%"
                                                    for s in setups) + " |")
        out.append("")
    return "\n".join(out)


def write_winrates(project: Project, out: Path, previous: Path | None = None) -> None:
    """Called by the balance backend for each playable game; `previous` is the build's output folder."""
    from cardc.simulation.jobs import Job, package_files
    from cardc.simulation.table import names_of

    folder = out / "balance"
    for game in sorted(project.games):
        if not playable(project, game):
            continue
        data = winrate_data(project, game, previous=previous)
        files, digest = package_files(project, game)
        names = names_of(Job(game, files, digest, 2))
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{game}-games.json").write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n",
                                                   encoding="utf-8")
        (folder / f"{game}-games.md").write_text(markdown(data, names), encoding="utf-8")
