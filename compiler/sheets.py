"""Card lists kept in spreadsheets: `import "monsters.csv" as monster` (CSV or XLSX) becomes declarations.

Row 1 names the columns: `id` (required), attributes by name, texts one column per language (`name.en`,
`name.cs`, ...; `name.provisional` holds a note that marks the name provisional), `copies` optional. Each row is
one entity of the kind. A cell is DSL source (`8`, `+1`, `2d6`, `[sword, shield]`, `provisional 6 "note"`,
`unknown`), except cells of text columns and of string or path attributes, which are taken as written. Each row
is parsed as the declaration it stands for, so every value is checked by the same checker as `.cardc` source;
positions are then moved to the sheet: line = the row, column = the sheet's column number (A = 1).
"""

from __future__ import annotations

import csv
import dataclasses
import io
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from cardc import syntax as s
from cardc.diagnostics import DiagnosticSink, Span

SHEET_SUFFIXES = (".csv", ".xlsx")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
STRING_TYPES = ("string", "path")
# Cells of string columns are taken as written, unless they start like a DSL value that is not a plain word.
_DSL_STRING = re.compile(r'\s*("|provisional\s|unknown(\s|"|\Z))')
T = TypeVar("T")


def column_letter(col: int) -> str:
    out = ""
    while col > 0:
        col, rem = divmod(col - 1, 26)
        out = chr(65 + rem) + out
    return out


class SheetError(Exception):
    """A sheet that cannot be read as CSV or XLSX (the message says why)."""


def read_rows(path: Path) -> list[list[str]]:
    """Every row of the sheet as text cells (XLSX: the first worksheet, values as displayed); raises
    SheetError (or OSError) for a file that is not a readable sheet."""
    import zipfile

    from openpyxl.utils.exceptions import InvalidFileException

    try:
        return _read_rows(path)
    except (UnicodeDecodeError, csv.Error, zipfile.BadZipFile, InvalidFileException,
            SyntaxError) as err:  # SyntaxError: the XML parsers' errors (ElementTree's and lxml's) derive from it
        raise SheetError(str(err) or type(err).__name__) from None
    except (KeyError, IndexError, ValueError, TypeError) as err:  # openpyxl on a workbook missing its parts
        raise SheetError(f"a damaged workbook ({type(err).__name__}: {err})") from None


def _read_rows(path: Path) -> list[list[str]]:
    if path.suffix.lower() == ".xlsx":
        from openpyxl import load_workbook

        wb = load_workbook(path, read_only=True, data_only=True)
        try:
            ws = wb.worksheets[0]
            return [[_cell_text(v) for v in row] for row in ws.iter_rows(values_only=True)]
        finally:
            wb.close()
    text = path.read_text(encoding="utf-8-sig")
    first = text.split("\n", 1)[0]
    delimiter = max(",;\t", key=first.count) if first else ","  # spreadsheets in many locales write `;`
    return [list(row) for row in csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)]


