"""A small PNG writer for rendered cards: no row filters and a fast deflate, several times faster than Pillow's.

Pillow tries every row filter for RGB images, which costs more than rendering the card; flat card art
compresses well without filters. The deflate is zlib-ng's level 1 (the `zlib-ng` package); a card face's rows
are deflated in bands of about 64 KB, each a function of its rows alone (`_deflate_bands`), so that the bands of
a face still equal to its frame's are deflated once per frame (`Frame`). zlib-ng's bytes are a function of the
rows (and zlib-ng's version) alone, as zlib's are: it clears its
hash table and zeroes the window past the data, and picks the same matches whatever CPU code it runs. ISA-L's
deflate (used before, a little faster) is not: in about one fresh process in a hundred it picked other matches
for a few faces (valid streams, the same pixels, other bytes), and its bytes also depend on how its output
buffer is handed to it; see bench/README.md. zlib's level 1 (deterministic too, other bytes, four to eight
times slower) where `zlib-ng` is missing.

`render_png` rasterizes a PDF page straight into PNG scanlines: PDFium draws RGB pixels into a buffer whose
rows are laid out one byte apart, so the filter byte of every row is already in place and the pixels are
never copied before they are compressed. `render_rows` keeps such rows (a template's background, drawn once)
and `render_png(page, dpi, under=Frame(rows, ...))` draws a page over them instead of over white.

`render_screen` draws the same page a second time for screens: the card without its bleed at SCREEN_DPI, PDFium
drawing straight into PNG rows of the cell's size (about a quarter of the 300 dpi render's cost, and far less
than decoding and halving the 300 dpi PNG afterwards, which the Tabletop Simulator export did). That small PNG
travels inside the card's PNG as a private ancillary chunk (`SCREEN_CHUNK`, after the pixels; every PNG reader
skips it): one file per face instead of two, and creating a file is a large part of writing one (`screen_of`
reads it back).
"""

from __future__ import annotations

import ctypes
import math
import os
import struct
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PIL import Image

_crc32: Callable[[bytes, int], int] = zlib.crc32
try:
    from isal import isal_zlib

    _crc32 = isal_zlib.crc32  # the same CRC-32, four times faster than zlib's (PCLMUL): 13 against 55 us per 120 KB
except ImportError:  # pragma: no cover - isal is a dependency; zlib's CRC is the same value
    pass

try:
    from zlib_ng import zlib_ng

    def _deflate(data: bytes | bytearray | memoryview) -> bytes:
        # one call with every row: level 1 (deflate_quick) would end its blocks elsewhere if fed in pieces
        return zlib_ng.compress(data, 1)

    _compressobj: Callable[[int, int, int], Any] = zlib_ng.compressobj
    _SYNC: int = zlib_ng.Z_SYNC_FLUSH
    _adler32: Callable[[bytes | bytearray | memoryview], int] = zlib_ng.adler32
except ImportError:  # pragma: no cover - zlib-ng is a dependency; zlib keeps the writer working without it
    def _deflate(data: bytes | bytearray | memoryview) -> bytes:
        return zlib.compress(data, 1)

    _compressobj = zlib.compressobj
    _SYNC = zlib.Z_SYNC_FLUSH
    _adler32 = zlib.adler32

# A card PNG's rows are deflated band by band, each band a raw deflate stream of its own ended by a sync flush
# (whole bytes, no final block), one after the other in one zlib stream: each band's bytes are a function of
# its rows alone, so a band of a face that is still its frame's (its backdrop, `Frame`) takes the bytes deflated
# once for that frame, and only the bands a face drew on are deflated (about a third of a card's rows). A band
# stays under zlib-ng's first window slide (2 x 32 KiB less 262 bytes): no hash table slid in it at all.
BAND_BYTES = 65_000
_ZLIB_HEAD = b"\x78\x01"  # deflate, 32 KiB window, fastest level
_LAST_BLOCK = b"\x03\x00"  # an empty final block (fixed codes): ends the stream after the bands' flushes


def _band(data: bytes | bytearray | memoryview) -> bytes:
    """`data` as a raw deflate stream of its own (level 1, as `_deflate`) ending on a whole byte, not final."""
    c = _compressobj(1, 8, -15)
    out: bytes = c.compress(data) + c.flush(_SYNC)
    return out


