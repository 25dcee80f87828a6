"""`cardc play`: play a whole game of a content's game with bots (or a person at the terminal) and print the
turn log in a chosen language, ending with the winner and why. The same seed gives the same game.

The game is whatever the content declares: its procedures (`setup`, `turn`, ...) run on the generic engine
(`cardc_runtime.engine`); this module only picks heroes, parses the command line and renders the log.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from cardc.diagnostics import did_you_mean

TEXT_PATH = Path(__file__).with_name("play_text.yaml")
LANGS = ("en", "cs", "sk", "de", "pl", "fr")
MAX_SEATS = 8  # players of a game whose set-up deals the characters (its decks may hold fewer)


class PlayError(Exception):
    """A name on the command line that the content does not know (exit 2)."""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", required=True, help="the game to play (a game id of the content)")
    p.add_argument("--players", type=int, default=2, help="number of players (default 2)")
    p.add_argument("--heroes", default="", metavar="ID,ID", help="the heroes, in seat order (default: a seeded "
                   "random pick)")
    p.add_argument("--expansion", action="append", default=[], metavar="ID", help="add an expansion (repeatable)")
    p.add_argument("--variant", action="extend", nargs="+", default=[], metavar="ID",
                   help="switch variants on (their expansion is added)")
    p.add_argument("--seed", type=int, default=1, help="seed of the dice, shuffles and bots (default 1)")
    p.add_argument("--lang", default="en", choices=LANGS, help="language of the log (default en)")
    p.add_argument("--json", action="store_true", help="print the result and the log as JSON")
    p.add_argument("--content", type=Path, default=Path("content"), help="content folder (default: content/)")
    p.add_argument("--human", type=int, action="append", default=[], metavar="SEAT",
                   help="a person plays this seat (1 = first hero) at the terminal")
    p.add_argument("--turn-cap", type=int, default=400, help="stop after this many turns (default 400)")


@lru_cache(maxsize=1)
def _text() -> dict[str, Any]:
    from cardc.yamlload import load_yaml

    return load_yaml(TEXT_PATH.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def run(args: argparse.Namespace, front: Callable[[list[Path]], Any],
        report: Callable[[Sequence[Any], dict[str, str]], int]) -> int:
    result = front([args.content])
    if report([d for d in result.diagnostics if d.is_error], result.sources):
        return 1
    try:
        rules, heroes, variants = _prepare(result.project, args)
    except PlayError as e:
        print(f"cardc play: error: {e}", file=sys.stderr)
        return 2
    from cardc_runtime.engine import SetupError, play_game

    out = Renderer(rules, args.lang)
    printed = [0]

    def flush(ctx: Any) -> None:
        """Show what happened since the last look (a person plays: the log as it happens)."""
        for line in out.lines(ctx.log[printed[0]:]):
            print(line)
        printed[0] = len(ctx.log)

    bots: dict[str, Any] = {}
    for seat in args.human:
        if not 1 <= seat <= len(heroes):
            print(f"cardc play: error: --human {seat}: seats are 1 to {len(heroes)}", file=sys.stderr)
            return 2
        bots[heroes[seat - 1]] = HumanBot(rules, args.lang, flush)
    live = bool(bots) and not args.json

    def on_turn(ctx: Any, who: str) -> None:
        if live:
            flush(ctx)

    try:
        game = play_game(rules, heroes, variants=variants, seed=args.seed, bots=bots, turn_cap=args.turn_cap,
                         keep_log=True, on_turn=on_turn)
    except SetupError as e:
        print(f"cardc play: error: {e}", file=sys.stderr)
        return 2
    if args.json:
        data = {"game": args.game, "seed": args.seed, "heroes": heroes, "variants": list(variants),
                "expansions": list(rules.modules), **game.as_json(),
                "log": [list(_plain(e)) for e in game.log]}
        sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=1) + "\n")
        return 0
    for line in out.lines(game.log[printed[0]:]):
        print(line)
    for line in out.ending(game):
        print(line)
    return 0


def _plain(event: tuple[Any, ...]) -> list[Any]:
    return [list(x) if isinstance(x, tuple) else x for x in event]


def _prepare(project: Any, args: argparse.Namespace) -> tuple[Any, list[str], tuple[str, ...]]:
    from cardc.backends.python.loader import load_games

    if args.game not in project.games:
        known = did_you_mean(args.game, project.games) or "known: " + ", ".join(sorted(project.games))
        raise PlayError(f"unknown game `{args.game}`; {known}")
    package = load_games(project)[args.game]
    everything = package.ruleset(None)
    modules = [m.id for m in project.modules_of(args.game) if m.id != "base"]
    expansions = list(dict.fromkeys(args.expansion))
    for exp in expansions:
        if exp not in modules:
            raise PlayError(f"unknown expansion `{exp}`; known: {', '.join(sorted(modules)) or 'none'}")
    variants = tuple(dict.fromkeys(args.variant))
    known = everything.variant_ids()
    for v in variants:
        if v not in known:
            hint = did_you_mean(v, known)
            raise PlayError(f"unknown variant `{v}`; {hint or 'known: ' + ', '.join(known)}")
        module = everything.entity(v).module
        exp = module.split(".", 1)[1] if "." in module else module
        if exp in modules and exp not in expansions:
            expansions.append(exp)
    rules = package.ruleset(tuple(expansions))
    if "setup" not in rules.procedures or "turn" not in rules.procedures:
        raise PlayError(f"`{args.game}` declares no procedures `setup` and `turn`: it cannot be played yet")
    pool = [e.id for e in rules.of_kind("hero") if e.parent is None]
    if not pool:  # the players' characters are dealt by the set-up (a draft of cards), not picked here
        if args.heroes:
            raise PlayError(f"`{args.game}` has no heroes to pick: its set-up deals each player a character")
        if not 1 <= args.players <= MAX_SEATS:
            raise PlayError(f"--players must be 1 to {MAX_SEATS}")
        return rules, [f"p{i}" for i in range(1, args.players + 1)], variants
    if args.heroes:
        heroes = [h.strip() for h in args.heroes.split(",") if h.strip()]
        for h in heroes:
            if h not in pool:
                raise PlayError(f"unknown hero `{h}`; {did_you_mean(h, pool) or 'known: ' + ', '.join(pool)}")
    else:
        if not 1 <= args.players <= len(pool):
            raise PlayError(f"--players must be 1 to {len(pool)} (the heroes available)")
        heroes = random.Random(args.seed).sample(pool, args.players)
    if len(set(heroes)) != len(heroes):
        raise PlayError("a hero can only be played once")
    return rules, heroes, variants


class Renderer:
    """The log as sentences in one language; ids become the content's names in that language."""

    def __init__(self, rules: Any, lang: str) -> None:
        self.rules = rules
        self.lang = lang
        self.text = _text()
        self.lives: dict[str, int] = {}

    def name(self, x: Any) -> str:
        if isinstance(x, str):
            e = self.rules.get(x)
            if e is None and "#" in x:  # a field or place of a kind of place: `path#2`
                base, _, n = x.partition("#")
                e = self.rules.get(base)
                return f"{e.label(self.lang)} {n}" if e is not None else x
            return e.label(self.lang) if e is not None else x
        if isinstance(x, tuple | list):
            if len(x) == 2 and all(isinstance(i, int) for i in x):
                return f"{x[0]},{x[1]}"
            return ", ".join(self.name(i) for i in x)
        return str(x)

    def word(self, key: str, **values: Any) -> str:
        table = self.text["words"][key]
        return str(table.get(self.lang) or table["en"]).format(**values)

    def _lives(self, who: str, verb: str, args: list[Any]) -> int:
        e = self.rules.get(who)
        top = int(e.attr("lives", 5)) if e is not None else 5
        now = self.lives.get(who, top)
        if verb == "lose_life":
            now = max(0, now - int(args[0]))
        elif verb == "heal_full":
            now = top
        elif verb == "gain_life":
            now = min(top, now + int(args[0]))
        elif verb == "heal_to":
            now = int(args[0])
        self.lives[who] = now
        return now

    def line(self, event: tuple[Any, ...]) -> str | None:
        who, verb, *args = event
        lives = self._lives(who, verb, args) if verb in ("lose_life", "heal_full", "gain_life", "heal_to") else 0
        spec = self.text["events"].get(verb)
        if spec is None:
            return None
        values: dict[str, Any] = {"who": self.name(who), "lives": lives}
        for key, value in zip(spec["args"], args, strict=False):
            values[key] = self.name(value)
        if verb == "fight":
            first, dice = args[1], args[2]
            values["dice"] = "+".join(str(d) for d in dice)
            values["rerolled"] = self.word("rerolled", first="+".join(str(d) for d in first)) \
                if tuple(first) != tuple(dice) else ""
            values["outcome"] = self.word(str(args[5]))
            values["total"], values["against"] = args[3], args[4]
        if verb == "teleport":
            values["place"] = self.name(args[0])
        if verb == "explore":
            values["exits"] = "-".join(self.word(side) for side in str(args[2]).split("-"))
        template = spec.get(self.lang) or spec["en"]
        return str(template).format(**values)

    def lines(self, events: Sequence[tuple[Any, ...]]) -> list[str]:
        return [text for e in events if (text := self.line(e)) is not None]

    def ending(self, game: Any) -> list[str]:
        out = [""]
        if game.capped:
            out.append(self.word("capped", message=game.message))
            return out
        if game.reason.startswith("the game ended (") and " by " in game.reason:
            inner = game.reason[len("the game ended ("):game.reason.index(")")]
            hero, source = inner.split(" by ", 1)
            out.append(self.word("ended_by", hero=self.name(hero), source=self.name(source)))
        winners = ", ".join(self.name(w) for w in game.winners)
        if "; score " in game.reason or game.reason.startswith("score "):  # won by the value of what is held
            scores = ", ".join(f"{self.name(h)} {s:g}" for h, s in sorted(game.scores.items(), key=lambda kv: -kv[1]))
            out.append(self.word("scores", scores=scores))
            out.append(self.word("winner", winners=winners))
        elif not game.winners:  # the game ended without a winner (e.g. a tie that no rule breaks)
            out.append(self.word("nobody_wins", reason=game.reason.rsplit("; ", 1)[-1]))
        else:
            out.append(self.word("winner_by", winners=winners, reason=game.reason.rsplit("; ", 1)[-1]))
        if game.provisional:
            out.append(self.word("provisional"))
            out += [f"- {note}" for note in game.provisional]
        return [o.rstrip() for o in out]


