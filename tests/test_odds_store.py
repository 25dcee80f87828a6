"""The greedy bot's exact odds and fight answers kept between runs (`cardc.simulation.odds_store`): a run that
reads them plays the same games as one that computes them, and it does read them."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

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
    figures = list((tmp_path / odds_store.FOLDER).glob(f"*{odds_store.ODDS}"))
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
    figures[0].write_text("".join(f"{k} {1.0 - v!r}\n" for k, v in odds_store.read(figures[0]).items()),
                          encoding="utf-8")
    assert _play(tmp_path)[0] != first


def test_a_damaged_store_is_ignored(tmp_path: Path) -> None:
    """Lines that are not a key and a chance (or an answer) are left out, and so is a last line without its
    newline (a write cut short); one cut short in the middle runs into the next line, which is left out too."""
    path = tmp_path / f"{'0' * 40}{odds_store.ODDS}"
    a, c, e, f = "a" * 32, "c" * 32, "e" * 32, "f" * 32
    path.write_text(f"{{not a line\n{a} x\n{'b' * 32} 2\n{c} 0.5\n{'d' * 32} 7.0\nshort 0.5\n{f} nan\n"
                    f"{'9' * 32} 0.2{'8' * 32} 0.75\n{'7' * 32} 0.3", encoding="utf-8")
    assert odds_store.read(path) == {c: 0.5}
    odds_store.merge(path, {e: 0.25})  # (the line cut short and this one run together: both left out)
    assert odds_store.read(path) == {c: 0.5}
    odds_store.merge(path, {e: 0.25, f: 1 / 3})
    assert odds_store.read(path) == {c: 0.5, e: 0.25, f: 1 / 3}
    assert odds_store.read(tmp_path / "missing.odds.txt") == {}
    choices = odds_store.choices_path(path)
    assert choices.name == f"{'0' * 40}{odds_store.CHOICES}"
    d, g = "d" * 32, "5" * 32
    choices.write_text(f"{{not a line\n{a} -1\n{'b' * 32} 1.5\n{c} 1\nshort 2\n{d} none\n{e} 3 4\n"
                       f"{f} ²\n", encoding="utf-8")
    assert odds_store.read_choices(path) == {c: 1, d: None}
    odds_store.merge_choices(path, {g: 0})
    assert odds_store.read_choices(path) == {c: 1, d: None, g: 0}
    odds_store.merge_choices(path, {g: 0, d: 2})  # (found again by another process: the last one read)
    assert odds_store.read_choices(path) == {c: 1, d: 2, g: 0}
    assert odds_store.read(path) == {c: 0.5, e: 0.25, f: 1 / 3}  # (the figures beside them untouched)
    assert odds_store.read_choices(tmp_path / "missing.odds.txt") == {}


def test_workers_appending_at_once_lose_nothing(tmp_path: Path) -> None:
    """Workers of one run append their figures at the same time, one at a time under a lock: every line is
    whole and none is lost."""
    path = tmp_path / "odds" / f"x{odds_store.ODDS}"
    fresh = [{f"{i:02}{j:030}": (i * 100 + j) / 1000 for j in range(100)} for i in range(8)]
    threads = [threading.Thread(target=odds_store.merge, args=(path, part)) for part in fresh]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert odds_store.read(path) == {k: v for part in fresh for k, v in part.items()}


def test_old_files_are_pruned(tmp_path: Path) -> None:
    """A new store pushes out all but the newest KEEP, and the stores of the earlier file format (never read)."""
    for i in range(odds_store.KEEP + 4):
        old = tmp_path / f"old{i:02}{odds_store.ODDS}"
        old.write_text("", encoding="utf-8")
        os.utime(old, (1000 + i, 1000 + i))
    legacy = tmp_path / f"{'1' * 40}.json"
    legacy.write_text("{}", encoding="utf-8")
    odds_store.choices_path(legacy).write_text("", encoding="utf-8")
    mine = tmp_path / "notes.json"  # (not a store's name: left alone)
    mine.write_text("{}", encoding="utf-8")
    odds_store.merge(tmp_path / f"new{odds_store.ODDS}", {"a" * 32: 0.5})
    left = sorted(p.name for p in tmp_path.glob(f"*{odds_store.ODDS}"))
    assert len(left) == odds_store.KEEP and f"new{odds_store.ODDS}" in left
    assert f"old00{odds_store.ODDS}" not in left and f"old19{odds_store.ODDS}" in left
    assert not legacy.exists() and not odds_store.choices_path(legacy).exists() and mine.exists()


def test_a_reader_takes_only_the_whole_lines_appended_since(tmp_path: Path) -> None:
    """`Reader` reads a store whole at first, then only what was appended since, a line once it is whole; a
    store that shrank (written again) is read whole again."""
    path = tmp_path / f"x{odds_store.ODDS}"
    a, b, c, d = "a" * 32, "b" * 32, "c" * 32, "d" * 32
    reader = odds_store.Reader(path)
    assert reader.odds() == {} and reader.choices() == {}  # (no file yet)
    odds_store.merge(path, {a: 0.5})
    with open(path, "a", encoding="utf-8") as f:
        f.write(f"{b} 0.2")  # (a line being written: not whole yet)
    assert reader.odds() == {a: 0.5}
    assert reader.odds() == {}  # nothing new
    with open(path, "a", encoding="utf-8") as f:
        f.write("5\n")
    odds_store.merge(path, {c: 0.75})
    assert reader.odds() == {b: 0.25, c: 0.75}
    odds_store.merge_choices(path, {d: 2})
    assert reader.choices() == {d: 2} and reader.choices() == {}
    path.write_text(f"{d} 1.0\n", encoding="utf-8")
    assert reader.odds() == {d: 1.0}


# Worker A of a run: plays game 0, says so, waits, catches up with the store (as after every batch of a run),
# then plays games 1-3 and prints their digest and how many figures and answers it computed for them.
WORKER = """
import hashlib, sys
from pathlib import Path
from cardc.frontend import compile_paths
from cardc.simulation import jobs, runner, table