def band_size(stride: int) -> int:
    """The bytes of a band of rows `stride` bytes long: whole rows, at most BAND_BYTES but at least a row."""
    return max(1, BAND_BYTES // stride) * stride


def _deflate_bands(rows: bytes | bytearray, stride: int, height: int, frame: Frame | None = None) -> bytes:
    """The first `height` PNG rows `stride` bytes long of `rows` as a zlib stream of bands (`band_size`) deflated
    one by one; with `frame` (the rows these were drawn over, of their size), each band still equal to the
    frame's takes the frame's deflated band, and the others are recorded in `frame.dirty`. The bytes are the
    same with or without it."""
    n = stride * height
    view = memoryview(rows)[:n]
    step = band_size(stride)
    out = [_ZLIB_HEAD]
    if frame is None:
        out.extend([_band(view[a:a + step]) for a in range(0, n, step)])
        check = _adler32(view)
    else:
        pieces, sums, dirty = frame.pieces, frame.sums, frame.dirty
        check = 1
        for i, band in enumerate(frame.bands):
            a = i * step
            size = len(band)
            if rows.startswith(band, a):  # compared in place (memcmp), nothing copied
                piece = pieces[i]
                if piece is None:
                    piece = pieces[i] = _band(band)
                part = sums[i]
            else:  # drawn on: deflated, unless these rows were seen twice at this place before (kept)
                dirty.append(i)
                drawn = view[a:a + size]
                part = _adler32(drawn)
                seen = frame.seen[i]
                got = seen.get(part, _UNSEEN)
                if got is not None and got is not _UNSEEN and rows.startswith(got[0], a):
                    piece = got[1]
                else:
                    piece = _band(drawn)
                    if got is None and frame.kept < KEPT_BANDS:  # seen once before (or the same Adler-32)
                        seen[part] = (bytes(drawn), piece)
                        frame.kept += 1
                    elif got is _UNSEEN and len(seen) < SEEN_BANDS:
                        seen[part] = None
            out.append(piece)
            # the Adler-32 of the rows so far followed by this band's (zlib's adler32_combine)
            check = ((check & 0xFFFF) + (part & 0xFFFF) - 1) % 65521 | (
                ((check >> 16) + (part >> 16) + size * ((check & 0xFFFF) - 1)) % 65521) << 16
    out.append(_LAST_BLOCK)
    out.append(struct.pack(">I", check))
    return b"".join(out)


SEEN_BANDS = 512  # Adler-32 sums of drawn bands remembered at each place of a frame
KEPT_BANDS = 128  # drawn bands (and their deflated bytes) a frame keeps
_UNSEEN: Any = object()


class Frame:
    """A frame's rows (`render_rows` of a page: PNG rows `stride` bytes long, `height` of them) that faces are
    drawn over, one face after another, on one copy of them (`canvas`), and its bands' deflated bytes.

    After a face is deflated (`_deflate_bands`), `dirty` lists the bands it drew on; `canvas` puts only those
    back to the frame's pixels for the next face (a 300 dpi card is 2.7 MB, most of it the frame's).

    Faces drawn on a frame often draw the same thing at one place (a label, a footer, one of a few kinds or
    costs): `seen[i]` maps the Adler-32 of rows drawn in band `i` to None when they were deflated once, and to
    those rows and their deflated bytes from their second time on (compared whole before use: a band's bytes
    are a function of its rows alone, whichever face deflated them). At most SEEN_BANDS sums and KEPT_BANDS
    kept bands (8 MB at most)."""

    __slots__ = ("rows", "stride", "height", "bands", "pieces", "sums", "dirty", "seen", "kept", "_canvas")

    def __init__(self, rows: bytearray, stride: int, height: int) -> None:
        if len(rows) != stride * height + 1:
            raise ValueError("the frame's rows are not of its size")
        self.rows, self.stride, self.height = rows, stride, height
        n, step = stride * height, band_size(stride)
        self.bands = [bytes(rows[a:min(a + step, n)]) for a in range(0, n, step)]
        self.pieces: list[bytes | None] = [None] * len(self.bands)  # each band deflated, when a face needs it
        self.sums = [_adler32(band) for band in self.bands]  # each band's Adler-32
        self.dirty: list[int] = []
        self.seen: list[dict[int, tuple[bytes, bytes] | None]] = [{} for _ in self.bands]
        self.kept = 0
        self._canvas: bytearray | None = None

    def canvas(self) -> bytearray:
        """The copy of the frame's rows to draw the next face on (one spare byte at the end, as `render_rows`)."""
        buf = self._canvas
        if buf is None:
            buf = self._canvas = bytearray(self.rows)
        else:
            step = band_size(self.stride)
            for i in self.dirty:
                a = i * step
                band = self.bands[i]
                buf[a:a + len(band)] = band
        self.dirty = []
        return buf


def _chunk(tag: bytes, data: bytes) -> tuple[bytes, bytes, bytes, bytes]:
    """A PNG chunk as its four parts (length, type, data, CRC of type and data), joined once with the whole file:
    a face's compressed pixels are copied once, not three times."""
    return struct.pack(">I", len(data)), tag, data, struct.pack(">I", _crc32(data, _crc32(tag, 0)))


def _png(w: int, h: int, dpi: int, rows: bytes | bytearray | memoryview, screen: bytes | None = None) -> bytes:
    """A PNG of `h` unfiltered RGB rows of width `w` (each row: a 0 byte, then its pixels); with `screen` (PNG
    bytes), that PNG as a `SCREEN_CHUNK` chunk after the pixels."""
    return _png_of(w, h, dpi, _deflate(rows), screen)


def card_png(w: int, h: int, dpi: int, rows: bytes | bytearray, screen: bytes | None = None) -> bytes:
    """`_png` as the print backend writes a face: its rows deflated in bands (`_deflate_bands`), the bytes
    `render_png` gives for those pixels whether or not it drew them over a frame."""
    return _png_of(w, h, dpi, _deflate_bands(rows, 3 * w + 1, h), screen)


def _png_of(w: int, h: int, dpi: int, idat: bytes, screen: bytes | None = None) -> bytes:
    """`_png` of the rows whose zlib stream is `idat`."""
    ppm = round(dpi / 0.0254)
    return b"".join((
        b"\x89PNG\r\n\x1a\n",
        *_chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)),
        *_chunk(b"pHYs", struct.pack(">IIB", ppm, ppm, 1)),
        *_chunk(b"IDAT", idat),
        *(_chunk(SCREEN_CHUNK, screen) if screen is not None else ()),
        *_chunk(b"IEND", b""),
    ))


