"""Long rulebook tables are laid out as tables of at most TABLE_CHUNK rows, each with the head, so reportlab's
page splits stay small (one table of n rows costs O(n^2 / rows per page) to split); short tables stay whole."""

from __future__ import annotations

import re
from pathlib import Path

import pypdfium2 as pdfium
from cardc.backends.print.rulebook import TABLE_CHUNK, Rulebook
from cardc.backends.print.settings import parse_settings
from reportlab.platypus import Table


def _table(n: int) -> dict[str, object]:
    return {"type": "table", "head": ["Name", "Value"],
            "rows": [[[{"t": f"row {i}"}], [{"t": str(i)}]] for i in range(n)]}


def _texts(table: Table) -> list[str]:
    return [row[0].getPlainText() for row in table._cellvalues]


def _book() -> Rulebook:
    settings, diags = parse_settings({})
    assert not diags
    return Rulebook({}, {}, settings)


def test_a_short_table_is_one_table_with_its_head() -> None:
    tables = [f for f in _book().block(_table(TABLE_CHUNK)) if isinstance(f, Table)]
    assert len(tables) == 1
    assert _texts(tables[0]) == ["Name", *(f"row {i}" for i in range(TABLE_CHUNK))]
    assert tables[0].repeatRows == 1


def test_a_long_table_is_cut_into_chunks_each_with_the_head_rows_in_order() -> None:
    n = 2 * TABLE_CHUNK + 7
    tables = [f for f in _book().block(_table(n)) if isinstance(f, Table)]
    assert [len(t._cellvalues) for t in tables] == [TABLE_CHUNK + 1, TABLE_CHUNK + 1, 8]
    assert all(_texts(t)[0] == "Name" and t.repeatRows == 1 for t in tables)
    assert [text for t in tables for text in _texts(t)[1:]] == [f"row {i}" for i in range(n)]


def test_an_empty_table_keeps_its_head() -> None:
    tables = [f for f in _book().block(_table(0)) if isinstance(f, Table)]
    assert [_texts(t) for t in tables] == [["Name"]]


def test_a_long_table_lays_out_every_row(tmp_path: Path) -> None:
    n = TABLE_CHUNK + 150
    page = {"title": "List", "stem": "list", "sections": [{"id": "s", "title": "", "blocks": [_table(n)]}]}
    path = tmp_path / "rules.pdf"
    pages = _book().write(path, "Long", [page], {})
    pdf = pdfium.PdfDocument(str(path))
    text = "".join(pdf[i].get_textpage().get_text_range() for i in range(len(pdf)))
    assert pages == len(pdf) > 2
    assert [int(i) for i in re.findall(r"row (\d+)", text)] == list(range(n))  # every row, once, in order
