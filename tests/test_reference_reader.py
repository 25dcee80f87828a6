"""The rules travel: a reference reader plays a game from the engine-neutral export alone (tests/reference_reader)
and tells the same game as `cardc play` for the same seed, event for event; its rules are the export's data."""

from __future__ import annotations

import ast
import copy
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from cardc import cli
from cardc import model as m
from cardc.backends.export import dumps
from cardc.backends.export.document import export_document
from cardc.backends.python.loader import ensure_runtime, load_games
from cardc.catalogue import default_catalogue
from cardc.frontend import FrontEndResult
from jsonschema import Draft202012Validator

ensure_runtime()  # the engine API (`cardc_runtime`) the reader runs on

from reference_reader import ExportGame, play_from_export  # noqa: E402 - needs the runtime importable

READER = Path(__file__).parent / "reference_reader"
SCHEMA = Path(__file__).resolve().parent.parent / "dsl" / "schemas" / "export.schema.json"

# (game, players, seed, expansions, variants): Karak's base game, with Regent, and house-rule variants; Prophecy's
# base game (its stand-in main-board turn) and with the Dragon Realm and the Ancient Races.
GAMES = [
    ("karak", 3, 5, (), ()),
    ("karak", 2, 2, (), ()),
    ("karak", 3, 7, ("regent",), ()),
    ("karak", 2, 4, ("regent",), ("lord_of_karak",)),
    ("karak", 2, 11, (), ("critical_hits",)),
    ("karak", 3, 8, (), ("hero_duel", "stronger_dragon")),
    ("karak", 4, 3, ("regent",), ("lord_of_karak", "hero_duel", "critical_hits", "stronger_dragon")),
    ("prophecy", 3, 2, (), ()),
    ("prophecy", 2, 1, ("dragon_realm", "ancient_races"), ()),
]


@pytest.fixture(scope="module")
def exports(bundled: FrontEndResult) -> dict[str, dict[str, Any]]:
    """Each game's export as a consumer gets it: the document the export backend writes, read back as text."""
    return {g: json.loads(dumps(export_document(bundled.project, g))) for g in sorted(bundled.project.games)}


def _cardc_play(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], bundled: FrontEndResult,
                players: int, seed: int, expansions: tuple[str, ...], variants: tuple[str, ...],
                game: str = "karak") -> dict[str, Any]:
    monkeypatch.setattr(cli, "_front", lambda paths: bundled)
    argv = ["play", "--game", game, "--players", str(players), "--seed", str(seed), "--json"]
    for exp in expansions:
        argv += ["--expansion", exp]
    if variants:
        argv += ["--variant", *variants]
    assert cli.main(argv) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


@pytest.mark.parametrize(("game", "players", "seed", "expansions", "variants"), GAMES)
def test_the_reader_replays_the_same_game_as_cardc_play(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], bundled: FrontEndResult,
        exports: dict[str, dict[str, Any]], game: str, players: int, seed: int, expansions: tuple[str, ...],
        variants: tuple[str, ...]) -> None:
    want = _cardc_play(monkeypatch, capsys, bundled, players, seed, expansions, variants, game)
    got = json.loads(json.dumps(play_from_export(exports[game], players=players, seed=seed,
                                                 expansions=expansions, variants=variants)))
    assert not want["capped"] and want["winners"] and len(want["log"]) > 100
    for key in want:
        if key != "log":
            assert got[key] == want[key], key
    first = next((i for i, (a, b) in enumerate(zip(got["log"], want["log"], strict=False)) if a != b), None)
    assert first is None, f"event {first}: reader {got['log'][first]} != cardc play {want['log'][first]}"
    assert got["log"] == want["log"]


