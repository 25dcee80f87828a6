"""Sprite-sheet geometry for Tabletop Simulator custom decks, and the sheet images themselves.

TTS cuts a deck image into a grid of NumWidth x NumHeight cells (at most 10 x 7, at least 2 x 2) and
shows the LAST cell as the face of a card in another player's hand when `BackIsHidden` is false. So a
sheet holds at most 69 cards, and its last cell is the hidden face. A card's CardID is
`deck_number * 100 + cell index`, cells counted left to right, top to bottom from 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from cardc.backends.print.png import SCREEN_DPI
from PIL import Image

MAX_COLS = 10
MAX_ROWS = 7
CARDS_PER_SHEET = MAX_COLS * MAX_ROWS - 1  # the last cell is the hidden face
MAX_SHEET_PX = 4096  # the largest sheet side TTS loads everywhere
# 150 dpi: sharp on the table, small files; the print backend rasterizes its faces at this size too (`png.screen_of`)
MAX_PX_PER_MM = SCREEN_DPI / 25.4


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


@dataclass(frozen=True, slots=True)
class Rows:
    """A cell's pixels as unfiltered PNG rows (each a 0 byte, then the row's RGB pixels): a print backend screen
    face, pasted and written as it was read, never made a Pillow image."""

    size: tuple[int, int]
    data: bytes


Cell = Image.Image | Rows


class SheetCanvas:
    """A sheet's pixels kept as the rows of an unfiltered PNG (a 0 filter byte, then the row's RGB pixels), so the
    finished sheet is deflated as it is: no composed image copied out of Pillow row by row and joined again.
    Cells are counted left to right, top to bottom from 0; cells nothing is pasted into are `blank`.

    `reuse`: a finished canvas whose memory this one takes if the sheets have the same size (the sheets of a deck
    mostly do): a new sheet's tens of megabytes are zeroed and faulted in by the kernel page by page, about as
    long as pasting its cells. Every pixel byte is written again (pasted or blank) and no filter byte ever is."""

    def __init__(self, cols: int, rows: int, cell: tuple[int, int], blank: tuple[int, int, int] = (128, 128, 128),
                 reuse: SheetCanvas | None = None):
        self.cols, self.rows = cols, rows
        self.cell = cell
        self.blank = blank
        self.width, self.height = cols * cell[0], rows * cell[1]
        self.stride = 3 * self.width + 1
        self.rows_data: bytearray
        if reuse is not None and (reuse.width, reuse.height) == (self.width, self.height) and reuse.rows_data:
            self.rows_data, reuse.rows_data, reuse._mapped = reuse.rows_data, bytearray(), None
        else:
            self.rows_data = bytearray(self.stride * self.height)  # zeros: every filter byte is 0 already
        self.empty = set(range(cols * rows))
        self._mapped: Any = None  # `rows_data` seen by Pillow as a greyscale image `stride` bytes wide (no copy)

    def paste(self, index: int, image: Cell) -> None:
        """`image` (the cell's size) into cell `index`."""
        if image.size != self.cell:
            raise ValueError(f"a {image.size} image in a {self.cell} cell")
        if isinstance(image, Rows):
            self._put_rows(index, image.data)
        else:
            self._put(index, image.tobytes() if image.mode == "RGB" else image.convert("RGB").tobytes())

    def _put(self, index: int, pixels: bytes, stride: int = 0, start: int = 0) -> None:
        """The cell's rows from `pixels`: each `stride` bytes apart (default: packed) from `start`."""
        w, h = self.cell
        src, out = memoryview(pixels), memoryview(self.rows_data)
        row = 3 * w
        at = (index // self.cols) * h * self.stride + 1 + 3 * (index % self.cols) * w
        step = stride or row
        for y in range(start, start + h * step, step):
            out[at:at + row] = src[y:y + row]
            at += self.stride
        self.empty.discard(index)

    def _put_rows(self, index: int, rows: bytes) -> None:
        """A cell's PNG rows (each a 0 filter byte, then the row's pixels) into cell `index`, by Pillow's paste in C:
        the rows, filter bytes and all, seen as a greyscale image one byte wider than the cell's pixels, go one byte
        left of the cell, over the column of the sheet's bytes just before it (the cell on its left, or the sheet's
        filter bytes), which is put back after. A Python loop over the cell's rows took 0.16 ms a 150 dpi face,
        this takes 0.05."""
        w, h = self.cell
        x, y = 3 * w * (index % self.cols), (index // self.cols) * h
        if self._mapped is None:
            self._mapped = Image.frombuffer("L", (self.stride, self.height), self.rows_data, "raw", "L", 0, 1).im
        start = y * self.stride + x
        end = start + h * self.stride
        kept = self.rows_data[start:end:self.stride]
        # the core's paste writes into `rows_data` itself (the Python image says it is read-only, so its `paste`
        # would copy it first)
        cell = Image.frombuffer("L", (3 * w + 1, h), rows, "raw", "L", 0, 1)
        self._mapped.paste(cell.im, (x, y, x + 3 * w + 1, y + h))
        self.rows_data[start:end:self.stride] = kept
        self.empty.discard(index)

    def png(self, dpi: int = 96) -> bytes:
        from cardc.backends.print.png import _png  # the print backend's writer of ready PNG rows

        if self.empty:
            blank = bytes(self.blank) * (self.cell[0] * self.cell[1])
            for index in sorted(self.empty):
                self._put(index, blank)
        return _png(self.width, self.height, dpi, self.rows_data)


def png_bytes(img: Cell) -> bytes:
    """PNG bytes of one image, identical for identical pixels (the print backend's fast writer: no row filters,
    ISA-L's deflate, several times faster than Pillow's)."""
    from cardc.backends.print.png import _png, encode_png

    if isinstance(img, Rows):
        return _png(*img.size, 96, img.data)
    return encode_png(img, 96)
