"""The greedy bot's exact fight odds kept between runs, in the user's cache folder.

A process that plays the greedy bot enumerates each new fight it weighs (a loadout against a monster) once;
about 1,300 of them in the first 40 four-player games of the bundled content, 1,900 after 400, which make its
first games two to three times slower than later ones. The figures depend only on the rules, the runtime's
code, the variants and the fighter (`greedy.fight_key`: every field of it), so they are kept in one file per
rule package, expansions in play and runtime source (`<cache>/odds/<digest>.odds.txt`), read at a process's
first missing figure, and the new ones appended after each batch of games: a line per figure, `<key> <chance>`
(appended, not the whole file written again: a run of 100,000 games merges after each of its 2,000 batches,
and rewriting a file of a few thousand figures cost 5-8 ms each time). A figure read is the one the
enumeration gives: the games are the same with or without the file (a line that is not one this module wrote,
such as a last line cut short, is left out). Off with CARDC_CACHE=off, like every cache.

Beside it (`<digest>.choices.txt`) are the bot's answers to choices inside fights (`greedy.fight_choice`: each
new fight start and path of dice and answers is enumerated to the fight's end, about 6 a game still after
thousands of games), by `greedy.choice_key`: the option's index, or None where the enumeration could not
answer. They depend on the same things and are kept the same way.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

FOLDER = "odds"
ODDS = ".odds.txt"  # (the ending of a figures file's name)
CHOICES = ".choices.txt"  # (and of the answers beside it)
_KEY = re.compile(r"[0-9a-f]{32}")
_DIGEST = re.compile(r"[0-9a-f]{40}")


@functools.cache
def _runtime_digest() -> str:
    from cardc.backends.python import RUNTIME_SOURCE
    from cardc.diskcache import digest

    parts: list[str | bytes] = []
    for src in sorted(RUNTIME_SOURCE.glob("*.py")):
        parts += [src.name, src.read_bytes()]
    return digest(*parts)


def path_for(package_digest: str, expansions: tuple[str, ...]) -> Path | None:
    """The figures file of one rule package with these expansions, or None when the cache is off."""
    from cardc.diskcache import cache_root, digest

    root = cache_root()
    if root is None:
        return None
    return root / FOLDER / f"{digest(package_digest, ','.join(expansions), _runtime_digest())}{ODDS}"


def _stem(path: Path) -> str:
    name = path.name
    return name[:-len(ODDS)] if name.endswith(ODDS) else path.stem


def choices_path(path: Path) -> Path:
    """The file of the fight answers kept beside the figures in `path`: a line per answer, `<key> <index>` (or
    `<key> none`)."""
    return path.with_name(f"{_stem(path)}{CHOICES}")


def _parse(text: str) -> list[list[str]]:
    """The whole lines of `text` that are a key this module writes and one value. Each line ends with its
    newline: the last one without it may be cut short and is left out, and a line a failed write cut short runs
    into the next one, which then has more than two parts and is left out too."""
    return [parts for line in text.split("\n")[:-1]
            if len(parts := line.split(" ")) == 2 and _KEY.fullmatch(parts[0])]


def _figures(lines: list[list[str]]) -> dict[str, float]:
    found: dict[str, float] = {}
    for key, value in lines:
        try:
            chance = float(value)
        except ValueError:
            continue
        if 0.0 <= chance <= 1.0:
            found[key] = chance
    return found


def _answers(lines: list[list[str]]) -> dict[str, int | None]:
    found: dict[str, int | None] = {}
    for key, value in lines:
        if value == "none":
            found[key] = None
        elif value.isdigit() and value.isascii():
            found[key] = int(value)
    return found


def read(path: Path) -> dict[str, float]:
    """The figures in `path`: chances from 0 to 1 (none if the file is missing)."""
    return Reader(path).odds()


def read_choices(path: Path) -> dict[str, int | None]:
    """The fight answers kept beside the figures in `path`."""
    return Reader(path).choices()


class Reader:
    """One store read by a process: whole at its first call, then only the whole lines appended since (by the
    other workers of the run, and its own). The workers of a first run then share what each enumerated: a
    figure one worker computed is not enumerated again by another once it has caught up (`Table.keep_odds`,
    after each batch). A file that shrank (replaced) is read whole again."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.read_to: dict[Path, int] = {}  # file -> the offset up to which its whole lines were read

    def odds(self) -> dict[str, float]:
        """The figures not read yet."""
        return _figures(self._new_lines(self.path))

    def choices(self) -> dict[str, int | None]:
        """The fight answers not read yet."""
        return _answers(self._new_lines(choices_path(self.path)))

    def _new_lines(self, path: Path) -> list[list[str]]:
        at = self.read_to.get(path, 0)
        try:
            with open(path, "rb") as f:
                if f.seek(0, 2) < at:
                    at = 0
                f.seek(at)
                data = f.read()
        except OSError:
            return []
        end = data.rfind(b"\n") + 1  # (a last line without its newline is read once it has it)
        self.read_to[path] = at + end
        return _parse(data[:end].decode("utf-8", errors="replace"))


def merge(path: Path, fresh: dict[str, float]) -> None:
    """Append `fresh` to the figures in `path` (a float's `repr` reads back as the same float)."""
    _append(path, path, "".join(f"{k} {v!r}\n" for k, v in fresh.items()))


def merge_choices(path: Path, fresh: dict[str, int | None]) -> None:
    """Append `fresh` to the fight answers kept beside the figures in `path`."""
    _append(path, choices_path(path), "".join(f"{k} {'none' if v is None else v}\n" for k, v in fresh.items()))


def _append(figures: Path, target: Path, lines: str) -> None:
    """Append `lines` to `target`, one process at a time (a lock file, where the platform has `fcntl`: the
    workers of a run append at once); a new file may push the oldest stores out (`_prune`). Errors are ignored
    (a cache)."""
    if not lines:
        return
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        new = not target.exists()
        with open(target.parent / ".lock", "a", encoding="utf-8") as lock:
            _lock(lock)
            with open(target, "a", encoding="utf-8") as out:
                out.write(lines)
        if new:
            _prune(figures)
    except OSError:
        pass


def _lock(lock: Any) -> None:
    try:
        import fcntl

        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
    except ImportError:  # (Windows: appends of two workers may then mix, and the lines mixed are left out)
        pass


KEEP = 16  # stores kept in the folder (one per rule package, expansions and runtime version): the newest


def _prune(keep: Path) -> None:
    """Remove all but the newest KEEP stores of the folder (`keep` stays), the answers beside each too; and
    the stores of earlier versions of this module (`<digest>.json` and the answers beside them), never read."""
    folder = keep.parent
    try:
        files = sorted(((p.stat().st_mtime, p) for p in folder.glob(f"*{ODDS}") if p != keep), reverse=True)
        old = [p for p in folder.glob("*.json") if _DIGEST.fullmatch(p.stem)]
    except OSError:
        return
    for _, gone in files[KEEP - 1:]:
        gone.unlink(missing_ok=True)
        choices_path(gone).unlink(missing_ok=True)
    for gone in old:
        gone.unlink(missing_ok=True)
        if not gone.with_name(f"{gone.stem}{ODDS}").exists():  # (else the answers are this version's too)
            gone.with_name(f"{gone.stem}{CHOICES}").unlink(missing_ok=True)
