"""One seat against the field: how a setting of the greedy bot plays against the default, by whole games.

    python3 bench/bot_seat.py WIN_ENOUGH 0.25 --games 3000               # one seat at 0.25, three at the default
    python3 bench/bot_seat.py WIN_ENOUGH 0.05 --games 3000 --field 0.15  # three seats at 0.15
    python3 bench/bot_seat.py SWAP_GAIN 1000 --games 2000 --hero xanros  # only Xanros's games, he never swaps

Plays 4-player Karak with Regent (heroes drawn by each game's seed, `game_seed(77, i)`), one seat (each in turn)
played by a `GreedyBot` whose class attribute NAME is VALUE, the other three by the default bot (or one with
NAME at `--field`). It prints the seat's share of the wins (a tie shared) with its 95% interval: 25% is even.
The other three play the same policy, so a setting that plays better shows as a share above 25%; the win rates
of `cardc simulate`, where every seat plays alike, cannot show that. bench/README ("WIN_ENOUGH from 0.5 to
0.15") has the figures that chose the default.

With `--hero H`, only the games (by the same seeds, in order) where H is drawn, H played by the seat: for a
setting of one hero's ability (25% is then not even: compare the values).

Measures play, not speed; nothing is asserted.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name", help="a class attribute of GreedyBot (WIN_ENOUGH, LOW_LIVES, SNEAK_BELOW, SWAP_GAIN)")
    parser.add_argument("value", type=float)
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--field", type=float, default=None, help="the other seats' value (default: the bot's)")
    parser.add_argument("--hero", default=None, help="only games where this hero is drawn, played by the seat")
    args = parser.parse_args()

    from cardc.frontend import compile_paths
    from cardc.simulation.jobs import Job, package_files
    from cardc.simulation.seeds import game_seed
    from cardc.simulation.table import table_for, validate

    project = compile_paths([ROOT / "content"]).project
    files, digest = package_files(project, "karak")
    job = validate(Job("karak", files, digest, 4, ("regent",), (), "greedy"))
    table = table_for(job)
    from cardc_runtime import engine, greedy
    from cardc_runtime.bots import seat_seed

    def kind(value: float) -> Any:
        default = getattr(greedy.GreedyBot, args.name)
        return type("Seat", (greedy.GreedyBot,), {args.name: type(default)(value)})

    seat, field = kind(args.value), greedy.GreedyBot if args.field is None else kind(args.field)
    wins = 0.0
    g = played = 0
    while played < args.games:
        seed = game_seed(77, g)
        heroes = table.draw_heroes(seed)
        who = heroes[g % len(heroes)] if args.hero is None else args.hero
        g += 1
        if who not in heroes:
            continue
        played += 1
        bots = {h: (seat if h == who else field)(seat_seed(seed, h)) for h in heroes}
        result = engine.play_game(table.rules, heroes, variants=job.variants, seed=seed, bots=bots, turn_cap=400)
        if who in result.winners:
            wins += 1 / len(result.winners)
    share = wins / args.games
    half = 1.96 * (share * (1 - share) / args.games) ** 0.5
    print(f"{args.name} {args.value} against {args.field if args.field is not None else 'the default'}: "
          f"{args.games} games{'' if args.hero is None else ' of ' + args.hero}, "
          f"the seat won {100 * share:.1f}% +- {100 * half:.1f}")


if __name__ == "__main__":
    main()
