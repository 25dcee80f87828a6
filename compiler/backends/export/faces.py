"""Card images for Tabletop Simulator sheets: the print backend's faces when it built them, else our own.

The print backend renders each card to `print/png/<sheet>/<card>.png` (and `-back.png`) in the same
build, with the same face without its bleed at 150 dpi inside it (a private chunk, `png.screen_of`). When those
files exist, they are used (the screen face as it is when it has the cell's size, else the PNG with its bleed
cropped off and scaled), so the table shows the printed card.
Otherwise (e.g. `--only export`, or `print.png=false`) a plain, readable face is drawn with Pillow:
name, kind, stats and rules text, in the DejaVu font the print backend ships (it covers every
diacritic of the published languages).
"""

from __future__ import annotations

import hashlib
import io
import struct
import zlib
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from cardc import syntax as s
from cardc.backends.export.sheets import Cell, Rows
from cardc.backends.print.png import SCREEN_DPI
from cardc.model import Entity
from PIL import Image, ImageDraw, ImageFont

FONT_DIR = Path(__file__).resolve().parent.parent / "print" / "fonts"
COLORS = ["#7a2e2e", "#2e4a7a", "#2f6b3a", "#5b3a7a", "#6b5a2f", "#2f6b6b"]
PANEL = "#fbf8f0"
INK = "#1d1a16"


@dataclass(frozen=True, slots=True)
class FaceText:
    """What a drawn face says, already in the card's language."""

    name: str
    kind: str
    stats: tuple[str, ...]
    lines: tuple[str, ...]
    provisional: bool


def _font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    path = FONT_DIR / ("DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf")
    try:
        return _cached_font(str(path), size)
    except OSError:  # pragma: no cover - the font ships with the print backend
        return ImageFont.load_default()


_FONTS: dict[tuple[str, int], ImageFont.FreeTypeFont] = {}


def _cached_font(path: str, size: int) -> ImageFont.FreeTypeFont:
    key = (path, size)
    if key not in _FONTS:
        _FONTS[key] = ImageFont.truetype(path, size)
    return _FONTS[key]


def color_of(key: str) -> str:
    return COLORS[zlib.crc32(key.encode("utf-8")) % len(COLORS)]


def _wrap(draw: ImageDraw.ImageDraw, text: str, font: ImageFont.FreeTypeFont | ImageFont.ImageFont,
          width: int) -> list[str]:
    out: list[str] = []
    for paragraph in text.split("\n"):
        line = ""
        for word in paragraph.split():
            trial = f"{line} {word}".strip()
            if line and draw.textlength(trial, font=font) > width:
                out.append(line)
                line = word
            else:
                line = trial
        out.append(line)
    return out


