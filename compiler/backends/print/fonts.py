"""The bundled fonts (DejaVu Sans, regular and bold): registration, kerned widths and kerned PDF text.

reportlab embeds TrueType subsets but does not kern on its own (only through an optional HarfBuzz), so
the pair kerning of the font's `kern` table is applied here: in the measured widths (line breaking and
centring) and as `TJ` adjustments in the drawn text.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from functools import cache, cached_property
from itertools import compress, count
from operator import add
from pathlib import Path

from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont

FONT_DIR = Path(__file__).resolve().parent / "fonts"
FILES = {"regular": "DejaVuSans.ttf", "bold": "DejaVuSans-Bold.ttf"}
SHORT = 24  # texts up to this long have their TJ arrays remembered per document (they are made of known codes)


# per document and font: each character's (subset, escaped code, glyph), the escaped codes by subset, short arrays
TjState = tuple[dict[str, tuple[str, str, int | None]], dict[str, dict[int, str]], dict[str, list[tuple[str, str]]]]


@dataclass
class Font:
    """One registered face with its kerning pairs (in 1/1000 em, negative = closer)."""

    key: str
    name: str  # the reportlab font name
    ttf: TTFont
    kern: dict[tuple[int, int], int]  # (left glyph, right glyph) -> adjustment
    ascent: float  # 1/1000 em
    cap_height: float
    _widths: dict[str, float] = field(default_factory=dict)
    _state_key: str = field(init=False, default="")

    def __post_init__(self) -> None:
        self._state_key = f"_cardc_tj_{self.name}"  # its state in a document (see tj_arrays)

    def width(self, text: str) -> float:
        """Advance width of `text` at 1 pt, kerning included."""
        w = self._widths.get(text)
        if w is None:
            face = self.ttf.face
            widths, c2g = face.charWidths, face.charToGlyph
            total = 0.0
            prev = None
            for ch in text:
                code = ord(ch)
                total += widths.get(code, face.defaultWidth)
                g = c2g.get(code)
                if prev is not None and g is not None:
                    total += self.kern.get((prev, g), 0)
                prev = g
            w = self._widths[text] = total / 1000.0
        return w

    def tj_arrays(self, text: str, doc: object) -> list[tuple[str, str]]:
        """`text` as (subset font name, `TJ` array source) runs, kerned: the fast path of `tj_items`.

        Each character's subset and code are asked of reportlab once per document and remembered, so
        a long text costs one dictionary look-up per character."""
        state: TjState | None = doc.__dict__.get(self._state_key)
        if state is None:
            state = doc.__dict__[self._state_key] = ({}, {}, {})
        # each character's (subset, escaped code, glyph); the escaped codes by subset (for `str.translate`); the
        # arrays of short texts (labels, numbers, names: they come again and again)
        codes, tables, short = state
        if len(text) <= SHORT:
            known = short.get(text)
            if known is not None:
                return known
        if text and codes.keys() >= set(text):
            fast = self._tj_known(text, codes, tables)
            if fast is not None:
                if len(text) <= SHORT:
                    short[text] = fast
                return fast
        kern = self.kern
        out: list[tuple[str, str]] = []
        subset = ""
        parts: list[str] = []
        chunk: list[str] = []
        prev: int | None = None
        for ch in text:
            entry = codes.get(ch)
            if entry is None:
                [(sub, data)] = self.ttf.splitString(ch, doc)
                glyph = self.ttf.face.charToGlyph.get(ord(ch))
                entry = codes[ch] = (self.ttf.getSubsetInternalName(sub, doc), _escape_byte(data[0]), glyph)
                tables.setdefault(entry[0], {})[ord(ch)] = entry[1]
            name, esc, glyph = entry
            if name != subset:
                if chunk:
                    parts.append("(" + "".join(chunk) + ")")
                if parts:
                    out.append((subset, "[" + " ".join(parts) + "]"))
                subset, parts, chunk = name, [], []
            elif prev is not None and glyph is not None:
                k = kern.get((prev, glyph))
                if k:
                    parts.append("(" + "".join(chunk) + ")")
                    parts.append(str(-k))
                    chunk = []
            chunk.append(esc)
            prev = glyph
        if chunk:
            parts.append("(" + "".join(chunk) + ")")
        if parts:
            out.append((subset, "[" + " ".join(parts) + "]"))
        return out

    def _tj_known(self, text: str, codes: dict[str, tuple[str, str, int | None]],
                  tables: dict[str, dict[int, str]]) -> list[tuple[str, str]] | None:
        """`tj_arrays` of a text whose characters all have their codes, in one subset (else None): the same
        array, made with `str.translate` and the kerning pairs found by C-level iteration."""
        if len(tables) == 1:
            [(subset, table)] = tables.items()
        else:
            names = {codes[ch][0] for ch in set(text)}
            if len(names) != 1:
                return None
            subset = names.pop()
            table = tables[subset]
        pairs = self.char_kern
        hits = list(compress(count(1), map(pairs.__contains__, map(add, text, text[1:]))))
        if not hits:
            return [(subset, "[(" + text.translate(table) + ")]")]
        parts = []
        start = 0
        for i in hits:
            parts.append("(" + text[start:i].translate(table) + ")")
            parts.append(str(-pairs[text[i - 1:i + 1]]))
            start = i
        parts.append("(" + text[start:].translate(table) + ")")
        return [(subset, "[" + " ".join(parts) + "]")]

    @cached_property
    def char_kern(self) -> dict[str, int]:
        """The kerning pairs by characters (two-character strings), for characters that have a glyph."""
        chars: dict[int, list[str]] = {}
        for code, glyph in self.ttf.face.charToGlyph.items():
            chars.setdefault(glyph, []).append(chr(code))
        return {a + b: k for (left, right), k in self.kern.items() if k
                for a in chars.get(left, ()) for b in chars.get(right, ())}

    def tj_items(self, text: str, doc: object) -> list[tuple[str, list[bytes | int]]]:
        """`text` as runs of (subset font name, [bytes, kerning, bytes, ...]) ready for a `TJ` array."""
        face = self.ttf.face
        c2g = face.charToGlyph
        out: list[tuple[str, list[bytes | int]]] = []
        pos = 0
        prev = None
        for subset, data in self.ttf.splitString(text, doc):
            items: list[bytes | int] = []
            chunk = bytearray()
            for i, byte in enumerate(data):
                g = c2g.get(ord(text[pos + i]))
                k = self.kern.get((prev, g), 0) if prev is not None and g is not None else 0
                if k:
                    if chunk:
                        items.append(bytes(chunk))
                        chunk = bytearray()
                    items.append(-k)
                chunk.append(byte)
                prev = g
            if chunk:
                items.append(bytes(chunk))
            pos += len(data)
            out.append((self.ttf.getSubsetInternalName(subset, doc), items))
        return out


def _read_kern(path: Path, units_per_em: int) -> dict[tuple[int, int], int]:
    """Format-0 subtables of the TrueType `kern` table, scaled to 1/1000 em."""
    data = path.read_bytes()
    num_tables = struct.unpack(">H", data[4:6])[0]
    offset = None
    for i in range(num_tables):
        tag, _check, off, _length = struct.unpack(">4sIII", data[12 + 16 * i: 28 + 16 * i])
        if tag == b"kern":
            offset = off
    pairs: dict[tuple[int, int], int] = {}
    if offset is None:
        return pairs
    _version, n_sub = struct.unpack(">HH", data[offset:offset + 4])
    pos = offset + 4
    scale = 1000.0 / units_per_em
    for _ in range(n_sub):
        _sv, length, coverage = struct.unpack(">HHH", data[pos:pos + 6])
        if coverage >> 8 == 0 and coverage & 1:  # format 0, horizontal
            n_pairs = struct.unpack(">H", data[pos + 6:pos + 8])[0]
            base = pos + 14
            for j in range(n_pairs):
                left, right, value = struct.unpack(">HHh", data[base + 6 * j: base + 6 * j + 6])
                pairs[(left, right)] = round(value * scale)
        pos += length
    return pairs


@cache
def font(key: str) -> Font:
    """The bundled face `regular` or `bold`, registered with reportlab once per process."""
    path = FONT_DIR / FILES[key]
    name = f"cardc-DejaVuSans-{key}"
    ttf = TTFont(name, str(path))
    pdfmetrics.registerFont(ttf)
    face = ttf.face
    return Font(key, name, ttf, _read_kern(path, face.unitsPerEm), face.ascent, face.capHeight)


def _escape_byte(b: int) -> str:
    """One byte of a PDF string literal."""
    if b in (0x28, 0x29, 0x5C):  # ( ) backslash
        return "\\" + chr(b)
    if 32 <= b < 127:
        return chr(b)
    return f"\\{b:03o}"
