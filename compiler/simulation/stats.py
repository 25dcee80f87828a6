"""What one simulated game leaves behind (`GameRecord`) and the statistics over many (`summarize`).

Records are small and picklable (they cross process and Ray boundaries); the summary only depends on the
set of records, never on the order they arrived in, so any number of workers gives the same numbers.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

Z95 = 1.959963984540054  # two-sided 95% normal quantile


@dataclass(frozen=True)
class GameRecord:
    """One finished game: who played, who won, how long it took, and the counted events."""

    index: int
    seed: int
    heroes: tuple[str, ...]
    winners: tuple[str, ...]
    turns: int
    capped: bool
    reason: str = ""
    lives_lost: tuple[tuple[str, str, int], ...] = ()  # (hero, cause, lives)
    deaths: tuple[tuple[str, str, int], ...] = ()  # (hero, cause, times)
    picked: tuple[tuple[str, int], ...] = ()  # (item, times picked up)
    used: tuple[tuple[str, int], ...] = ()  # (item, times used)
    teams: tuple[tuple[str, ...], ...] = ()  # the players of each team, when the game formed teams

    def as_json(self) -> dict[str, Any]:
        return {"index": self.index, "seed": self.seed, "heroes": list(self.heroes), "winners": list(self.winners),
                "turns": self.turns, "capped": self.capped, "reason": self.reason}


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (sound near 0 and 1, unlike the normal approximation)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    low = 0.0 if successes == 0 else max(0.0, centre - half)  # exact ends: no rounding residue
    high = 1.0 if successes == n else min(1.0, centre + half)
    return (low, high)


def percentile(sorted_values: Sequence[int], q: float) -> float:
    """The q-quantile by the nearest-rank method (a value that occurred; 0 for no values)."""
    if not sorted_values:
        return 0.0
    rank = max(1, math.ceil(q * len(sorted_values)))
    return float(sorted_values[rank - 1])


def median(sorted_values: Sequence[int]) -> float:
    n = len(sorted_values)
    if n == 0:
        return 0.0
    mid = n // 2
    return float(sorted_values[mid]) if n % 2 else (sorted_values[mid - 1] + sorted_values[mid]) / 2


def summarize(records: Iterable[GameRecord], requested: int | None = None) -> dict[str, Any]:
    """Win rates with 95% Wilson intervals per hero, game length, turn-cap share, lives and deaths by cause,
    items picked up and used: JSON-ready, independent of the order of `records`."""
    games = sorted(records, key=lambda r: r.index)
    n = len(games)
    played: Counter[str] = Counter()
    won: Counter[str] = Counter()
    shared: Counter[str] = Counter()
    lost: Counter[tuple[str, str]] = Counter()
    died: Counter[tuple[str, str]] = Counter()
    picked: Counter[str] = Counter()
    used: Counter[str] = Counter()
    no_winner = 0
    for g in games:
        played.update(g.heroes)
        won.update(g.winners)
        if len(g.winners) > 1:
            shared.update(g.winners)
        if not g.winners:
            no_winner += 1
        lost.update({(h, c): k for h, c, k in g.lives_lost})
        died.update({(h, c): k for h, c, k in g.deaths})
        picked.update(dict(g.picked))
        used.update(dict(g.used))
    heroes = []
    for hero in sorted(played):
        low, high = wilson(won[hero], played[hero])
        heroes.append({"hero": hero, "games": played[hero], "wins": won[hero], "shared_wins": shared[hero],
                       "win_rate": won[hero] / played[hero], "ci95": [low, high]})
    lengths = sorted(g.turns for g in games)
    capped = sum(1 for g in games if g.capped)

    def by_cause(counter: Counter[tuple[str, str]]) -> list[dict[str, Any]]:
        causes: Counter[str] = Counter()
        for (_, cause), k in counter.items():
            causes[cause] += k
        return [{"cause": c, "total": k, "per_game": k / n if n else 0.0,
                 "by_hero": {h: v for (h, cc), v in sorted(counter.items()) if cc == c}}
                for c, k in sorted(causes.items(), key=lambda x: (-x[1], x[0]))]

    items = sorted(set(picked) | set(used))
    team_rows = _team_rates(games)
    return {
        **({"teams": team_rows} if team_rows else {}),
        "games": n,
        "requested": requested if requested is not None else n,
        "heroes": heroes,
        "no_winner": no_winner,
        "length": {"mean": sum(lengths) / n if n else 0.0, "median": median(lengths),
                   "p90": percentile(lengths, 0.9), "min": lengths[0] if lengths else 0,
                   "max": lengths[-1] if lengths else 0},
        "turn_cap": {"games": capped, "share": capped / n if n else 0.0},
        "lives_lost": by_cause(lost),
        "deaths": by_cause(died),
        "items": [{"item": i, "picked_up": picked[i], "used": used[i],
                   "picked_per_game": picked[i] / n if n else 0.0, "used_per_game": used[i] / n if n else 0.0}
                  for i in sorted(items, key=lambda i: (-picked[i], -used[i], i))],
    }


def _team_rates(games: Sequence[GameRecord]) -> list[dict[str, Any]]:
    """Per team (its players joined by `+`): games, wins (any player of the team among the winners), win rate.
    Empty when no game formed teams."""
    played: Counter[str] = Counter()
    won: Counter[str] = Counter()
    for g in games:
        for team in g.teams:
            key = "+".join(team)
            played[key] += 1
            if any(p in g.winners for p in team):
                won[key] += 1
    rows = []
    for key in sorted(played):
        low, high = wilson(won[key], played[key])
        rows.append({"team": key, "games": played[key], "wins": won[key], "win_rate": won[key] / played[key],
                     "ci95": [low, high]})
    return rows


def render_text(summary: dict[str, Any], title: str = "", names: dict[str, str] | None = None) -> str:
    """The summary as aligned plain-text tables for a terminal."""
    label = (names or {}).get
    out: list[str] = []
    if title:
        out += [title, ""]
    n, asked = summary["games"], summary["requested"]
    out.append(f"games: {n}" + (f" of {asked} (stopped early)" if n != asked else ""))
    out.append("")
    out.append(f"{'hero':<22} {'games':>6} {'wins':>6} {'win rate':>9}  95% interval")
    for h in summary["heroes"]:
        lo, hi = h["ci95"]
        out.append(f"{label(h['hero'], h['hero']):<22} {h['games']:>6} {h['wins']:>6} {100 * h['win_rate']:>8.1f}%"
                   f"  {100 * lo:5.1f}% - {100 * hi:5.1f}%")
    if summary.get("teams"):
        out += ["", "team game: a team's win counts for each of its players above; per team:",
                f"{'team':<22} {'games':>6} {'wins':>6} {'win rate':>9}  95% interval"]
        for t in summary["teams"]:
            lo, hi = t["ci95"]
            out.append(f"{t['team']:<22} {t['games']:>6} {t['wins']:>6} {100 * t['win_rate']:>8.1f}%"
                       f"  {100 * lo:5.1f}% - {100 * hi:5.1f}%")
    if summary["no_winner"]:
        out.append(f"games without a winner: {summary['no_winner']}")
    length, cap = summary["length"], summary["turn_cap"]
    out += ["", f"game length (turns): mean {length['mean']:.1f}, median {length['median']:g}, "
                f"90th percentile {length['p90']:g} (min {length['min']}, max {length['max']})",
            f"hit the turn cap: {cap['games']} games ({100 * cap['share']:.1f}%)"]
    for key, head in (("lives_lost", "lives lost"), ("deaths", "heroes killed (knocked out)")):
        rows = summary[key]
        out += ["", f"{head} by cause:" + ("" if rows else " none")]
        for r in rows:
            out.append(f"  {label(r['cause'], r['cause']):<30} {r['total']:>7}  ({r['per_game']:.2f} per game)")
    out += ["", "items:" + ("" if summary["items"] else " none picked up or used")]
    if summary["items"]:
        out.append(f"  {'item':<28} {'picked up':>10} {'per game':>9} {'used':>8} {'per game':>9}")
        for i in summary["items"]:
            out.append(f"  {label(i['item'], i['item']):<28} {i['picked_up']:>10} {i['picked_per_game']:>9.2f} "
                       f"{i['used']:>8} {i['used_per_game']:>9.2f}")
    return "\n".join(out) + "\n"
