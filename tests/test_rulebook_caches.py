"""The rulebooks' caches (layout by markup, style, bullet and width; a paragraph's operators drawn again in one
document; reportlab's measurements and encodings remembered while the rulebooks are laid out) change nothing in
the files: the same bytes as without them, and distinct texts never share a layout."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pytest
from cardc.backends.print import rulebook
from cardc.backends.print.rulebook import Paragraph, _styles
from cardc.backends.print.settings import PrintSettings
from cardc.collector import paused
from hypothesis import given
from hypothesis import strategies as st
from reportlab.lib import colors
from reportlab.pdfbase import pdfdoc, pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import paragraph as rl_paragraph
from reportlab.platypus.paragraph import Paragraph as ReportlabParagraph
from reportlab.platypus.paragraph import cleanBlockQuotedText
from reportlab.platypus.paraparser import ParaFrag

from tests.test_rulebook_faces import _rulebooks
from tests.test_rulebook_markup import _lines


class _Forgetful(dict):  # type: ignore[type-arg]
    """A cache that keeps nothing."""

    def __setitem__(self, key: Any, value: Any) -> None:
        pass


def test_the_rulebooks_are_the_same_files_without_the_caches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    broken: list[int] = []  # reportlab line breakings
    draws: list[int] = []  # reportlab paragraph drawings
    wrap, draw = ReportlabParagraph.wrap, ReportlabParagraph.draw

    def counted_wrap(self: ReportlabParagraph, *args: Any) -> Any:
        broken.append(1)
        return wrap(self, *args)

    def counted_draw(self: ReportlabParagraph) -> None:
        draws.append(1)
        draw(self)

    monkeypatch.setattr(ReportlabParagraph, "wrap", counted_wrap)
    monkeypatch.setattr(ReportlabParagraph, "draw", counted_draw)
    rulebook._LAID.clear()
    cached = _rulebooks(tmp_path / "cached")
    cached_counts = len(broken), len(draws)
    broken.clear()
    draws.clear()
    monkeypatch.setattr(rulebook, "_LAID", _Forgetful())
    monkeypatch.setattr(rulebook, "_PARSED", _Forgetful())
    monkeypatch.setattr(rulebook, "_ACTS_ON_DOCUMENT", ("",))  # every paragraph drawn anew
    monkeypatch.setattr(rulebook, "memoized_reportlab", contextlib.nullcontext)
    plain = _rulebooks(tmp_path / "plain")
    assert len(cached) == 3 and plain == cached
    # the caches did serve: fewer line breakings than paragraphs laid out (entries and tables are not reportlab
    # paragraphs: the drawing cache is checked on repeated paragraphs below)
    assert cached_counts[0] < len(broken) and cached_counts[1] <= len(draws)


def test_paragraphs_drawn_again_are_the_same_file_as_drawn_anew(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    draws: list[int] = []
    draw = ReportlabParagraph.draw

    def counted_draw(self: ReportlabParagraph) -> None:
        draws.append(1)
        draw(self)

    monkeypatch.setattr(ReportlabParagraph, "draw", counted_draw)
    link = {"type": "p", "rich": [{"t": "See "}, {"t": "the part", "anchor": "p-s"}]}  # (its heading's anchor)
    blocks = [{"type": "p", "rich": [{"t": "None."}]}, link,
              {"type": "list", "items": [[{"t": "one"}], [{"t": "two"}]]}]
    page = {"stem": "p", "title": "Page", "sections": [{"id": "s", "title": "Part", "blocks": blocks * 40}]}

    def write(name: str) -> tuple[bytes, int]:
        draws.clear()
        path = tmp_path / name
        with rulebook.memoized_reportlab():
            rulebook.Rulebook({}, {}, PrintSettings()).write(path, "Book", [page], {})
        return path.read_bytes(), len(draws)

    cached, cached_draws = write("cached.pdf")
    monkeypatch.setattr(rulebook, "_ACTS_ON_DOCUMENT", ("",))  # every paragraph drawn anew
    plain, plain_draws = write("plain.pdf")
    assert plain == cached and cached_draws < plain_draws


TEXTS = [
    "one two three four five six seven eight nine ten eleven twelve",
    "one two three four five six seven eight nine ten eleven twelve!",
    '<b>one</b> two <link href="#x" color="rgb(122,46,46)">three four</link> five six seven eight nine ten',
    "one two three",
    "1",
    "11",
]


@pytest.mark.parametrize("width", [60.0, 150.0])
def test_distinct_texts_styles_bullets_and_widths_never_share_a_layout(width: float) -> None:
    rulebook._LAID.clear()
    cases = [(t, style, bullet, w) for t in TEXTS for style in ("body", "cell", "h3") for bullet in (None, "•")
             for w in (width, width + 0.5)]
    for _round in range(2):  # the second round is served by the cache
        for text, style, bullet, w in cases:
            ours = Paragraph(text, _styles()[style], bulletText=bullet)
            theirs = ReportlabParagraph(text, _styles()[style], bulletText=bullet)
            assert ours.wrap(w, 10_000) == theirs.wrap(w, 10_000), (text, style, bullet, w)
            assert _lines(ours) == _lines(theirs), (text, style, bullet, w)
    assert len(rulebook._LAID) == len(cases)


def test_a_split_leaves_the_cached_layout_as_it_was() -> None:
    """reportlab's split appends spaces to the words of the lines it hands on: a paragraph laid out from the cache
    splits lines of its own, so the next paragraph of the same text still gets a fresh layout's lines."""
    rulebook._LAID.clear()
    text = " ".join(f'w{i} <b>b{i}</b>' for i in range(25))  # (short enough to be kept: LAID_LONGEST)
    assert len(text) <= rulebook.LAID_LONGEST
    st = _styles()["body"]
    fresh = ReportlabParagraph(text, st)
    w, h = fresh.wrap(60, 10_000)
    expected = _lines(fresh)
    for _ in range(3):
        p = Paragraph(text, st)
        assert p.wrap(60, 10_000) == (w, h)
        assert _lines(p) == expected
        parts = p.split(60, h / 3)
        theirs = ReportlabParagraph(text, st)
        theirs.wrap(60, 10_000)
        for part, exp in zip(parts, theirs.split(60, h / 3), strict=True):
            assert part.wrap(60, 10_000) == exp.wrap(60, 10_000) and _lines(part) == _lines(exp)
    again = Paragraph(text, st)
    again.wrap(60, 10_000)
    assert again._shared and [f.text for f in again.blPara.lines[0].words] == \
        [f.text for f in fresh.blPara.lines[0].words]