project = compile_paths([Path(sys.argv[1])]).project
files, digest = jobs.package_files(project, "karak")
job = table.validate(jobs.Job("karak", files, digest, 3, ("regent",), (), "greedy"))
runner.play_batch(job, 5, [0])
print("ready", flush=True)
sys.stdin.readline()
if sys.argv[2] == "catch up":
    table.table_for(job).keep_odds()
computed, answered = [], []
real_merge, real_choices = table.odds_store.merge, table.odds_store.merge_choices
table.odds_store.merge = lambda path, fresh: (computed.append(len(fresh)), real_merge(path, fresh))
table.odds_store.merge_choices = lambda path, fresh: (answered.append(len(fresh)), real_choices(path, fresh))
records = runner.play_batch(job, 5, [1, 2, 3])
print(hashlib.sha256(repr(sorted(repr(r) for r in records)).encode()).hexdigest(), sum(computed), sum(answered))
"""

SECOND = """
import hashlib, sys
from pathlib import Path
from cardc.frontend import compile_paths
from cardc.simulation import jobs, runner, table

project = compile_paths([Path(sys.argv[1])]).project
files, digest = jobs.package_files(project, "karak")
job = table.validate(jobs.Job("karak", files, digest, 3, ("regent",), (), "greedy"))
records = runner.play_batch(job, 5, [1, 2, 3])
print(hashlib.sha256(repr(sorted(repr(r) for r in records)).encode()).hexdigest())
"""


def _worker_a(cache: Path, catch_up: bool) -> tuple[str, int, int, str]:
    """Worker A (WORKER) and, while it waits, worker B playing games 1-3 into the same store: A's digest and
    counts for games 1-3, and B's digest."""
    env = {k: v for k, v in os.environ.items() if k not in ("CARDC_CACHE_DIR", "CARDC_CACHE")}
    env.update({"CARDC_RUNTIME": "python", "CARDC_CACHE_DIR": str(cache)})
    a = subprocess.Popen([sys.executable, "-c", WORKER, str(ROOT / "content"),
                          "catch up" if catch_up else "no"], env=env, stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True)
    assert a.stdin is not None and a.stdout is not None
    try:
        assert a.stdout.readline().strip() == "ready"
        b = subprocess.run([sys.executable, "-c", SECOND, str(ROOT / "content")], env=env, capture_output=True,
                           text=True, check=True).stdout.strip()
        out, _ = a.communicate("go\n", timeout=600)
    finally:
        a.kill()
    digest, computed, answered = out.split()
    return digest, int(computed), int(answered), b


def test_workers_of_a_run_take_what_the_others_stored(tmp_path: Path) -> None:
    """Worker A reads the store at its first miss; worker B then enumerates games 1-3 and stores what it found.
    A, having caught up with the store (as it does after every batch), plays games 1-3 enumerating nothing, and
    plays them as B did; without catching up it enumerates them again."""
    digest, computed, answered, b = _worker_a(tmp_path / "shared", catch_up=True)
    assert digest == b and computed == 0 and answered == 0
    digest, computed, answered, b = _worker_a(tmp_path / "alone", catch_up=False)
    assert digest == b and computed > 10 and answered > 0