# The chunk holding a card PNG's screen face (a whole PNG): ancillary and private (lower-case first and second
# letters: readers that do not know it skip it), not safe to copy into an edited image (upper-case last letter).
SCREEN_CHUNK = b"scRN"


def screen_of(png: bytes) -> bytes | None:
    """The screen face (PNG bytes) that `_png` put into card PNG `png`, or None if it has none (or is no PNG).
    Chunks are stepped over by their lengths: nothing is decoded."""
    if png[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    at = 8
    while at + 8 <= len(png):
        length, tag = struct.unpack_from(">I4s", png, at)
        if tag == SCREEN_CHUNK:
            data = png[at + 8:at + 8 + length]
            return data if len(data) == length else None
        if tag == b"IEND":
            return None
        at += 12 + length
    return None


_READ_FLAGS = os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)
_HEAD_READ = 4096  # the signature and the chunks before the pixels (IHDR, pHYs) and the pixels' chunk header
_TAIL_READ = 64 * 1024  # a screen face chunk and IEND, usually at once (a 63 x 88 mm card's: about 35 KB)


def read_screen(path: Path | str) -> bytes | None:
    """`screen_of(Path(path).read_bytes())` reading only the chunk headers and the screen face: a card PNG's
    300 dpi pixels (three quarters of its bytes) are stepped over by their length, not copied out of the page
    cache (the Tabletop Simulator export reads 40,000 of them at 10,000 cards). OSError if it cannot be opened."""
    fd = os.open(path, _READ_FLAGS)
    try:
        buf = os.pread(fd, _HEAD_READ, 0)
        base = 0  # where `buf` starts in the file
        if buf[:8] != b"\x89PNG\r\n\x1a\n":
            return None
        at = 8
        while True:
            if at + 8 > base + len(buf):  # the next chunk header is not in hand: read from it on
                base, buf = at, os.pread(fd, _TAIL_READ, at)
                if len(buf) < 8:
                    return None
            length, tag = struct.unpack_from(">I4s", buf, at - base)
            if tag == SCREEN_CHUNK:
                start = at + 8 - base
                data = buf[start:start + length]
                if len(data) < length:  # more than was read: the rest of it
                    data += os.pread(fd, length - len(data), at + 8 + len(data))
                return data if len(data) == length else None
            if tag == b"IEND":
                return None
            at += 12 + length
    finally:
        os.close(fd)


_WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)


def write_file(path: Path, data: bytes) -> None:
    """`path.write_bytes(data)` in three system calls (open, write, close): `Path.write_bytes` also asks the file
    its size, whether it is a terminal and where it stands, for each of the tens of thousands of images."""
    fd = os.open(path, _WRITE_FLAGS, 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)


def encode_png(image: Image.Image, dpi: int) -> bytes:
    """`image` (converted to RGB if needed) as PNG bytes that record `dpi`."""
    if image.mode != "RGB":
        image = image.convert("RGB")
    w, h = image.size
    # the rows with a 0 filter byte before each: the pixels as a greyscale image one byte wider, pasted in C
    rows = Image.new("L", (3 * w + 1, h), 0)
    rows.paste(Image.frombuffer("L", (3 * w, h), image.tobytes(), "raw", "L", 0, 1), (1, 0))
    return _png(w, h, dpi, rows.tobytes())


def render_rows(page: Any, dpi: int, swapped: bool = False) -> bytearray:
    """PDF page `page` rasterized at `dpi` over white, as unfiltered PNG rows (each a 0 byte, then RGB pixels;
    one spare byte at the end). `swapped`: the page was drawn with red and blue exchanged (`swap_red_blue`), and
    PDFium's own byte order (blue first) puts them back in place."""
    import pypdfium2 as pdfium

    made: list[bytearray] = []

    def bitmap(width: int, height: int, format: int, rev_byteorder: bool = False) -> Any:  # noqa: A002
        stride = 3 * width + 1  # each row one byte wider: that byte, before the row's pixels, is its filter
        buf = bytearray(stride * height + 1)
        pixels = (ctypes.c_ubyte * (stride * height)).from_buffer(buf, 1)
        made.append(buf)
        return pdfium.PdfBitmap.new_native(width, height, format, rev_byteorder, buffer=pixels, stride=stride)

    maker: Callable[..., Any] = bitmap
    page.render(scale=dpi / 72.0, bitmap_maker=maker, rev_byteorder=not swapped,
                force_bitmap_format=pdfium.raw.FPDFBitmap_BGR)
    return made[0]


def pixel_size(page: Any, dpi: int) -> tuple[int, int]:
    """The pixel size `page.render(scale=dpi / 72)` gives (`page` a PdfPage or PDFium's raw handle of one)."""
    import pypdfium2 as pdfium

    scale = dpi / 72.0
    return (math.ceil(pdfium.raw.FPDF_GetPageWidthF(page) * scale),
            math.ceil(pdfium.raw.FPDF_GetPageHeightF(page) * scale))


def _draw(page: Any, pixels: Any, w: int, h: int, stride: int, matrix: Any = None, clip: Any = None,
          swapped: bool = False) -> None:
    """PDFium draws `page` into `pixels` (`w` x `h` BGR pixels, rows `stride` bytes apart, RGB byte order; with
    `swapped`, PDFium's own order, for a page drawn with red and blue exchanged) as `page.render` does with those
    options (annotations drawn, no fill): at the page's own scale to the bitmap, or with `matrix` and `clip`.
    The bitmap is PDFium's raw one, made and dropped here: pypdfium2's wrapper registers a finalizer and formats
    its own name for each, about a fifth of a millisecond of Python a face."""
    import pypdfium2 as pdfium

    raw = pdfium.raw
    bitmap = raw.FPDFBitmap_CreateEx(w, h, raw.FPDFBitmap_BGR, pixels, stride)
    if not bitmap:
        raise MemoryError("PDFium made no bitmap")
    try:
        flags = raw.FPDF_ANNOT if swapped else raw.FPDF_ANNOT | raw.FPDF_REVERSE_BYTE_ORDER
        if matrix is None:
            raw.FPDF_RenderPageBitmap(bitmap, page, 0, 0, w, h, 0, flags)
        else:
            raw.FPDF_RenderPageBitmapWithMatrix(bitmap, page, ctypes.byref(matrix), ctypes.byref(clip), flags)
    finally:
        raw.FPDFBitmap_Destroy(bitmap)