def _fit(draw: ImageDraw.ImageDraw, text: str, width: int, height: int, start: int, least: int,
         bold: bool = False) -> tuple[list[str], ImageFont.FreeTypeFont | ImageFont.ImageFont, int]:
    """The largest font size from `start` down to `least` at which `text` fits the box (else `least`)."""
    # Never more text than the box could show at the smallest size: wrapping then costs the box, not the text
    # (a 1 MB name once took minutes). A glyph is at least a quarter of the font size wide.
    most = (width // max(1, least // 4) + 1) * (height // max(1, least) + 1)
    if len(text) > most:
        text = text[:most] + "…"
    size = start
    while True:
        font = _font(size, bold)
        lines = _wrap(draw, text, font, width)
        step = int(size * 1.2)
        if len(lines) * step <= height or size <= least:
            return lines, font, step
        size -= 1


def draw_face(face: FaceText, w: int, h: int, color: str, round_cut: bool = False) -> Image.Image:
    """A plain card face: coloured frame, name, kind and stats line, rules text that shrinks to fit."""
    img = Image.new("RGB", (w, h), color)
    d = ImageDraw.Draw(img)
    inset = max(4, w // 10) if round_cut else max(3, w // 30)
    d.rectangle((inset, inset, w - inset - 1, h - inset - 1), fill=PANEL)
    pad = inset + max(3, w // 40)
    inner = w - 2 * pad
    y = pad
    lines, font, step = _fit(d, face.name + (" (?)" if face.provisional else ""), inner, h // 5, max(10, w // 11),
                             max(7, w // 30), bold=True)
    for line in lines:
        d.text((w // 2, y), line, font=font, fill=INK, anchor="ma")
        y += step
    small = _font(max(8, w // 22))
    d.text((w // 2, y), face.kind, font=small, fill=color, anchor="ma")
    y += int(max(8, w // 22) * 1.4)
    if face.stats:
        stat_lines, stat_font, stat_step = _fit(d, "  ·  ".join(face.stats), inner, h // 6, max(9, w // 18),
                                                max(7, w // 32), bold=True)
        for line in stat_lines:
            d.text((w // 2, y), line, font=stat_font, fill=INK, anchor="ma")
            y += stat_step
    y += max(2, h // 60)
    d.line((pad, y, w - pad, y), fill=color, width=max(1, w // 150))
    y += max(3, h // 50)
    body = "\n".join(face.lines)
    if body:
        text_lines, text_font, text_step = _fit(d, body, inner, h - pad - y, max(9, w // 20), max(6, w // 45))
        for line in text_lines:
            if y + text_step > h - inset:
                break
            d.text((pad, y), line, font=text_font, fill=INK)
            y += text_step
    return img


def draw_plain(title: str, subtitle: str, w: int, h: int, color: str) -> Image.Image:
    """A card back, or the hidden face TTS shows for cards in another player's hand."""
    img = Image.new("RGB", (w, h), color)
    d = ImageDraw.Draw(img)
    inset = max(3, w // 20)
    d.rectangle((inset, inset, w - inset - 1, h - inset - 1), outline=PANEL, width=max(1, w // 80))
    lines, font, step = _fit(d, title, w - 4 * inset, h // 3, max(12, w // 8), max(8, w // 25), bold=True)
    y = h // 2 - (len(lines) * step) // 2 - step // 2
    for line in lines:
        d.text((w // 2, y), line, font=font, fill=PANEL, anchor="ma")
        y += step
    if subtitle:
        d.text((w // 2, y + step // 3), subtitle, font=_font(max(8, w // 16)), fill=PANEL, anchor="ma")
    return img


def printed_face(path: Path, w_mm: float, h_mm: float, size: tuple[int, int]) -> Image.Image | None:
    """A print backend PNG with its bleed cut off, scaled to `size`; None if it is missing or unreadable."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    got = _scaled(data, w_mm, h_mm, size)
    return _rgb(*got.size, got.data) if isinstance(got, Rows) else got


def _scaled(data: bytes, w_mm: float, h_mm: float, size: tuple[int, int]) -> Cell | None:
    rows = _unfiltered_rows(data)
    if rows is not None:
        w, h, dpi, raw = rows
        if (w, h) == size and round(dpi) == SCREEN_DPI:
            return Rows(size, raw)  # a screen face of the cell's size: its rows as they are
        return _cut(_rgb(w, h, raw), w_mm / 25.4 * dpi, h_mm / 25.4 * dpi, size)
    try:
        with Image.open(io.BytesIO(data)) as img:
            img.load()
            dpi = img.info.get("dpi", (300, 300))[0] or 300
            rgb = img if img.mode == "RGB" else img.convert("RGB")
            return _cut(rgb, w_mm / 25.4 * dpi, h_mm / 25.4 * dpi, size)
    except (OSError, ValueError):
        return None


_inflate_lib: Callable[[bytes, int, int], bytes]
try:
    from zlib_ng import zlib_ng

    # zlib-ng: a 150 dpi screen face in 0.12 ms against ISA-L's 0.20 (both given the size below)
    _inflate_lib = zlib_ng.decompress
    # its stubs call `error` an instance; it is the exception class
    _INFLATE_ERRORS: tuple[type[BaseException], ...] = (cast(type[BaseException], zlib_ng.error), zlib.error)
except ImportError:  # pragma: no cover - zlib-ng is a dependency; zlib works without it
    _inflate_lib = zlib.decompress
    _INFLATE_ERRORS = (zlib.error,)

_MOST_AT_ONCE = 1 << 26  # a larger image (or a header that says so) grows its buffer as it is inflated


def _inflate(data: bytes, size: int) -> bytes:
    """`data` inflated, `size` bytes long: into one buffer a byte larger than that (of `size` itself, or of the
    default 16 KiB, the library grows and copies the buffer before it sees that the stream has ended)."""
    return _inflate_lib(data, 15, min(size + 1, _MOST_AT_ONCE))


def _unfiltered_rgb(data: bytes) -> tuple[Image.Image, float] | None:
    """A PNG as the print backend writes it (8-bit RGB, not interlaced, no row filters, one pHYs in metres) and its
    dpi, decoded with one inflate into a buffer of the final size; None for any other PNG (Pillow reads those).
    Pillow's decoder inflates in small steps and undoes each row's filter: about half again the time."""
    got = _unfiltered_rows(data)
    if got is None:
        return None
    w, h, dpi, raw = got
    return _rgb(w, h, raw), dpi


def _rgb(w: int, h: int, rows: bytes) -> Image.Image:
    # (not `Image.frombytes`: it first fills the new image with zeros, which the unpacking overwrites anyway)
    img = Image.new("RGB", (w, h), None)
    img.frombytes(memoryview(rows)[1:], "raw", ("RGB", 3 * w + 1))
    return img


def _unfiltered_rows(data: bytes) -> tuple[int, int, float, bytes] | None:
    """Width, height, dpi and rows (each a 0 filter byte, then RGB pixels) of a PNG as the print backend writes it;
    None for any other PNG."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    at, idat, header, dpi = 8, [], b"", 0.0
    while at + 8 <= len(data):
        length, tag = struct.unpack_from(">I4s", data, at)
        if tag == b"IHDR":
            header = data[at + 8:at + 8 + length]
        elif tag == b"pHYs" and length == 9 and at + 17 <= len(data) and data[at + 16] == 1:
            dpi = struct.unpack_from(">I", data, at + 8)[0] * 0.0254
        elif tag == b"IDAT":
            idat.append(data[at + 8:at + 8 + length])
        elif tag == b"IEND":
            break
        at += 12 + length  # other chunks (the screen face inside a print PNG): no pixel of this image
    if len(header) != 13 or not idat or not dpi:
        return None
    w, h, depth, color, _compression, _filter, interlace = struct.unpack(">IIBBBBB", header)
    if depth != 8 or color != 2 or interlace != 0:
        return None
    stride = 3 * w + 1
    try:
        rows = _inflate(idat[0] if len(idat) == 1 else b"".join(idat), stride * h)
    except _INFLATE_ERRORS:
        return None
    if len(rows) != stride * h or rows[::stride].count(0) != h:  # a row with a filter: let Pillow undo it
        return None
    return w, h, dpi, rows


def _cut(img: Image.Image, trim_w: float, trim_h: float, size: tuple[int, int]) -> Image.Image:
    """The centred `trim_w` x `trim_h` pixels of `img` (the card without its bleed) scaled to `size`, each pixel the
    average of the area it covers (a box filter: for these reductions by about 2x it looks the same as Lanczos on
    text and art, compared side by side, at a fraction of the cost)."""
    w, h = size
    k = round(trim_w / w)
    if k >= 2 and abs(trim_w - k * w) <= k and abs(trim_h - k * h) <= k:
        # The trim is within a pixel of k times the cell (300 dpi faces in 150 dpi cells): average whole k x k
        # blocks, several times cheaper than resampling.
        x, y = round((img.width - k * w) / 2), round((img.height - k * h) / 2)
        if x >= 0 and y >= 0:
            return img.reduce(k, box=(x, y, x + k * w, y + k * h))
    bx, by = max(0.0, (img.width - trim_w) / 2), max(0.0, (img.height - trim_h) / 2)
    box = (round(bx), round(by), round(img.width - bx), round(img.height - by))
    # other ratios (a large card in a sheet kept under TTS's size limit): whole 2x2 blocks first where the ratio
    # is 2 or more, then a box-filtered resize of the rest
    return img.resize(size, Image.Resampling.BOX, box=box, reducing_gap=1.0)


class PrintedFaces:
    """The print backend's PNGs cut and scaled for one build: an image met again (a shared back, the copies of a
    card) is decoded and scaled once. The last few distinct images are kept, so memory stays bounded."""

    KEEP = 64

    def __init__(self) -> None:
        self._kept: OrderedDict[tuple[str, float, float, tuple[int, int]], Cell | None] = OrderedDict()

    def __call__(self, png: PrintPng, w_mm: float, h_mm: float, size: tuple[int, int]) -> Cell | None:
        key = (png.digest, w_mm, h_mm, size)
        if key in self._kept:
            self._kept.move_to_end(key)
            return self._kept[key]
        img = self._kept[key] = _scaled(png.data, w_mm, h_mm, size)
        if len(self._kept) > self.KEEP:
            self._kept.popitem(last=False)
        return img


@dataclass(frozen=True, slots=True)
class PrintPng:
    """A print backend PNG read once: its bytes for the image, their hash for the build cache's keys."""

    data: bytes
    digest: str

    @classmethod
    def read(cls, path: Path | None) -> PrintPng | None:
        if path is None:
            return None
        try:
            data = path.read_bytes()
        except OSError:
            return None
        return cls.of(data)

    @classmethod
    def of(cls, data: bytes) -> PrintPng:
        return cls(data, hashlib.sha256(data).hexdigest())

    @property
    def size(self) -> tuple[int, int] | None:
        """Width and height from the PNG's header, if it is one."""
        if self.data[:8] != b"\x89PNG\r\n\x1a\n" or self.data[12:16] != b"IHDR":
            return None
        w, h = struct.unpack_from(">II", self.data, 16)
        return w, h


def stat_items(e: Entity) -> list[tuple[str, s.Value]]:
    """The numeric attributes a face shows, in name order."""
    out = []
    for key in sorted(e.attrs):
        raw = e.attrs[key]
        inner = raw.value if isinstance(raw, s.ProvisionalV) else raw
        if isinstance(inner, s.IntV | s.SignedV | s.DiceV | s.RangeV | s.UnknownV):
            out.append((key, raw))
    return out
