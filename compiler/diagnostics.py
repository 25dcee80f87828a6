"""The one diagnostic type for every user error, and its rendering."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum

from cardc.records import pickle_by_constructor


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, slots=True)
class Span:
    """A position in a source file: 1-based line and column, plus the end of the spot."""

    file: str
    line: int
    col: int
    end_line: int = 0
    end_col: int = 0

    def to_json(self) -> dict[str, object]:
        return {"file": self.file, "line": self.line, "col": self.col}


NO_SPAN = Span("<command line>", 1, 1)


@dataclass(frozen=True, slots=True)
class Diagnostic:
    severity: Severity
    code: str
    message: str
    span: Span
    hint: str | None = None

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.span.file, self.span.line, self.span.col, self.code)

    def render(self, sources: dict[str, str] | None = None, *, index: SourceIndex | None = None) -> str:
        """`file:line:col: error[CODE]: message`, the source line with a caret, and a hint.

        Pass one `SourceIndex` when rendering many diagnostics: each file is then split into lines once,
        not once per diagnostic (which made N diagnostics cost N x the file size)."""
        sp = self.span
        out = [f"{printable(sp.file)}:{sp.line}:{sp.col}: {self.severity.value}[{self.code}]: "
               f"{printable(self.message)}"]
        if index is None:
            index = SourceIndex(sources or {})
        line_text = index.line(sp.file, sp.line)
        if line_text is not None:
            src = _LAYOUT.sub(" ", line_text.rstrip("\r"))
            width = 1
            if sp.end_line == sp.line and sp.end_col > sp.col:
                width = sp.end_col - sp.col
            width = max(1, min(width, len(src) - sp.col + 1)) if len(src) >= sp.col else 1
            gutter = " " * len(str(sp.line))
            out.append(f" {sp.line} | {src}")
            out.append(f" {gutter} | {' ' * (sp.col - 1)}{'^' * width}")
        elif (cell := index.cell(sp.file, sp.line, sp.col)) is not None:
            # a spreadsheet: the line is the row and the column the sheet's column, so the cell is shown
            label, shown = f"{_column_letter(sp.col)}{sp.line}: ", printable(_LAYOUT.sub(" ", cell)) or "(empty)"
            out.append(f" {sp.line} | {label}{shown}")
            out.append(f" {' ' * len(str(sp.line))} | {' ' * len(label)}{'^' * max(1, len(shown))}")
        if self.hint:
            out.append(f"  = hint: {printable(self.hint)}")
        return "\n".join(out)


class SourceIndex:
    """The lines of each source file, split on first use and kept for every later diagnostic."""

    def __init__(self, sources: dict[str, str]) -> None:
        self.sources = sources
        self._lines: dict[str, list[str]] = {}
        self._rows: dict[str, list[list[str]]] = {}  # spreadsheets by file, read on first use

    def line(self, file: str, number: int) -> str | None:
        lines = self._lines.get(file)
        if lines is None:
            text = self.sources.get(file)
            if text is None:
                return None
            lines = self._lines[file] = text.split("\n")  # as the lexer counts: not at \r, \f or U+2028
        return lines[number - 1] if 1 <= number <= len(lines) else None

    def cell(self, file: str, row: int, col: int) -> str | None:
        """The text of a spreadsheet's cell (CSV or XLSX, read again from the file), None if it is not one."""
        if not file.lower().endswith(_SHEET_SUFFIXES) or file in self.sources:
            return None
        rows = self._rows.get(file)
        if rows is None:
            from pathlib import Path

            from cardc.sheets import SheetError, read_rows

            try:
                rows = read_rows(Path(file))
            except (SheetError, OSError):
                rows = []
            self._rows[file] = rows
        if 1 <= row <= len(rows) and 1 <= col <= len(rows[row - 1]):
            return rows[row - 1][col - 1]
        return None


_SHEET_SUFFIXES = (".csv", ".xlsx")


def _column_letter(col: int) -> str:
    """A spreadsheet's name for column `col` (1 = A, 27 = AA)."""
    out = ""
    while col > 0:
        col, rem = divmod(col - 1, 26)
        out = chr(65 + rem) + out
    return out


# Characters that would move the caret out of line under the source: shown as one space each.
_LAYOUT = re.compile(r"[\t\r\f\v\x00-\x1f\x7f\u2028\u2029]")


# Characters a terminal would act on (ESC sequences, bidi overrides) or that break the line: shown escaped.
_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """`text` with control characters shown as escapes (`\\x1b`, `\\u2028`), safe to print on a terminal."""
    return _UNPRINTABLE.sub(lambda m: repr(m.group())[1:-1] if ord(m.group()) < 0x100 else f"\\u{ord(m.group()):04x}",
                            text)