class Recorder:
    """A bot that lets another decide and writes down every decision asked of it: who, where, among what."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self.asked: list[tuple[str, str, tuple[Any, ...]]] = []

    def choose(self, view: Any, options: Any) -> int:
        self.asked.append((view.chooser, view.point, tuple(options)))
        return int(self.bot.choose(view, options))


def test_the_same_decisions_are_asked_at_the_same_choice_points(bundled: FrontEndResult,
                                                                exports: dict[str, dict[str, Any]]) -> None:
    """Choice points are named as the schema says, in effects too: a bot sees the same game either way."""
    from cardc_runtime.engine import SensibleBot, play_game

    _, players, seed, expansions, variants = GAMES[6]  # Karak with everything
    rules = load_games(bundled.project)["karak"].ruleset(expansions + ("house_rules",))
    compiled, read = Recorder(SensibleBot(seed)), Recorder(SensibleBot(seed))
    game = play_from_export(exports["karak"], players=players, seed=seed, expansions=expansions,
                            variants=variants, default_bot=read)
    play_game(rules, game["heroes"], variants=variants, seed=seed, default_bot=compiled)
    assert read.asked == compiled.asked
    points = Counter(point.split(":", 1)[1] for _, point, _ in read.asked)
    assert any("#" in p for p in points) and any(".may." in p for p in points) and points["step"] > 50


def test_the_game_played_is_the_exports_not_the_compilers(exports: dict[str, dict[str, Any]]) -> None:
    """Change the rules in the export only: the reader plays the changed game."""
    doc = exports["karak"]
    before = play_from_export(doc, players=2, seed=2)

    def moves_per_turn(log: list[list[Any]]) -> Counter[int]:
        turn, out = 0, Counter[int]()
        for event in log:
            if event[1] == "turn":
                turn = event[2]
            elif event[1] in ("walk", "explore"):
                out[turn] += 1
        return out

    assert max(moves_per_turn(before["log"]).values()) >= 2
    changed = copy.deepcopy(doc)
    rule = next(e for e in changed["entities"] if e["id"] == "turn" and e["kind"] == "rule")
    call = rule["effects"][0]["body"][0]["call"]
    assert call["verb"] == "steps" and call["args"]["count"] == {"type": "int", "value": 4}
    call["args"]["count"]["value"] = 1  # one step a turn
    step = next(p for p in changed["procedures"] if p.get("name") == "step")
    choose = step["body"][1]["then"][0]
    choose["options"] = [o for o in choose["options"] if o["name"] != "walk"]  # no walking
    after = play_from_export(changed, players=2, seed=2)
    assert max(moves_per_turn(after["log"]).values()) == 1
    assert not any(e[1] == "walk" for e in after["log"]) and any(e[1] == "walk" for e in before["log"])


def test_the_reader_reads_only_the_export_and_the_engine_api() -> None:
    """Its imports are the standard library and `cardc_runtime` (the game-neutral engine API): never the
    compiler, the IR or the generated rule modules."""
    for path in sorted(READER.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""] if node.level == 0 else []
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                assert top in sys.stdlib_module_names or top == "cardc_runtime", f"{path.name} imports {name}"
            if isinstance(node, ast.ImportFrom):  # the turn loop is the reader's own (turns.py), from the schema
                loop = {"play_game", "play_turn", "new_game", "ended", "BotInputs"}
                assert not {a.name for a in node.names} & loop, f"{path.name} imports the runtime's turn loop"


@pytest.mark.parametrize("game", ["karak", "prophecy"])
def test_the_ruleset_read_from_the_export_is_the_generated_one(bundled: FrontEndResult,
                                                              exports: dict[str, dict[str, Any]], game: str) -> None:
    """Beyond the seeds played: every entity and effect of every module reads back as the Python backend
    compiled it (attributes, trigger arguments, variants, provisional notes, what each option of a `choose` does,
    procedures)."""
    package = load_games(bundled.project)[game]
    reader = ExportGame(exports[game])
    modules = reader.module_ids()
    for expansions in (None, (), *((x,) for x in modules if x != "base")):
        want, got = package.ruleset(expansions), reader.ruleset(expansions)
        assert list(got.entities) == list(want.entities)
        assert got.entities == want.entities
        assert got.modules == want.modules

        def effects(rules: Any) -> list[tuple[Any, ...]]:
            return [(f.owner, f.index, f.trigger, f.trigger_args, f.module, f.variant, f.provisional, f.choices)
                    for f in rules.effects]
        assert effects(got) == effects(want)
        assert [(p.name, p.kind, p.module) for p in got.procedures.values()] == \
            [(p.name, p.kind, p.module) for p in want.procedures.values()]
        assert len(got.end_rules) == len(want.end_rules)
        assert (got.winner is None) == (want.winner is None)


def _branches(schema: dict[str, Any], name: str) -> list[dict[str, Any]]:
    return [b for b in schema["$defs"][name]["oneOf"] if "$ref" not in b]


def test_the_schema_documents_how_to_run_the_rules(exports: dict[str, dict[str, Any]]) -> None:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    for name in ("statement", "condition", "procedure"):
        for branch in _branches(schema, name):
            kind = branch["properties"]["type"]
            assert len(branch.get("description", "")) > 20, f"{name} {kind} is not explained"
    statement_types = {t for b in _branches(schema, "statement") for t in
                       (b["properties"]["type"].get("enum") or [b["properties"]["type"]["const"]])}
    assert statement_types == {"do", "may", "choose", "if", "fire", "run", "repeat", "while", "for_each"}
    assert statement_types == {c.__name__.lower().replace("foreach", "for_each") for c in m.Statement.__args__}
    for_each = next(b for b in _branches(schema, "statement") if b["properties"]["type"].get("const") == "for_each")
    assert set(for_each["properties"]["what"]["enum"]) == set(m.FOR_EACH)
    assert "verbs" in schema["required"] and "choice points" in schema["$defs"]["statement"]["description"]
    validator = Draft202012Validator(schema)
    catalogue = default_catalogue()
    for game, doc in exports.items():
        assert not list(validator.iter_errors(doc)), game
        assert set(doc["verbs"]) == _verbs_called([doc["entities"], doc["procedures"]]), game
        for name, verb in doc["verbs"].items():
            assert [p["name"] for p in verb["params"]] == [p.name for p in catalogue.verbs[name].params]
            assert verb["role"] == catalogue.verbs[name].role


def _verbs_called(x: Any) -> set[str]:
    """Every verb a call of a body, condition or trigger names (values of type `call` have no `role`)."""
    if isinstance(x, dict):
        found = {x["verb"]} if x.get("type") == "call" and "role" in x else set()
        return found.union(*(_verbs_called(v) for v in x.values()))
    if isinstance(x, list):
        return set().union(*(_verbs_called(v) for v in x))
    return set()
