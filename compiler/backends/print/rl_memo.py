"""reportlab, made cheaper for the rulebooks without changing a byte of what it writes.

The rulebooks lay out thousands of paragraphs with reportlab's platypus, and much of that time goes to pure
look-ups repeated with the same arguments: the width of the same word, the encoding of the same PDF name or
number, the colour of the same `rgb(...)` attribute, the subset runs of the same text in one document. Inside
`memoized_reportlab()` those functions are replaced by memos of themselves (their own results, remembered), a
parse fragment is copied without `copy.copy`'s generic reduce round trip, and a link annotation's dictionary is
written without building the intermediate dictionaries (reportlab's own formats for its values, the same bytes).
`tests/test_rulebook_caches.py` checks each against reportlab and that the rulebooks are the same files without.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from reportlab import rl_config
from reportlab.lib import colors
from reportlab.lib.rl_accel import fp_str
from reportlab.pdfbase import pdfdoc, pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.platypus import paragraph as rl_paragraph
from reportlab.platypus.paraparser import ParaFrag


def _numbers(seq: Any, document: Any) -> bytes:
    """reportlab's PDFArray of a few numbers (each `fp_str`, spaces between), or its own format of anything else."""
    if len(seq) <= 10 and all(type(x) in (float, int) for x in seq):
        return b"[ " + str(fp_str(*seq)).encode("ascii") + b" ]" if seq else b"[  ]"
    return bytes(pdfdoc.PDFArray(seq).format(document))


KEPT = 100_000  # entries of each memo (past it, that memo starts again)


