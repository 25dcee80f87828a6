"""The rulebook hands its paragraph markup to reportlab as a tuple tree (no HTML parser): the fragments it gets
must be the ones reportlab's own parser makes of the same markup, and markup it does not know goes to that
parser unchanged."""

from __future__ import annotations

from typing import Any

import pytest
from cardc.backends.print import rulebook
from cardc.backends.print.rulebook import Paragraph, _rich, _styles, tuple_tree
from reportlab.platypus.paragraph import Paragraph as ReportlabParagraph

RICH = _rich([{"t": "Gain 2 "}, {"t": "Blade & Shield", "anchor": "e-blade"}, {"t": " <now>"},
              {"t": "provisional", "badge": "provisional"}])
MARKUP = [
    "Plain text, nothing else.",
    "Text with   runs of\n spaces and\n\n newlines ",
    "Tom &amp; Jerry &lt;3 &gt; x",
    RICH,
    f'<a name="e-blade"/>Blade <font size="8" color="{rulebook.ACCENT}">Item</font>{RICH}',
    "<b>Cost</b> 3 · <b>Attack</b> +2 · <i>Note:</i> see <b>above</b>",
    '<a href="#page-x">Chapter 1</a><onDraw name="cardc_toc_end" label="3"/>',
]


def _merged(frags: list[Any], skip: str = "text") -> list[tuple[str, str]]:
    """(attributes, text) runs, neighbours with equal attributes joined (reportlab's parser splits text at each
    entity; the tuple tree gives it in one piece, which breaks and draws the same)."""
    out: list[list[str]] = []
    for f in frags:
        attrs = repr(sorted((k, repr(v)) for k, v in f.__dict__.items() if k not in ("text", skip)))
        if out and out[-1][0] == attrs and not hasattr(f, "cbDefn"):
            out[-1][1] += f.text
        else:
            out.append([attrs, f.text])
    return [(a, t) for a, t in out]


@pytest.mark.parametrize("markup", MARKUP)
@pytest.mark.parametrize("style", ["body", "h3", "cell", "small"])
def test_tuple_tree_gives_reportlabs_fragments(markup: str, style: str) -> None:
    st = _styles()[style]
    ours, theirs = Paragraph(markup, st), ReportlabParagraph(markup, st)
    assert tuple_tree(ours.text) is not None
    assert _merged(ours.frags) == _merged(theirs.frags)
    assert ours.getPlainText() == theirs.getPlainText()
    assert ours.wrap(200, 500) == theirs.wrap(200, 500)
    assert _lines(ours) == _lines(theirs)


def _lines(p: ReportlabParagraph) -> list[list[str]]:
    """The words of each broken line (one run of text is kept as words, several as fragments)."""
    out = []
    for line in p.blPara.lines:
        if isinstance(line, tuple):
            out.append(" ".join(line[1]).split())
        else:
            out.append("".join(getattr(f, "text", "") for f in line.words).split())
    return out


def test_bullets_and_splits_keep_working() -> None:
    st = _styles()["body"]
    text = " ".join(f"word{i}" for i in range(400))
    ours, theirs = Paragraph(text, st, bulletText="•"), ReportlabParagraph(text, st, bulletText="•")
    assert ours.bulletText == theirs.bulletText == "•"
    _w, h = ours.wrap(200, 10_000)
    assert theirs.wrap(200, 10_000) == (_w, h)
    parts, expected = ours.split(200, h / 2), theirs.split(200, h / 2)
    assert len(parts) == len(expected) == 2 and all(isinstance(part, Paragraph) for part in parts)
    for part, exp in zip(parts, expected, strict=True):
        assert part.wrap(200, 10_000) == exp.wrap(200, 10_000)
        assert _lines(part) == _lines(exp)


@pytest.mark.parametrize("markup", ["a < b", "<b>unclosed", "x</b>", "<b x=1>y</b>", "<br/>a", "a <!-- c --> b"])
def test_markup_it_does_not_know_goes_to_reportlab(markup: str) -> None:
    if markup == "<br/>a":
        assert tuple_tree(markup) is not None  # a known shape: reportlab's own handler for <br/> runs
        return
    assert tuple_tree(markup) is None


@pytest.mark.parametrize("markup", MARKUP)
def test_the_same_markup_again_lays_out_as_parsed_afresh(markup: str) -> None:
    """A paragraph whose markup and style were met before takes the parsed fragments again; laying out and
    splitting the first one (and then the second) must leave both as a fresh parse lays them out."""
    st = _styles()["body"]
    rulebook._PARSED.clear()
    long = " ".join([markup] * 30)
    first = Paragraph(long, st)
    assert (rulebook.cleanBlockQuotedText(long), id(st)) in rulebook._PARSED
    w, h = first.wrap(150, 10_000)
    first_parts = first.split(150, h / 2)
    again = Paragraph(long, st)
    rulebook._PARSED.clear()
    fresh = Paragraph(long, st)
    # the same fragments; line breaking notes on each what kind it is (`_fkind`, read from the fragment itself)
    assert again.frags is not fresh.frags
    assert _merged(again.frags, skip="_fkind") == _merged(fresh.frags, skip="_fkind")
    assert again.wrap(150, 10_000) == fresh.wrap(150, 10_000) == (w, h)
    assert _lines(again) == _lines(fresh)
    for part, exp in zip(again.split(150, h / 2), fresh.split(150, h / 2), strict=True):
        assert part.wrap(150, 10_000) == exp.wrap(150, 10_000) and _lines(part) == _lines(exp)
    for part, exp in zip(first_parts, fresh.split(150, h / 2), strict=True):
        assert part.wrap(150, 10_000) == exp.wrap(150, 10_000) and _lines(part) == _lines(exp)