def _drawn(p: ReportlabParagraph, canvas: Canvas) -> list[str]:
    code = canvas._code
    start = len(code)
    p.wrap(200, 1000)
    p.drawOn(canvas, 50, 500)
    return code[start:]


def test_a_paragraph_drawn_again_in_a_document_appends_the_same_operators(tmp_path: Path) -> None:
    st = _styles()["body"]
    text = "<b>Gain</b> two coins, then draw a card: <i>once</i> per turn."
    canvas = Canvas(str(tmp_path / "a.pdf"))
    first, second = _drawn(Paragraph(text, st), canvas), _drawn(Paragraph(text, st), canvas)
    assert first == second == _drawn(ReportlabParagraph(text, st), canvas)
    assert len(canvas.__dict__["cardc_drawn_paragraphs"]) == 1
    other = Canvas(str(tmp_path / "b.pdf"))  # another document draws it itself
    _drawn(Paragraph(text, st), other)
    assert len(other.__dict__["cardc_drawn_paragraphs"]) == 1


def _links_drawn(tmp_path: Path, cls: type, name: str) -> tuple[bytes, Canvas]:
    """A document with a paragraph of two links drawn three times (at other places, one of them translated and
    scaled), and a fourth time inside a document whose coordinates are not the paragraph's at its links."""
    st = _styles()["body"]
    text = (f'See <link href="#e-x" color="{rulebook.ACCENT}">the cellar</link> and '
            f'<a href="https://example.org/a">the map</a>, then go on reading a little.')
    canvas = Canvas(str(tmp_path / name), invariant=1)
    canvas.bookmarkPage("e-x")
    _drawn(cls(text, st), canvas)
    _drawn(cls(text, st), canvas)
    canvas.saveState()
    canvas.translate(20, -40)
    canvas.scale(0.5, 0.75)
    _drawn(cls(text, st), canvas)
    canvas.restoreState()
    canvas.showPage()
    canvas.save()
    return (tmp_path / name).read_bytes(), canvas