class HumanBot:
    """A person at the terminal: the legal options are listed, one number is typed."""

    def __init__(self, rules: Any, lang: str, flush: Callable[[Any], None] | None = None) -> None:
        self.render = Renderer(rules, lang)
        self.flush = flush

    def label(self, option: Any) -> str:
        if isinstance(option, str) and "@" in option:
            tile, pos = option.rsplit("@", 1)
            return f"{self.render.name(tile)} ({pos})"
        if isinstance(option, bool):
            return {True: "yes", False: "no"}[option]
        return self.render.name(option)

    def choose(self, view: Any, options: Sequence[Any]) -> int:
        if self.flush is not None:
            self.flush(view.ctx)
        side = view.ctx.side
        if side is not None and side.dice and side.who.id == view.chooser:  # deciding in a fight: the dice so far
            print(f"  [{'+'.join(str(d) for d in side.dice)}]")
        print(self.render.word("you_choose", who=self.render.name(view.chooser), point=view.point.split(":", 1)[-1]))
        for i, option in enumerate(options, 1):
            print(f"  {i}. {self.label(option)}")
        while True:
            try:
                answer = input("> ").strip()
            except EOFError:
                return 0
            if answer.isdigit() and 1 <= int(answer) <= len(options):
                return int(answer) - 1
            print(f"  1-{len(options)}?")