def did_you_mean(word: str, vocabulary: Iterable[str]) -> str | None:
    """A 'did you mean' hint from the closest known word, if any is close enough."""
    import difflib  # only when something is misspelt: not on every check

    match = difflib.get_close_matches(word, sorted(set(vocabulary)), n=1, cutoff=0.6)
    return f"did you mean `{match[0]}`?" if match else None


@dataclass
class DiagnosticSink:
    """Collects every diagnostic of a run, so that all errors are reported, not just the first."""

    items: list[Diagnostic] = field(default_factory=list)

    def error(self, code: str, message: str, span: Span, hint: str | None = None) -> None:
        self.items.append(Diagnostic(Severity.ERROR, code, message, span, hint))

    def warning(self, code: str, message: str, span: Span, hint: str | None = None) -> None:
        self.items.append(Diagnostic(Severity.WARNING, code, message, span, hint))

    @property
    def has_errors(self) -> bool:
        return any(d.is_error for d in self.items)

    def sorted(self) -> list[Diagnostic]:
        unique = dict.fromkeys(self.items)
        return sorted(unique, key=Diagnostic.sort_key)


# The codes of syntax errors: a file with one is not checked further (`parser.parse_text`).
SYNTAX_CODES = frozenset({"E100", "E101", "E102", "E103", "E104", "E105", "E106"})

# Stable diagnostic codes, documented in dsl/README.md (a test keeps the two in step).
CODES: dict[str, str] = {
    "E100": "syntax error: a token the grammar does not expect here",
    "E101": "a character that starts no token",
    "E102": "a string that is not closed on its line",
    "E103": "a malformed number",
    "E104": "the file ends inside an unfinished construct (often a missing `}`)",
    "E105": "a literal past the limits: a number of too many digits, a too long string or name, dice that "
            "cannot be rolled",
    "E106": "conditions, blocks, values or declarations nested too deep",
    "W105": "a control character in a string (removed)",
    "E107": "more copies of a card than the limit (`[limits] copies` in cardc.toml, default 1,000)",
    "E110": "an imported or given file does not exist or cannot be read",
    "E111": "an import cycle",
    "E112": "a file without its `module` line",
    "E113": "a module that names an undeclared game or expansion",
    "E114": "a path outside the content folder",
    "E115": "an image or file that does not exist",
    "E116": "a card sheet (CSV or XLSX) that cannot be used: no `id` column, a bad column name or id, no `as KIND`",
    "E130": "an export given to `cardc import` that is not JSON or does not follow the export schema",
    "E150": "the effect catalogue (dsl/catalogue.yaml) is malformed: not YAML, not what its schema allows, an "
            "unknown parameter type or a verb declared twice",
    "E151": "a catalogue verb the generated rules cannot run: no runtime function and not marked `descriptive`, "
            "or runtime parameters that differ from the catalogue",
    "E200": "an unknown entity kind",
    "E201": "an unknown attribute for the kind",
    "E202": "a required attribute is missing",
    "E203": "a value of the wrong type",
    "E204": "a duplicate id",
    "E205": "an attribute given twice",
    "E206": "a reference to an entity that does not exist",
    "E207": "a reference to an entity of the wrong kind",
    "E208": "errata of an entity that does not exist",
    "E209": "a value that is not one of the allowed choices",
    "E210": "a malformed kind or type declaration",
    "E211": "a game or expansion declared wrongly",
    "E212": "a declaration that is not allowed in this place",
    "E213": "a game, expansion or variant name that would clash with another module or shadow a Python module",
    "E300": "an unknown effect verb",
    "E301": "an effect verb used in the wrong place",
    "E302": "an unknown effect parameter",
    "E303": "a missing effect parameter",
    "E304": "too many arguments to an effect verb",
    "E305": "a procedure statement (fire, while, repeat, for each) inside an effect",
    "E306": "a `for each` over a set the engine does not know",
    "E400": "a missing translation",
    "E401": "a language the game does not declare",
    "E402": "a schema violation",
    "W500": "a provisional or unknown value (an error under --strict)",
    "W501": "a hand-written text that no longer mentions a number its effects use",
    "E600": "a bad print setting (paper, bleed, duplex, ...) or cards that do not fit on the paper",
    "E601": "a card template that fails to render or draws a malformed element",
    "E602": "a card text that does not fit its box even at the smallest font size (W602 with --allow-overflow)",
    "W602": "a card text that does not fit its box, printed cut off because of --allow-overflow",
    "W603": "a kind whose size names no known card size (printed as poker)",
    "W604": "an unknown icon or a missing image on a printed card",
    "E605": "a printed text in the fallback language under --strict-languages",
}


pickle_by_constructor(globals())  # the disk cache loads parse trees and diagnostics: see cardc.records
