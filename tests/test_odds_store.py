"""The greedy bot's exact odds and fight answers kept between runs (`cardc.simulation.odds_store`): a run that
reads them plays the same games as one that computes them, and it does read them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from cardc.simulation import odds_store

ROOT = Path(__file__).resolve().parent.parent

# Plays greedy games of the bundled content in a fresh process (the store is read once per process) and prints
# a digest of every game's record and how many figures that process computed itself.
PLAY = """
import hashlib, sys
from pathlib import Path
from cardc.frontend import compile_paths
from cardc.simulation import jobs, runner, table

project = compile_paths([Path(sys.argv[1])]).project
files, digest = jobs.package_files(project, "karak")
job = table.validate(jobs.Job("karak", files, digest, 3, ("regent",), (), "greedy"))
computed, answered = [], []
real_merge, real_choices = table.odds_store.merge, table.odds_store.merge_choices
table.odds_store.merge = lambda path, fresh: (computed.append(len(fresh)), real_merge(path, fresh))
table.odds_store.merge_choices = lambda path, fresh: (answered.append(len(fresh)), real_choices(path, fresh))
order = list(range(int(sys.argv[2])))
records = runner.play_batch(job, 5, order[::-1] if sys.argv[3] == "reversed" else order)
games = sorted(repr(r) for r in records)  # (the same games in another order: the same digest)
print(hashlib.sha256(repr(games).encode()).hexdigest(), sum(computed), sum(answered))
"""


def _play(cache: Path | None, games: int = 3, reverse: bool = False) -> tuple[str, int, int]:
    env = {k: v for k, v in os.environ.items() if k not in ("CARDC_CACHE_DIR", "CARDC_CACHE")}
    env.update({"CARDC_RUNTIME": "python", **({"CARDC_CACHE_DIR": str(cache)} if cache else {"CARDC_CACHE": "off"})})
    out = subprocess.run([sys.executable, "-c", PLAY, str(ROOT / "content"), str(games),
                          "reversed" if reverse else "in order"], env=env,
                         capture_output=True, text=True, check=True).stdout.split()
    return out[0], int(out[1]), int(out[2])


def test_stored_odds_give_the_same_games_and_are_read(tmp_path: Path) -> None:
    without, _, _ = _play(None)  # the cache off: nothing read or written
    first, computed, answered = _play(tmp_path)
    assert first == without and computed > 50 and answered > 5
    figures = list((tmp_path / odds_store.FOLDER).glob("*.json"))
    assert len(figures) == 1 and len(odds_store.read(figures[0])) == computed
    assert len(odds_store.read_choices(figures[0])) == answered
    again, computed_again, answered_again = _play(tmp_path)
    assert again == first and computed_again == 0 and answered_again == 0  # all read from the store
    # another process meets the fights in another order (as a worker of a run given other games does): it finds
    # every answer too. A fight start is kept by what a fight can tell apart (`greedy._state`), not by every field
    # of the first fighter a process met (two were answered again so in these 12 games); a few win chances are
    # enumerated again, being kept by every field of the first fighter a process asked about.
    other = tmp_path / "other"
    in_order, _, answered = _play(other, games=12)
    reversed_games, _, answered_reversed = _play(other, games=12, reverse=True)
    assert reversed_games == in_order and answered > 100 and answered_reversed == 0
    # answers that are not the enumeration's change the games: the store is what the second run used
    choices = odds_store.choices_path(figures[0])
    kept = choices.read_text(encoding="utf-8")
    choices.write_text("".join(f"{k} {1 - v if v in (0, 1) else v}\n"
                               for k, v in odds_store.read_choices(figures[0]).items()), encoding="utf-8")
    assert _play(tmp_path)[0] != first
    choices.write_text(kept, encoding="utf-8")
    # and so do figures that are not the enumeration's
    figures[0].write_text(json.dumps({k: 1.0 - v for k, v in odds_store.read(figures[0]).items()}),
                          encoding="utf-8")
    assert _play(tmp_path)[0] != first


def test_a_damaged_store_is_ignored(tmp_path: Path) -> None:
    path = tmp_path / "odds.json"
    for text in ("{not json", "[1, 2]", '{"a": "x", "b": 2, "c": 0.5, "d": 7.0}'):
        path.write_text(text, encoding="utf-8")
        assert odds_store.read(path) == ({"c": 0.5} if "c" in text else {})
    odds_store.merge(path, {"e": 0.25})
    assert odds_store.read(path) == {"c": 0.5, "e": 0.25}
    assert odds_store.read(tmp_path / "missing.json") == {}
    choices = odds_store.choices_path(path)
    c, d, g = "c" * 32, "d" * 32, "g" * 32
    choices.write_text(f"{{not a line\n{'a' * 32} -1\n{'b' * 32} 1.5\n{c} 1\nshort 2\n{d} none\n{'e' * 32} 3 4\n"
                       f"{'f' * 32} ²\n{'h' * 32}", encoding="utf-8")  # (the last one cut short, as a write is)
    assert odds_store.read_choices(path) == {c: 1, d: None}
    odds_store.merge_choices(path, {g: 0})  # (appended after the line cut short, on a line of its own)
    assert odds_store.read_choices(path) == {c: 1, d: None, g: 0}
    odds_store.merge_choices(path, {g: 0, d: 2})  # (found again by another process: the last one read)
    assert odds_store.read_choices(path) == {c: 1, d: 2, g: 0}
    assert odds_store.read(path) == {"c": 0.5, "e": 0.25}  # (the figures beside them untouched)
    assert odds_store.read_choices(tmp_path / "missing.json") == {}


def test_workers_merging_at_once_lose_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Workers of one run merge their figures at the same time: each merge reads the file again under a lock,
    so none writes over another's figures (a slow read makes the race certain without the lock)."""
    path = tmp_path / "odds" / "x.json"
    real_read = odds_store.read

    def slow_read(p: Path) -> dict[str, float]:
        time.sleep(0.05)
        return real_read(p)

    monkeypatch.setattr(odds_store, "read", slow_read)
    threads = [threading.Thread(target=odds_store.merge, args=(path, {f"k{i}": i / 10})) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert real_read(path) == {f"k{i}": i / 10 for i in range(6)}


def test_old_files_are_pruned(tmp_path: Path) -> None:
    for i in range(odds_store.KEEP + 4):
        old = tmp_path / f"old{i:02}.json"
        old.write_text("{}", encoding="utf-8")
        os.utime(old, (1000 + i, 1000 + i))
    odds_store.merge(tmp_path / "new.json", {"a": 0.5})
    left = sorted(p.name for p in tmp_path.glob("*.json"))
    assert len(left) == odds_store.KEEP and "new.json" in left and "old00.json" not in left and "old19.json" in left