@contextmanager
def memoized_reportlab() -> Iterator[None]:
    """Inside: reportlab's pure look-ups remembered, and two of its formats made without generic machinery (see
    the module's docstring); everything is put back on the way out, and the memos dropped (a font name could
    be registered again with another face)."""
    measure = pdfmetrics.stringWidth
    widths: dict[tuple[str, str, float, str], float] = {}

    def string_width(text: str, font_name: str, font_size: float, encoding: str = "utf8") -> float:
        """reportlab's width of a text: line breaking measures every word of every paragraph, and the same words
        (", ", "the", a card's name) come again and again; one measurement costs ten dictionary look-ups."""
        key = (text, font_name, font_size, encoding)
        width = widths.get(key)
        if width is None:
            if len(widths) >= KEPT:
                widths.clear()
            width = widths[key] = measure(text, font_name, font_size, encoding)
        return width

    encode = pdfdoc.pdfdocEnc
    encoded: dict[str, bytes] = {}

    def pdfdoc_enc(x: Any) -> Any:
        """reportlab's own encoding of the PDF's names, numbers and keywords, remembered (short strings only)."""
        if type(x) is not str or len(x) > 40:
            return encode(x)
        b = encoded.get(x)
        if b is None:
            if len(encoded) >= KEPT:
                encoded.clear()
            b = encoded[x] = encode(x)
        return b

    name_of = pdfdoc.PDFName
    names: dict[str, str] = {}

    def pdf_name(data: str, *args: Any) -> str:
        """reportlab's PDF name of a key (a loop over its characters), once per key."""
        if args:
            return str(name_of(data, *args))
        name = names.get(data)
        if name is None:
            if len(names) >= KEPT:
                names.clear()
            name = names[data] = str(name_of(data))
        return name

    link_format = pdfdoc.LinkAnnotation.format

    def format_link(self: pdfdoc.LinkAnnotation, document: Any) -> bytes:
        """A link's dictionary as reportlab writes it (`Dict`, `AnnotationDict`, then a sorted `PDFDictionary` of
        six entries on one line), without building the dictionaries: every cross-reference is one. Its values
        are formatted by reportlab itself; anything but the plain link this module makes goes the usual way."""
        if self.otherkw or rl_config.pdfMultiLine or type(self.Contents) is not str or isinstance(self.Rect, str):
            return bytes(link_format(self, document))
        fmt = pdfdoc.format
        border = self.Border.sequence if type(self.Border) is pdfdoc.PDFArray else None
        # a destination's bytes once per save: the same target's link appears again and again
        dests: dict[int, tuple[Any, bytes]] = document.__dict__.setdefault("cardc_destinations", {})
        known = dests.get(id(self.Destination))
        if known is None or known[0] is not self.Destination:
            known = dests[id(self.Destination)] = (self.Destination, fmt(self.Destination, document))
        # the border's and the contents' bytes once per save too, when not encrypted (encryption is per object)
        plain = type(document.encrypt) is pdfdoc.NoEncryption
        values: dict[Any, bytes] = document.__dict__.setdefault("cardc_link_values", {})
        border_key = ("border", tuple(border)) if border is not None and plain else None
        border_bytes = values.get(border_key) if border_key is not None else None
        if border_bytes is None:
            border_bytes = _numbers(border, document) if border is not None else fmt(self.Border, document)
            if border_key is not None:
                values[border_key] = border_bytes
        contents = values.get(self.Contents) if plain else None
        if contents is None:
            contents = fmt(pdfdoc.PDFString(self.Contents, 1), document)
            if plain and len(self.Contents) <= 40:
                values[self.Contents] = contents
        return b"".join((
            b"<<\n/Border ", border_bytes,
            b" /Contents ", contents,
            b" /Dest ", known[1],
            b" /Rect ", _numbers(self.Rect, document),
            b" /Subtype /Link /Type /Annot\n>>"))

    split = TTFont.splitString

    def split_string(self: TTFont, text: str, doc: Any, encoding: str = "utf-8") -> Any:
        """A text's runs by font subset, remembered in the document's state of the font: a character keeps
        the code it was given first, so the same text splits the same way again."""
        state = self.state.get(doc)
        if state is None:
            return split(self, text, doc, encoding)
        known: dict[str, Any] = state.__dict__.setdefault("cardc_split", {})
        runs = known.get(text)
        if runs is None:
            if len(known) >= KEPT:
                known.clear()
            # characters that are their own code in subset 0 (an `asciiReadable` font's printable ASCII it has,
            # given those codes when the state was made): a text of only these is one run of its own bytes
            fixed: frozenset[str] | None = state.__dict__.get("cardc_fixed")
            if fixed is None:
                fixed = state.cardc_fixed = frozenset(
                    chr(c) for c in range(32, 128) if state.assignments.get(c) == c and c in self.face.charToGlyph)
            if type(text) is str and text and fixed.issuperset(text):
                runs = known[text] = [(0, text.encode("ascii"))]
            else:
                runs = known[text] = split(self, text, doc, encoding)
        return runs

    to_color = type(colors.toColor).__call__
    parsed_colors: dict[str, Any] = {}

    def color_of(self: Any, arg: Any, default: Any = None) -> Any:
        """reportlab's colour of a markup attribute (`rgb(...)`: a regular expression and a new Color each time),
        once per string; colours are values, never changed."""
        if type(arg) is not str:
            return to_color(self, arg, default)
        color = parsed_colors.get(arg)
        if color is None:
            color = parsed_colors[arg] = to_color(self, arg, default)
        return color

    def copy_frag(self: ParaFrag) -> ParaFrag:
        """What `copy.copy` makes of a fragment (a new one with the same attributes), without its generic
        `__reduce_ex__` round trip: the parser copies a fragment for every tag and every run of text."""
        frag = ParaFrag.__new__(ParaFrag)
        frag.__dict__.update(self.__dict__)
        return frag

    rl_paragraph.stringWidth = pdfmetrics.stringWidth = string_width
    pdfdoc.pdfdocEnc, pdfdoc.PDFName = pdfdoc_enc, pdf_name
    TTFont.splitString = split_string
    pdfdoc.LinkAnnotation.format = format_link
    type(colors.toColor).__call__ = color_of
    ParaFrag.__copy__ = copy_frag
    try:
        yield
    finally:
        rl_paragraph.stringWidth = pdfmetrics.stringWidth = measure
        pdfdoc.pdfdocEnc, pdfdoc.PDFName = encode, name_of
        TTFont.splitString = split
        pdfdoc.LinkAnnotation.format = link_format
        type(colors.toColor).__call__ = to_color
        del ParaFrag.__copy__