def test_a_paragraph_with_links_drawn_again_makes_its_links_again_where_it_is(tmp_path: Path) -> None:
    """The operators come from the first drawing; the links (a document link and a URL) are made again by the
    canvas where the paragraph is now: the same file as reportlab's own drawing, every link in it."""
    ours, canvas = _links_drawn(tmp_path, Paragraph, "ours.pdf")
    theirs, plain = _links_drawn(tmp_path, ReportlabParagraph, "theirs.pdf")
    assert ours == theirs
    assert canvas._annotationCount == plain._annotationCount == 6  # two links, three times
    assert len(canvas.__dict__["cardc_drawn_paragraphs"]) == 1
    assert "linkRect" not in canvas.__dict__ and "linkURL" not in canvas.__dict__  # the recorders removed


def test_a_paragraph_whose_links_are_made_elsewhere_than_its_origin_is_not_kept(tmp_path: Path,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A link made in another coordinate system than the paragraph's origin could not be made again alike: such
    a paragraph is drawn anew each time."""
    draw = ReportlabParagraph.draw

    def shifted(self: ReportlabParagraph) -> None:
        self.canv.translate(1, 1)
        draw(self)

    monkeypatch.setattr(ReportlabParagraph, "draw", shifted)
    st = _styles()["body"]
    text = f'See <link href="#e-x" color="{rulebook.ACCENT}">the cellar</link>.'
    canvas = Canvas(str(tmp_path / "a.pdf"))
    canvas.bookmarkPage("e-x")
    before = canvas._annotationCount
    _drawn(Paragraph(text, st), canvas)
    _drawn(Paragraph(text, st), canvas)
    assert canvas._annotationCount == before + 2
    assert not canvas.__dict__.get("cardc_drawn_paragraphs")


def test_memoized_reportlab_gives_reportlabs_values_and_puts_reportlab_back(tmp_path: Path) -> None:
    originals = (pdfmetrics.stringWidth, rl_paragraph.stringWidth, pdfdoc.pdfdocEnc, pdfdoc.PDFName,
                 TTFont.splitString, type(colors.toColor).__call__, pdfdoc.LinkAnnotation.format)
    name = _styles()["body"].fontName
    words = ["a", "two words", "Příšerně žluťoučký", "", " , "]
    widths = [pdfmetrics.stringWidth(w, name, 9.5) for w in words]
    canvas = Canvas(str(tmp_path / "a.pdf"))
    font = pdfmetrics.getFont(name)
    frag = ParaFrag(text="x", fontName=name, link=[])
    with rulebook.memoized_reportlab():
        assert pdfmetrics.stringWidth is not originals[0]
        for _ in range(2):
            assert [pdfmetrics.stringWidth(w, name, 9.5) for w in words] == widths
            assert [rl_paragraph.stringWidth(w, name, 9.5) for w in words] == widths
            assert pdfdoc.pdfdocEnc("/Rect") == b"/Rect" and pdfdoc.PDFName("a b") == "/a#20b"
            assert colors.toColor("rgb(122,46,46)") == colors.Color(122 / 255, 46 / 255, 46 / 255)
            runs = font.splitString("Příšerně", canvas._doc)
            assert runs == originals[4](font, "Příšerně", canvas._doc)
        copied = __import__("copy").copy(frag)
        assert copied is not frag and copied.__dict__ == frag.__dict__ and type(copied) is ParaFrag
    assert (pdfmetrics.stringWidth, rl_paragraph.stringWidth, pdfdoc.pdfdocEnc, pdfdoc.PDFName,
            TTFont.splitString, type(colors.toColor).__call__, pdfdoc.LinkAnnotation.format) == originals
    assert "__copy__" not in ParaFrag.__dict__


@pytest.mark.parametrize("rect", [(70.739501953125, 501.1, 115.423828125, 512.5), (0, -3, 1e-9, 1e6), [1, 2, 3, 4]])
@pytest.mark.parametrize("kw", [{}, {"Border": "[0 0 1]"}, {"thickness": 1, "color": colors.red}, {"C": "[1 0 0]"}])
def test_a_link_is_written_as_reportlab_writes_it(tmp_path: Path, rect: Any, kw: dict[str, Any]) -> None:
    canvas = Canvas(str(tmp_path / "a.pdf"))
    canvas.bookmarkPage("e-x")
    made = []
    for contents in ("", "a (note)"):
        if "C" in kw:  # an extra entry: reportlab's own way
            canvas._addAnnotation(pdfdoc.LinkAnnotation(rect, contents, canvas._bookmarkReference("e-x"), **kw))
        else:
            canvas.linkRect(contents, "e-x", rect, relative=0, **kw)
        made.append(canvas._doc.idToObject[f"Annot.NUMBER{canvas._annotationCount}"])
    canvas.showPage()
    doc = canvas._doc
    for ann in made:
        expected = pdfdoc.LinkAnnotation.format(ann, doc)
        with rulebook.memoized_reportlab():
            assert pdfdoc.LinkAnnotation.format(ann, doc) == expected
            assert pdfdoc.LinkAnnotation.format(ann, doc) == expected  # (its destination remembered)


def test_no_cyclic_collections_while_the_rulebooks_are_laid_out_and_as_before_afterwards(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import gc

    seen: list[bool] = []
    write = rulebook.Rulebook.write

    def noted(self: rulebook.Rulebook, *args: Any) -> int:
        seen.append(gc.isenabled())
        return int(write(self, *args))

    monkeypatch.setattr(rulebook.Rulebook, "write", noted)
    assert gc.isenabled()
    _rulebooks(tmp_path)
    assert seen and not any(seen) and gc.isenabled() and gc.get_freeze_count() == 0
    with pytest.raises(RuntimeError), paused():
        raise RuntimeError("a failed layout")
    assert gc.isenabled()


def test_a_long_paragraph_is_laid_out_but_not_kept() -> None:
    rulebook._LAID.clear()
    text = "word " * (rulebook.LAID_LONGEST // 5 + 1)
    p = Paragraph(text, _styles()["body"])
    assert p.wrap(150, 10_000) == ReportlabParagraph(text, _styles()["body"]).wrap(150, 10_000)
    assert not rulebook._LAID and not p._shared


def test_the_spaces_a_paragraph_is_cleaned_of_are_every_space_python_and_reportlab_know() -> None:
    from reportlab.platypus.paragraph import _wsc

    known = {chr(c) for c in range(0x110000) if chr(c).isspace()} | set(_wsc)
    assert known - {" "} <= set(rulebook._SPACES)


@given(st.text(alphabet=" ab\t\n\r\xa0\u200b\u2009\x1cčé", max_size=20))
def test_clean_text_is_reportlabs_cleaning(text: str) -> None:
    assert rulebook.clean_text(text) == cleanBlockQuotedText(text)


@pytest.mark.parametrize("readable", [True, False])
def test_a_text_splits_into_the_runs_reportlab_gives_it(tmp_path: Path, readable: bool) -> None:
    """Printable ASCII is one run of its own bytes in an `asciiReadable` font (without reportlab's loop over its
    characters); anything else, and every text of a font without that layout, as reportlab splits it."""
    name = _styles()["body"].fontName
    face = pdfmetrics.getFont(name)
    texts = ["Horan's axe (2) ~ {x}", " ", "", "tab\there", "Příšerně 1", "A\x7f", "\xa0x", "done."]
    expected = []
    font = TTFont(f"cardc-test-{readable}", face.face.filename, asciiReadable=readable)
    plain = Canvas(str(tmp_path / "plain.pdf"))
    for text in texts:
        expected.append(TTFont.splitString(font, text, plain._doc))
    canvas = Canvas(str(tmp_path / "a.pdf"))
    with rulebook.memoized_reportlab():
        got = [font.splitString(text, canvas._doc) for text in texts]
        again = [font.splitString(text, canvas._doc) for text in texts]
    assert got == again == expected
