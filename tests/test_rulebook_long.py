"""The printable rulebook lays out any length of content: a table cell taller than a page (a kind with
thousands of tags, say) flows on to the next page instead of stopping the build."""

from __future__ import annotations

from pathlib import Path

import pypdfium2 as pdfium
from cardc.backends.print.rulebook import Rulebook
from cardc.backends.print.settings import PrintSettings


def test_a_table_cell_taller_than_a_page_flows_on(tmp_path: Path) -> None:
    words = " ".join(f"tag_{i}" for i in range(4000))  # about six pages of text in one cell
    page = {"stem": "kinds", "title": "Kinds", "sections": [{"id": "tags", "title": "Tags", "blocks": [
        {"type": "table", "head": ["Tags", "Where"], "rows": [[[{"t": words}], [{"t": "everywhere"}]]]}]}]}
    path = tmp_path / "rules.pdf"
    pages = Rulebook({}, {}, PrintSettings()).write(path, "Long", [page], {})
    assert pages >= 4
    pdf = pdfium.PdfDocument(str(path))
    text = "".join(pdf[i].get_textpage().get_text_range() for i in range(len(pdf)))
    assert "tag_0" in text and "tag_3999" in text  # nothing cut off
