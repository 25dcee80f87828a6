"""The printable rulebook's table of contents is laid out in one pass: every entry's page number (drawn after
the layout) is the page its heading landed on, and the contents take as many pages as their entries need."""

from __future__ import annotations

import re
from pathlib import Path

import pypdf
import pypdfium2 as pdfium
from cardc.backends.print.rulebook import Rulebook
from cardc.backends.print.settings import PrintSettings


def _pages(n: int, paragraphs: int) -> list[dict[str, object]]:
    text = " ".join(f"word{i}" for i in range(120))
    return [{"stem": f"p{k}", "title": f"Chapter {k}", "sections": [
        {"id": f"s{j}", "title": f"Part {k}.{j}", "blocks": [{"type": "p", "rich": [{"t": text}]}] * paragraphs}
        for j in range(3)]} for k in range(n)]


def _texts(path: Path) -> list[str]:
    pdf = pdfium.PdfDocument(str(path))
    return [pdf[i].get_textpage().get_text_range() for i in range(len(pdf))]


def _contents(path: Path) -> dict[str, int]:
    """Each entry of the contents and the number printed on its line (found by position, not by text order)."""
    pdf = pdfium.PdfDocument(str(path))
    found: dict[str, int] = {}
    for i in range(len(pdf)):
        page = pdf[i]
        tp = page.get_textpage()
        if ". . ." not in tp.get_text_range():
            continue
        width = page.get_width()
        for title in re.findall(r"^(Chapter \d+|Part \d+\.\d+)\s*$", tp.get_text_range(), re.M):
            hit = tp.search(title, match_case=True, match_whole_word=True).get_next()
            assert hit is not None
            _left, bottom, _right, top = tp.get_charbox(hit[0])
            line = tp.get_text_bounded(left=0, bottom=bottom + 1, right=width, top=top - 1)
            number = re.search(r"(\d+)\s*$", line)
            assert number is not None and ". ." in line, line
            found[title] = int(number.group(1))
    return found


def test_contents_name_the_page_of_every_heading(tmp_path: Path) -> None:
    path = tmp_path / "rules.pdf"
    count = Rulebook({}, {}, PrintSettings()).write(path, "Book", _pages(40, 2), {})
    texts = _texts(path)
    assert count == len(texts) > 40
    assert len([t for t in texts if ". . ." in t]) > 1  # the contents spill over more than one page
    listed = _contents(path)
    assert len(listed) == 40 * 4  # every heading
    body = [i for i, t in enumerate(texts) if ". . ." not in t]
    for heading, number in listed.items():
        first = next(i for i in body if re.search(rf"^{re.escape(heading)}\s*$", texts[i], re.M))
        assert number == first + 1, heading


def test_contents_entries_link_to_their_headings(tmp_path: Path) -> None:
    path = tmp_path / "rules.pdf"
    Rulebook({}, {}, PrintSettings()).write(path, "Book", _pages(6, 3), {})
    listed = _contents(path)
    reader = pypdf.PdfReader(str(path))
    numbers = {p.indirect_reference.idnum: n for n, p in enumerate(reader.pages, 1)}
    targets = [numbers[a.get_object()["/Dest"][0].idnum] for a in reader.pages[0]["/Annots"]]
    # the title and the rest of the line of every entry link to the page its number names
    assert sorted(targets) == sorted([n for n in listed.values() for _ in range(2)])
