"""`--sweep KEY=VALUES`: a grid of set-ups, one cell per combination, each played with the same seed.

Keys: players (`2..5` or `2,4`), variant and expansion (`none,critical_hits`; `a+b` switches two on in one
cell), bot (`random,greedy`). Every cell uses the same per-game seeds, so cells differ only by the setting.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

KEYS = ("players", "variant", "expansion", "bot")


class SweepError(ValueError):
    """A sweep that cannot be read; the message says what is wrong."""


@dataclass(frozen=True)
class Axis:
    key: str
    values: tuple[str, ...]


def parse_axis(text: str) -> Axis:
    key, sep, values = text.partition("=")
    key = key.strip()
    if not sep or not values.strip():
        raise SweepError(f"--sweep {text!r}: write KEY=VALUES, e.g. players=2..5 or variant=none,critical_hits")
    if key not in KEYS:
        raise SweepError(f"--sweep {text!r}: unknown key `{key}`; known: {', '.join(KEYS)}")
    if key == "players":
        return Axis(key, tuple(str(n) for n in _players(values.strip(), text)))
    items = tuple(v.strip() for v in values.split(",") if v.strip())
    if len(set(items)) != len(items):
        raise SweepError(f"--sweep {text!r}: a value is repeated")
    return Axis(key, items)


def _players(values: str, text: str) -> list[int]:
    out: list[int] = []
    try:
        for part in values.split(","):
            low, dots, high = part.partition("..")
            out.extend(range(int(low), int(high) + 1) if dots else [int(low)])
    except ValueError:
        raise SweepError(f"--sweep {text!r}: players are numbers or ranges such as 2..5") from None
    if not out or min(out) < 1:
        raise SweepError(f"--sweep {text!r}: no valid player count")
    return out


def cells(axes: list[Axis]) -> list[dict[str, str]]:
    """Every combination, the first axis varying slowest; the same key twice is refused."""
    keys = [a.key for a in axes]
    if len(set(keys)) != len(keys):
        raise SweepError("each --sweep key may be given once")
    return [dict(zip(keys, combo, strict=True)) for combo in product(*(a.values for a in axes))]


def switched(value: str) -> tuple[str, ...]:
    """`none` -> (), `a+b` -> (a, b)."""
    return () if value == "none" else tuple(v for v in value.split("+") if v)


def cell_label(cell: dict[str, str]) -> str:
    return ", ".join(f"{k}={v}" for k, v in cell.items())
