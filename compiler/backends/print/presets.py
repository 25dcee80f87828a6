"""Physical sizes in millimetres: card-size presets, the names kinds use for them, and paper sizes.

A kind says `size: token`; this table turns that name into a trim size and a cut shape. The tile, token
and sheet sizes are the usual print-and-play approximations, not measurements of any box.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class CardSize:
    """A trim size in mm and the shape the card is cut to (`rect` or `round`)."""

    name: str
    w: float
    h: float
    shape: str = "rect"
    radius: float = 3.0  # corner radius of the printed frame, for rectangular cards


PRESETS: dict[str, CardSize] = {
    "poker": CardSize("poker", 63, 88),
    "bridge": CardSize("bridge", 57, 89),
    "mini_euro": CardSize("mini_euro", 44, 68),
    "euro": CardSize("euro", 59, 92),
    "mini_american": CardSize("mini_american", 41, 63),
    "tarot": CardSize("tarot", 70, 120),
    "square": CardSize("square", 70, 70, radius=1.5),
    "catacomb_tile": CardSize("catacomb_tile", 70, 70, radius=0),
    "token": CardSize("token", 30, 30, shape="round"),
    "large_token": CardSize("large_token", 40, 40, shape="round"),
    "hero_sheet": CardSize("hero_sheet", 105, 148, radius=4),
    "standee": CardSize("standee", 30, 60, radius=1),
}

# Other names designers use for the same presets.
ALIASES: dict[str, str] = {
    "card": "poker",
    "standard": "poker",
    "mini": "mini_euro",
    "tile": "catacomb_tile",
    "square_tile": "square",
    "sheet": "hero_sheet",
    "a6": "hero_sheet",
    "large": "tarot",
    "small_card": "mini_euro",
    "character_card": "tarot",
    "figure": "standee",
}

PAPERS: dict[str, tuple[float, float]] = {
    "a4": (210.0, 297.0),
    "letter": (215.9, 279.4),
}


def card_size(name: str) -> CardSize | None:
    """The preset a kind's `size` names, or None if nothing is known by that name."""
    key = name.lower()
    return PRESETS.get(ALIASES.get(key, key))


def known_sizes() -> list[str]:
    return sorted([*PRESETS, *ALIASES])
