"""Sprite-sheet geometry for Tabletop Simulator custom decks, and the sheet images themselves.

TTS cuts a deck image into a grid of NumWidth x NumHeight cells (at most 10 x 7, at least 2 x 2) and
shows the LAST cell as the face of a card in another player's hand when `BackIsHidden` is false. So a
sheet holds at most 69 cards, and its last cell is the hidden face. A card's CardID is
`deck_number * 100 + cell index`, cells counted left to right, top to bottom from 0.
"""

from __future__ import annotations

import math

from PIL import Image

MAX_COLS = 10
MAX_ROWS = 7
CARDS_PER_SHEET = MAX_COLS * MAX_ROWS - 1  # the last cell is the hidden face
MAX_SHEET_PX = 4096  # the largest sheet side TTS loads everywhere
MAX_PX_PER_MM = 6.0  # about 150 dpi: sharp on the table, small files


def grid(cards: int) -> tuple[int, int]:
    """Columns and rows for `cards` cards plus the hidden face."""
    if not 1 <= cards <= CARDS_PER_SHEET:
        raise ValueError(f"a sheet holds 1 to {CARDS_PER_SHEET} cards, not {cards}")
    cells = cards + 1
    cols = max(2, min(MAX_COLS, cells))
    rows = max(2, math.ceil(cells / cols))
    return cols, rows


def hidden_index(cols: int, rows: int) -> int:
    return cols * rows - 1


def cell_size(w_mm: float, h_mm: float, cols: int, rows: int) -> tuple[int, int]:
    """Pixel size of one cell: the card's aspect ratio, the whole sheet within MAX_SHEET_PX."""
    k = min(MAX_PX_PER_MM, MAX_SHEET_PX / (cols * w_mm), MAX_SHEET_PX / (rows * h_mm))
    return max(16, int(w_mm * k)), max(16, int(h_mm * k))


def chunks(items: list, size: int = CARDS_PER_SHEET) -> list[list]:  # type: ignore[type-arg]
    return [items[i:i + size] for i in range(0, len(items), size)]


def compose(faces: list[Image.Image], hidden: Image.Image, cols: int, rows: int, cell: tuple[int, int],
            blank: str = "#808080") -> Image.Image:
    """The sheet: faces in reading order, the hidden face in the last cell, unused cells blank."""
    w, h = cell
    sheet = Image.new("RGB", (cols * w, rows * h), blank)
    for i, face in enumerate(faces):
        sheet.paste(face, ((i % cols) * w, (i // cols) * h))
    last = hidden_index(cols, rows)
    sheet.paste(hidden, ((last % cols) * w, (last // cols) * h))
    return sheet


def png_bytes(img: Image.Image) -> bytes:
    """PNG bytes, identical for identical pixels (the print backend's fast writer: no row filters, zlib level 1,
    several times faster than Pillow's for these large sheets)."""
    from cardc.backends.print.png import encode_png

    return encode_png(img, 96)
