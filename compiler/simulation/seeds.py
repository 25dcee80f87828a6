"""Per-game seeds: game i of a run with seed S always gets the same seed, whichever worker plays it."""

from __future__ import annotations

import hashlib


def game_seed(seed: int, index: int) -> int:
    """A 63-bit seed derived from (S, i) by a hash, so neighbouring games get unrelated dice."""
    digest = hashlib.blake2b(f"cardc-simulate/{seed}/{index}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


def batches(indices: range | list[int], size: int) -> list[list[int]]:
    """Game indices cut into batches of at most `size` (the unit of work sent to a process or a Ray task)."""
    items = list(indices)
    return [items[i:i + size] for i in range(0, len(items), max(1, size))]


def batch_size(games: int, workers: int) -> int:
    """Small enough that every worker gets several batches (load balance, a smooth progress bar), large
    enough that sending one costs little next to playing it."""
    return max(1, min(50, games // max(1, workers * 8)))
