"""Long rulebook tables are laid out as tables of at most TABLE_CHUNK rows, each with the head (repeated on every
page it spans), so a page split copies at most that many rows; short tables stay whole."""

from __future__ import annotations

import re
from pathlib import Path

import pypdfium2 as pdfium
from cardc.backends.print.rulebook import CELL_RUNS, TABLE_CHUNK, Grid, Rulebook, _row_chunks, plain_text
from cardc.backends.print.settings import parse_settings


def _table(n: int) -> dict[str, object]:
    return {"type": "table", "head": ["Name", "Value"],
            "rows": [[[{"t": f"row {i}"}], [{"t": str(i)}]] for i in range(n)]}


def _texts(table: Grid) -> list[str]:
    return [plain_text(row[0]) for row in [table.head, *table.rows]]


def _book() -> Rulebook:
    settings, diags = parse_settings({})
    assert not diags
    return Rulebook({}, {}, settings)


def test_a_short_table_is_one_table_with_its_head() -> None:
    tables = [f for f in _book().block(_table(TABLE_CHUNK)) if isinstance(f, Grid)]
    assert len(tables) == 1
    assert _texts(tables[0]) == ["Name", *(f"row {i}" for i in range(TABLE_CHUNK))]


def test_a_long_table_is_cut_into_chunks_each_with_the_head_rows_in_order() -> None:
    n = 2 * TABLE_CHUNK + 7
    tables = [f for f in _book().block(_table(n)) if isinstance(f, Grid)]
    assert [len(t.rows) + 1 for t in tables] == [TABLE_CHUNK + 1, TABLE_CHUNK + 1, 8]
    assert all(_texts(t)[0] == "Name" for t in tables)
    assert [text for t in tables for text in _texts(t)[1:]] == [f"row {i}" for i in range(n)]


def test_an_empty_table_keeps_its_head() -> None:
    tables = [f for f in _book().block(_table(0)) if isinstance(f, Grid)]
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


def _names(n: int, linked: bool = True) -> list[dict[str, str]]:
    """A cell listing n names, ", " between them, as the glossary's "used by" cells do (there they are links)."""
    runs: list[dict[str, str]] = []
    for i in range(n):
        if i:
            runs.append({"t": ", "})
        runs.append({"t": f"name {i}", "anchor": f"e-{i}"} if linked else {"t": f"name {i}"})
    return runs


def test_a_row_with_short_cells_stays_one_row() -> None:
    row = [[{"t": "tag"}], _names((CELL_RUNS + 1) // 2)]
    assert len(row[1]) <= CELL_RUNS
    assert _row_chunks(row) == [row]


def test_a_long_cell_goes_on_in_rows_below_cut_after_a_separator() -> None:
    long = _names(3 * CELL_RUNS)
    pieces = _row_chunks([[{"t": "tag"}], long])
    assert len(pieces) > 1
    assert pieces[0][0] == [{"t": "tag"}] and all(p[0] == [] for p in pieces[1:])
    assert all(0 < len(p[1]) <= CELL_RUNS for p in pieces)
    assert all(p[1][-1]["t"] == ", " for p in pieces[:-1])  # no name is cut off from its comma
    assert [run for p in pieces for run in p[1]] == long  # every run, once, in order


def test_a_cell_without_separators_is_cut_at_the_limit() -> None:
    runs = [{"t": f"w{i} "} for i in range(2 * CELL_RUNS + 1)]
    pieces = _row_chunks([runs])
    assert [len(p[0]) for p in pieces] == [CELL_RUNS, CELL_RUNS, 1]


def test_a_cell_longer_than_pages_lays_out_every_name(tmp_path: Path) -> None:
    n = 12 * CELL_RUNS  # several pages of names in one glossary cell
    table = {"type": "table", "head": ["Tag", "Used by"], "rows": [[[{"t": "tag"}], _names(n, linked=False)]]}
    page = {"title": "Glossary", "stem": "g", "sections": [{"id": "s", "title": "", "blocks": [table]}]}
    path = tmp_path / "rules.pdf"
    pages = _book().write(path, "Long cell", [page], {})
    pdf = pdfium.PdfDocument(str(path))
    text = "".join(pdf[i].get_textpage().get_text_range() for i in range(len(pdf)))
    assert pages == len(pdf) > 2
    text = re.sub(r"Long cell · \d+\s*(Tag Used by)?", " ", text)  # page footers and repeated heads
    assert [int(i) for i in re.findall(r"name\s+(\d+)", text)] == list(range(n))