def render_png(page: Any, dpi: int, under: Frame | None = None, screen: bytes | None = None,
               swapped: bool = False) -> bytes:
    """PDF page `page` rasterized at `dpi` as PNG bytes, the same pixels as
    `encode_png(page.render(scale=dpi / 72).to_pil(), dpi)`; with `screen` (`screen_png` of the same page), that
    face inside it (`SCREEN_CHUNK`).

    With `under` (a `Frame` of `render_rows` of a page of the same size), the page is drawn over the frame's
    pixels (its canvas) instead of over white: a face whose first elements (a template's frame and panel) were
    drawn once as the frame is then drawn with only its other elements, and comes out as the same pixels and
    bytes as the whole face drawn at once (PDFium paints a page's objects one after the other onto the bitmap,
    so what came before is only the pixels it left); the frame's deflated bands serve where the face left them
    as they were. `swapped`: the page (and the frame's) was drawn with red and blue exchanged, see
    `render_rows`."""
    w, h = pixel_size(page, dpi)
    stride = 3 * w + 1
    if under is None:
        return _png_of(w, h, dpi, _deflate_bands(render_rows(page, dpi, swapped), stride, h), screen)
    if under.stride != stride or under.height != h:
        raise ValueError("the pixels to draw over are not of the page's size")
    buf = under.canvas()
    _draw(page, (ctypes.c_ubyte * (stride * h)).from_buffer(buf, 1), w, h, stride, swapped=swapped)
    return _png_of(w, h, dpi, _deflate_bands(buf, stride, h, under), screen)


# Faces on screen (Tabletop Simulator's sprite sheets): 150 dpi is sharp on the table and a quarter of the pixels
# of print's 300 dpi.
SCREEN_DPI = 150


def screen_size(w_mm: float, h_mm: float) -> tuple[int, int]:
    """The pixel size of a `w_mm` x `h_mm` card (no bleed) at SCREEN_DPI."""
    k = SCREEN_DPI / 25.4
    return max(16, int(w_mm * k)), max(16, int(h_mm * k))


def render_screen(page: Any, bleed_mm: float, w_mm: float, h_mm: float, under: Frame | None = None,
                  swapped: bool = False) -> bytearray:
    """The face on `page` (a `w_mm` x `h_mm` card inside `bleed_mm` of bleed) at SCREEN_DPI without its bleed:
    `screen_size(w_mm, h_mm)` pixels centred on the trim, as unfiltered PNG rows (one spare byte at the end), drawn
    over white or over a `Frame` of what this gave for the face's backdrop (its canvas, to be given to
    `screen_png` with it). PDFium draws straight into the cell at exactly SCREEN_DPI: no page stretched to whole
    pixels, no bleed rasterized and cut off. `swapped`: as `render_rows`."""
    import pypdfium2 as pdfium

    w, h = screen_size(w_mm, h_mm)
    stride = 3 * w + 1
    if under is None:
        buf = bytearray(b"\xff") * (stride * h + 1)
        buf[0:stride * h:stride] = bytes(h)  # each row's filter byte
    else:
        if under.stride != stride or under.height != h:
            raise ValueError("the pixels to draw over are not of the cell's size")
        buf = under.canvas()
    k = SCREEN_DPI / 25.4  # pixels per mm
    # PDFium applies the matrix to the page in points, top left at 0: scale to SCREEN_DPI, then shift the trim's
    # centre to the cell's
    s = SCREEN_DPI / 72.0
    matrix = pdfium.raw.FS_MATRIX(s, 0, 0, s, -(bleed_mm * k + (w_mm * k - w) / 2),
                                  -(bleed_mm * k + (h_mm * k - h) / 2))
    clip = pdfium.raw.FS_RECTF(0, 0, w, h)
    _draw(page, (ctypes.c_ubyte * (stride * h)).from_buffer(buf, 1), w, h, stride, matrix, clip, swapped)
    return buf


def screen_png(rows: bytearray, w_mm: float, h_mm: float, frame: Frame | None = None) -> bytes:
    """`render_screen`'s rows of a `w_mm` x `h_mm` card as PNG bytes; `frame`: the `Frame` they were drawn over
    (`render_screen(..., under=frame)`), whose deflated bands serve (the same bytes as without it)."""
    w, h = screen_size(w_mm, h_mm)
    return _png_of(w, h, SCREEN_DPI, _deflate_bands(rows, 3 * w + 1, h, frame))
