"""The rulebooks' own text layout (`richtext`): lines within their width, every word once and in order, links and
anchors where their text is; and the bundled fonts' fast `TJ` arrays (characters already coded, one subset) are
the arrays the character-by-character loop makes."""

from __future__ import annotations

import re
from pathlib import Path

import pypdf
import pypdfium2 as pdfium
import pytest
from cardc.backends.print.fonts import Font, font
from cardc.backends.print.richtext import Run, TextStyle, lay_out
from cardc.backends.print.rulebook import Rulebook, _text_styles, plain_text
from cardc.backends.print.settings import PrintSettings
from hypothesis import given, settings
from hypothesis import strategies as st
from reportlab.pdfgen.canvas import Canvas

TEXTS = ["AVATAR Tomáš, Wolf; LT 'quoted' (x) \\ back", "Při sčítání útoku v souboji: +2 k útoku", "T.V.A.",
         "Yo! ťuk. ďábel Ľ", "", " ", "ffi «ok» — 1–4 · x"]


def _arrays(texts: list[str], fast: bool, monkeypatch: pytest.MonkeyPatch) -> list[list[tuple[str, str]]]:
    if not fast:
        monkeypatch.setattr(Font, "_tj_known", lambda *args: None)
    canvas = Canvas("unused.pdf")
    out = [font(key).tj_arrays(text, canvas._doc)
           for _round in range(2) for text in texts for key in ("regular", "bold")]
    monkeypatch.undo()
    return out


@given(st.lists(st.text(alphabet="AVTWYLaoe.,' ()\\ťřčáíú—ffi«»xyz0123456789", max_size=40), max_size=8))
@settings(max_examples=60, deadline=None)
def test_fast_tj_arrays_are_the_loops_arrays(texts: list[str]) -> None:
    with pytest.MonkeyPatch.context() as mp:
        assert _arrays(TEXTS + texts, True, mp) == _arrays(TEXTS + texts, False, mp)


def _style() -> TextStyle:
    return _text_styles()["body"]


@pytest.mark.parametrize("width", [60.0, 120.0, 400.0])
def test_lines_keep_every_word_in_order_within_the_width(width: float) -> None:
    style = _style()
    words = [f"word{i}" for i in range(60)]
    runs = [style.run(" ".join(words[:20]) + " "), style.run(" ".join(words[20:40]), bold=True, link="x"),
            style.run(", " + " ".join(words[40:]))]
    lines = lay_out(runs, style, width, bullet="•")
    assert plain_text(lines).replace(" ,", ",").split() == ["•", *words[:39], words[39] + ",", *words[40:]]
    for line in lines:
        x, text, f, size, _color, _link, end = line.spans[-1]
        assert end <= width + 1e-6 and abs(x + f.width(text) * size - end) < 0.5
    assert all(span[0] > 0 for line in lines for span in line.spans if span[1] != "•")  # hanging bullet


@given(st.lists(st.tuples(st.text(alphabet="ab \n,.řŽ", max_size=30), st.booleans(), st.booleans()), max_size=12),
       st.floats(min_value=200, max_value=400))
@settings(max_examples=80, deadline=None)
def test_any_runs_keep_their_words_in_order_within_the_width(parts: list[tuple[str, bool, bool]], width: float) -> None:
    """Words run together across runs where no space parts them (a link and its comma); lines stay in the width
    (words are short here) and a glued group goes to the next line whole when it fits one."""
    style = _style()
    runs = [style.run(text, bold=bold, link="x" if link else None) for text, bold, link in parts]
    lines = lay_out(runs, style, width)
    words = "".join(text for text, _b, _l in parts).split()
    assert "".join(plain_text(lines).split()) == "".join(words)
    if all(len(word) <= 12 for word in words):  # (each fits a line: only broken between words)
        assert plain_text(lines).split() == words
    assert all(line.spans[-1][6] <= width + 1e-6 for line in lines)


def test_a_word_wider_than_the_line_is_cut_between_characters() -> None:
    style = _style()
    lines = lay_out([style.run("x" * 300 + " end")], style, 100.0)
    assert len(lines) > 2 and plain_text(lines).replace(" ", "") == "x" * 300 + "end"
    assert all(s[6] <= 100.0 + 1e-6 for line in lines for s in line.spans)


def test_no_words_no_lines_but_an_anchor_keeps_one() -> None:
    style = _style()
    assert lay_out([Run("  ", style.font, 9.5, (0, 0, 0))], style, 100) == []
    assert [line.anchor for line in lay_out([], style, 100, anchor="a")] == ["a"]


def test_entries_link_to_entries_and_their_text_is_in_the_pdf(tmp_path: Path) -> None:
    entries = [{"type": "entry", "id": f"e-{i}", "title": f"Thing {i}", "kind": "Card", "badges": [],
                "attrs": [["Cost", [{"t": str(i)}]],
                          ["Needs", [{"t": f"Thing {(i + 1) % 30}", "anchor": f"e-{(i + 1) % 30}"}]]],
                "hand": [[{"t": "Hand-written text, řčž."}]], "effects": [[{"t": f"Effect {i} " + "word " * 30}]],
                "meta": [], "children": []} for i in range(30)]
    page = {"stem": "p", "title": "Things", "sections": [{"id": "s", "title": "", "blocks": entries}]}
    path = tmp_path / "rules.pdf"
    count = Rulebook({}, {}, PrintSettings()).write(path, "Book", [page], {})
    pdf = pdfium.PdfDocument(str(path))
    text = "".join(pdf[i].get_textpage().get_text_range() for i in range(len(pdf)))
    assert count == len(pdf) >= 2
    for i in range(30):
        assert f"Thing {i}" in text and f"Effect {i}" in text
    assert "řčž" in text
    reader = pypdf.PdfReader(str(path))
    links = [a.get_object() for p in reader.pages[1:] for a in p.get("/Annots", [])]
    assert len(links) == 30 and all("/Dest" in a for a in links)


def test_an_entry_longer_than_pages_flows_on_every_word_once(tmp_path: Path) -> None:
    words = [f"w{i}" for i in range(3000)]
    entry = {"type": "entry", "id": "e-long", "title": "Long", "kind": "Card", "badges": [], "attrs": [],
             "hand": [], "effects": [[{"t": " ".join(words[:1500])}], [{"t": " ".join(words[1500:])}]],
             "meta": [], "children": []}
    page = {"stem": "p", "title": "Things", "sections": [{"id": "s", "title": "", "blocks": [entry]}]}
    path = tmp_path / "rules.pdf"
    count = Rulebook({}, {}, PrintSettings()).write(path, "Book", [page], {})
    pdf = pdfium.PdfDocument(str(path))
    assert count == len(pdf) >= 4
    text = " ".join(pdf[i].get_textpage().get_text_range() for i in range(1, len(pdf)))
    assert re.findall(r"\bw(\d+)\b", text) == [str(i) for i in range(3000)]
