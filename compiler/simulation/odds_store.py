"""The greedy bot's exact fight odds kept between runs, in the user's cache folder.

A process that plays the greedy bot enumerates each new fight it weighs (a loadout against a monster) once;
about 1,300 of them in the first 40 four-player games of the bundled content, 1,900 after 400, which make its
first games two to three times slower than later ones. The figures depend only on the rules, the runtime's
code, the variants and the fighter (`greedy.fight_key`: every field of it), so they are kept in one file per
rule package, expansions in play and runtime source (`<cache>/odds/<digest>.json`), read at a process's first
missing figure and merged back after each batch of games. A figure read is the one the enumeration gives:
the games are the same with or without the file (a damaged or foreign file is ignored). Off with
CARDC_CACHE=off, like every cache.

Beside it (`<digest>.choices.txt`) are the bot's answers to choices inside fights (`greedy.fight_choice`: each
new fight start and path of dice and answers is enumerated to the fight's end, about 6 a game still after
thousands of games), by `greedy.choice_key`: the option's index, or None where the enumeration could not
answer. They depend on the same things and are read the same way; new ones are appended after each batch.
"""

from __future__ import annotations

import functools
import json
import os
import tempfile
from pathlib import Path
from typing import Any

FOLDER = "odds"


@functools.cache
def _runtime_digest() -> str:
    from cardc.backends.python import RUNTIME_SOURCE
    from cardc.diskcache import digest

    parts: list[str | bytes] = []
    for src in sorted(RUNTIME_SOURCE.glob("*.py")):
        parts += [src.name, src.read_bytes()]
    return digest(*parts)


def path_for(package_digest: str, expansions: tuple[str, ...]) -> Path | None:
    """The file of one rule package with these expansions, or None when the cache is off."""
    from cardc.diskcache import cache_root, digest

    root = cache_root()
    if root is None:
        return None
    return root / FOLDER / f"{digest(package_digest, ','.join(expansions), _runtime_digest())}.json"


def read(path: Path) -> dict[str, float]:
    """The figures in `path` (none if it is missing or not a file this module wrote)."""
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(k, str) and type(v) is float and 0.0 <= v <= 1.0}


def choices_path(path: Path) -> Path:
    """The file of the fight answers kept beside the figures in `path`: a line per answer, `<key> <index>` (or
    `<key> none`), appended to (a run finds a few new ones in every game: the whole file is not written again)."""
    return path.with_name(f"{path.stem}.choices.txt")


def read_choices(path: Path) -> dict[str, int | None]:
    """The fight answers kept beside `path` (none if the file is missing; a line that is not one this module
    wrote, such as a last line cut short, is left out)."""
    try:
        text = choices_path(path).read_text(encoding="utf-8")
    except (OSError, ValueError):
        return {}
    found: dict[str, int | None] = {}
    for line in text.splitlines():
        parts = line.split(" ")
        if len(parts) != 2 or len(parts[0]) != 32:
            continue
        if parts[1] == "none":
            found[parts[0]] = None
        elif parts[1].isdigit() and parts[1].isascii():
            found[parts[0]] = int(parts[1])
    return found


def merge_choices(path: Path, fresh: dict[str, int | None]) -> None:
    """Append `fresh` to the fight answers kept beside `path`, one process at a time (the lock of `merge`).
    Errors are ignored (a cache)."""
    if not fresh:
        return
    # (each line begins with its newline: a line a failed write cut short ends there, and the next one is whole)
    lines = "".join(f"\n{k} {'none' if v is None else v}" for k, v in fresh.items())
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path.parent / ".lock", "a", encoding="utf-8") as lock:
            _lock(lock)
            with open(choices_path(path), "a", encoding="utf-8") as out:
                out.write(lines)
    except OSError:
        pass


def _lock(lock: Any) -> None:
    try:
        import fcntl

        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
    except ImportError:  # (Windows: merges may then drop each other's figures, computed again later)
        pass


def merge(path: Path, fresh: dict[str, float]) -> None:
    """Add `fresh` to the figures in `path` (read again: other processes may have added theirs), written to a
    temporary file and renamed, so a reader never sees half a file; the workers of a run merge one at a time
    (a lock file, where the platform has `fcntl`), so none loses another's figures. Errors are ignored (a
    cache)."""
    if not fresh:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path.parent / ".lock", "a", encoding="utf-8") as lock:
            _lock(lock)
            figures = read(path)
            figures.update(fresh)
            fd, tmp = tempfile.mkstemp(prefix=".odds-", dir=path.parent)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as out:
                    json.dump(figures, out, sort_keys=True, separators=(",", ":"))
                os.replace(tmp, path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        _prune(path)
    except OSError:
        pass


KEEP = 16  # stores kept in the folder (one per rule package, expansions and runtime version): the newest


def _prune(keep: Path) -> None:
    """Remove all but the newest KEEP stores of the folder (`keep` stays), the answers beside each too."""
    try:
        files = sorted(((p.stat().st_mtime, p) for p in keep.parent.glob("*.json") if p != keep), reverse=True)
    except OSError:
        return
    for _, old in files[KEEP - 1:]:
        old.unlink(missing_ok=True)
        choices_path(old).unlink(missing_ok=True)