def _cell_text(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


@dataclass(frozen=True)
class Column:
    index: int  # 1-based, as the sheet numbers it
    attr: str
    lang: str | None  # `name.en` -> ("name", "en"); `name.provisional` -> ("name", "provisional")


def _string_literal(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t") + '"'


def sheet_declarations(rows: list[list[str]], file: str, kind: str, string_attrs: set[str],
                       sink: DiagnosticSink, parse: Callable[[str, str, DiagnosticSink], s.FileS | None]
                       ) -> list[s.DeclS]:
    """The entities of a sheet; problems reported at `file:ROW:COL`."""
    if not rows or not any(c.strip() for c in rows[0]):
        sink.error("E116", "the sheet is empty: row 1 must name the columns", Span(file, 1, 1),
                   "put `id`, `name.en` (one column per language) and the attributes in row 1")
        return []
    columns: list[Column] = []
    for i, raw in enumerate(rows[0], start=1):
        head = raw.strip()
        if not head:
            continue
        attr, _, lang = head.partition(".")
        if not _NAME.match(attr) or (lang and not _NAME.match(lang)):
            sink.error("E116", f"column {column_letter(i)} is named `{head}`, which is no attribute",
                       Span(file, 1, i), "name columns `id`, an attribute like `strength`, or a text in one "
                       "language like `name.en`")
            continue
        columns.append(Column(i, attr, lang or None))
    id_col = next((c for c in columns if c.attr == "id" and c.lang is None), None)
    if id_col is None:
        sink.error("E116", "the sheet has no `id` column", Span(file, 1, 1),
                   "add a column named `id` with a unique name per row, like goblin_archer")
        return []
    decls: list[s.DeclS] = []
    for row_no, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        decl = _row(row, row_no, columns, id_col, file, kind, string_attrs, sink, parse)
        if decl is not None:
            decls.append(decl)
    return decls


def _row(row: list[str], row_no: int, columns: list[Column], id_col: Column, file: str, kind: str,
         string_attrs: set[str], sink: DiagnosticSink,
         parse: Callable[[str, str, DiagnosticSink], s.FileS | None]) -> s.DeclS | None:
    def cell(c: Column) -> str:
        return row[c.index - 1].strip() if c.index - 1 < len(row) else ""

    ident = cell(id_col)
    if not _NAME.match(ident):
        what = "is empty" if not ident else f"`{ident}` is no valid id"
        sink.error("E116", f"the id in row {row_no} {what}", Span(file, row_no, id_col.index),
                   "ids use letters, digits and `_` and start with a letter, like goblin_archer")
        return None
    # The row's members as DSL text, each with the sheet column it came from.
    members: list[tuple[str, int]] = []
    texts: dict[str, list[Column]] = {}
    for c in columns:
        if c.lang is not None:
            texts.setdefault(c.attr, []).append(c)
    for c in columns:  # in the sheet's column order; a text where its first language column is
        if c is id_col:
            continue
        if c.lang is not None:
            cols = texts.pop(c.attr, None)
            entries = [(x, cell(x)) for x in cols or () if x.lang != "provisional" and cell(x)]
            if entries:
                parts = " ".join(f"{x.lang} {_string_literal(text)}" for x, text in entries)
                value = f"{{ {parts} }}"
                note = next((cell(x) for x in cols or () if x.lang == "provisional" and cell(x)), None)
                if note:
                    value = f"provisional {value} {_string_literal(note)}"
                members.append((f"{c.attr}: {value}", entries[0][0].index))
            continue
        value = cell(c)
        if not value:
            continue  # an empty cell: the attribute's default, or a missing-attribute error
        if c.attr in string_attrs and not _DSL_STRING.match(value):
            value = _string_literal(value)
        members.append((f"{c.attr}: {' '.join(value.splitlines())}", c.index))
    head = f"{kind} {ident} {{ "
    local = DiagnosticSink()
    parsed, where = _parse_row(head, members, row_no, file, id_col.index, local, parse)
    if parsed is None:  # a malformed cell: find each one, say it at its cell, check the rest of the row
        bad: list[tuple[str, int]] = []
        for member in members:
            one = DiagnosticSink()
            _parse_row(head, [member], row_no, file, id_col.index, one, parse)
            if one.items:
                bad.append(member)
                sink.items.extend(one.items)
        if not bad:  # pragma: no cover - the row fails only through one of its cells
            sink.items.extend(local.items)
            return None
        # a bad cell counts as not known yet, so the rest of the row is checked without a "missing" error
        kept = [m if m not in bad else (f"{m[0].split(':', 1)[0]}: unknown \"a malformed cell\"", m[1])
                for m in members]
        parsed, where = _parse_row(head, kept, row_no, file, id_col.index, DiagnosticSink(), parse)
    else:
        sink.items.extend(local.items)
    if parsed is None or not parsed.decls:
        return None
    return _move(parsed.decls[0], where)


def _parse_row(head: str, members: list[tuple[str, int]], row_no: int, file: str, id_col: int,
               sink: DiagnosticSink, parse: Callable[[str, str, DiagnosticSink], s.FileS | None]
               ) -> tuple[s.FileS | None, Callable[[Span], Span]]:
    """Parse one row as one line of DSL; problems and positions moved to the row and the cell's column."""
    line = head
    spans: list[tuple[int, int, int]] = [(1, len(head), id_col)]
    for text, col in members:
        start = len(line) + 1
        line += text + " "
        spans.append((start, len(line), col))
    line += "}"

    def where(sp: Span) -> Span:
        col = next((c for a, b, c in spans if a <= sp.col <= b), id_col)
        return Span(file, row_no, col)

    local = DiagnosticSink()
    parsed = parse(line, file, local)
    sink.items.extend(dataclasses.replace(d, span=where(d.span)) for d in local.items)
    return parsed, where


def _move(node: T, where: Callable[[Span], Span]) -> T:
    """The same syntax tree with every span moved by `where` (from the row's line to the sheet's cells)."""
    if isinstance(node, Span):
        return where(node)  # type: ignore[return-value]
    if isinstance(node, tuple):
        return tuple(_move(x, where) for x in node)  # type: ignore[return-value]
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        changes = {f.name: _move(getattr(node, f.name), where) for f in dataclasses.fields(node)}
        return dataclasses.replace(node, **changes)
    return node


def kind_string_attrs(files: list[s.FileS], kind: str) -> set[str]:
    """The attributes of `kind` (and the kinds it extends) whose cells are plain strings, from the declarations."""
    from cardc.lower import BUILTIN_ATTRS

    decls = {d.id: d for f in files for d in f.decls if d.kind == "kind"}
    out = {a for a, (t, _req) in BUILTIN_ATTRS.items() if t in STRING_TYPES}
    seen: set[str] = set()
    current: str | None = kind
    while current is not None and current in decls and current not in seen:
        seen.add(current)
        d = decls[current]
        for a in d.decls:
            if a.kind != "attr":
                continue
            t = next((x.value for x in a.attrs if x.name == "type"), None)
            if isinstance(t, s.CallV) and t.name in STRING_TYPES:
                out.add(a.id)
        current = d.extends
    return out
