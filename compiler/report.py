"""Printing diagnostics for people and tools: what is shown, what is summarized, in which format.

Quiet by default, loud on request: provisional and unknown values (W500) are counted per module unless
`--show-provisional`; `-q` prints errors only; `--select`/`--ignore` (codes or prefixes, ruff style, also in
`cardc.toml` under `[check]`) choose the warnings shown. Errors are always shown: hiding one would let a
broken build go on. One summary line ends the report. Text goes to stderr, coloured by rich only on a
terminal without NO_COLOR; `--format json` / `sarif` print one document on stdout (shape:
/work/notes/h5-diagnostics-json.md, kept in `diagnostic_to_json`).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TextIO

from cardc import __version__
from cardc.diagnostics import CODES, Diagnostic, Severity, SourceIndex

PROVISIONAL = "W500"
FORMATS = ("text", "json", "sarif")


class BadOptions(ValueError):
    """A code list on the command line or in cardc.toml that names no diagnostic code."""


def _codes(values: Iterable[str], where: str) -> tuple[str, ...]:
    out: list[str] = []
    for raw in values:
        for code in str(raw).split(","):
            code = code.strip().upper()
            if not code:
                continue
            if code != "ALL" and not any(c.startswith(code) for c in CODES):
                raise BadOptions(f"{where}: `{code}` is no diagnostic code or prefix (codes: E100...W604; "
                                 "see `Diagnostic codes` in dsl/README.md)")
            out.append(code)
    return tuple(out)


def _matches(code: str, prefixes: tuple[str, ...]) -> bool:
    return any(p == "ALL" or code.startswith(p) for p in prefixes)


def config_codes(root: Path | None) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """`select` and `ignore` from the `[check]` table of the content folder's cardc.toml."""
    if root is None or not (root / "cardc.toml").is_file():
        return (), ()
    try:
        text = (root / "cardc.toml").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise BadOptions(f"{root / 'cardc.toml'}: cannot be read: {err}") from None
    table = _check_table(text, root)
    where = f"{root / 'cardc.toml'} [check]"
    values: list[tuple[str, ...]] = []
    for key in ("select", "ignore"):
        raw = table.get(key, [])
        if isinstance(raw, str):
            raw = [raw]
        if not isinstance(raw, list):
            raise BadOptions(f"{where}: `{key}` must be a list of codes, like [\"W6\", \"W501\"]")
        values.append(_codes(raw, f"{where} {key}"))
    return values[0], values[1]


def _check_table(text: str, root: Path) -> Any:
    """The `[check]` table of a cardc.toml text, remembered on disk under the text (`cardc.diskcache`):
    a check whose result is cached would otherwise spend a twentieth of its time importing `tomllib`."""
    from cardc import diskcache

    key = diskcache.digest("cardc.toml [check] 1", text)
    cached = diskcache.load("toml-check", key)
    if isinstance(cached, tuple) and len(cached) == 1:
        return cached[0]
    from cardc.tomlfast import simple_loads

    parsed = simple_loads(text)  # without importing tomllib, for a simple file
    if parsed is None:
        import tomllib

        try:
            parsed = tomllib.loads(text)
        except tomllib.TOMLDecodeError as err:
            raise BadOptions(f"{root / 'cardc.toml'}: cannot be read: {err}") from None
    table = parsed.get("check", {})
    diskcache.store("toml-check", key, (table,))
    return table


@dataclass(frozen=True)
class ReportOptions:
    quiet: bool = False
    show_provisional: bool = False
    strict: bool = False
    select: tuple[str, ...] = ()  # empty: every warning
    ignore: tuple[str, ...] = ()
    format: str = "text"
    color: str = "auto"  # auto, always, never

    @classmethod
    def from_args(cls, args: argparse.Namespace, root: Path | None = None) -> ReportOptions:
        """Options from a parsed command line; `--select` replaces the config's list, `--ignore` adds to it."""
        select, ignore = config_codes(root)
        if getattr(args, "select", None):
            select = _codes(args.select, "--select")
        ignore = ignore + _codes(getattr(args, "ignore", None) or (), "--ignore")
        return cls(quiet=bool(getattr(args, "quiet", False)),
                   show_provisional=bool(getattr(args, "show_provisional", False)),
                   strict=bool(getattr(args, "strict", False)), select=select, ignore=ignore,
                   format=getattr(args, "format", None) or "text", color=getattr(args, "color", None) or "auto")


def add_report_arguments(p: argparse.ArgumentParser, quiet: bool = True) -> None:
    """The flags every command that reports diagnostics takes."""
    g = p.add_argument_group("diagnostics")
    if quiet:
        g.add_argument("-q", "--quiet", action="store_true", help="print errors only")
    g.add_argument("--show-provisional", action="store_true",
                   help="list every provisional or unknown value (W500) instead of a count per module")
    g.add_argument("--select", action="append", metavar="CODES",
                   help="show only these warning codes or prefixes, e.g. W6,W501 (replaces cardc.toml's)")
    g.add_argument("--ignore", action="append", metavar="CODES",
                   help="hide these warning codes or prefixes (adds to cardc.toml's); errors always show")
    g.add_argument("--format", choices=FORMATS, default="text",
                   help="text on stderr (default), or one JSON or SARIF document on stdout")
    g.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                   help="colour and links on a terminal (auto: on unless piped or NO_COLOR is set)")


@dataclass
class Tally:
    errors: int = 0
    warnings: int = 0
    summarized: int = 0
    ignored: int = 0
    by_code: Counter[str] = field(default_factory=Counter)


def diagnostic_to_json(d: Diagnostic) -> dict[str, Any]:
    """One diagnostic for editors and CI (also the LSP's source of truth)."""
    sp = d.span
    end_line, end_col = (sp.end_line, sp.end_col) if sp.end_line and sp.end_col else (sp.line, sp.col + 1)
    return {"file": sp.file, "line": sp.line, "col": sp.col, "end_line": end_line, "end_col": end_col,
            "severity": d.severity.value, "code": d.code, "message": d.message, "hint": d.hint}


@dataclass
class Reporter:
    options: ReportOptions = field(default_factory=ReportOptions)
    modules: dict[str, str] = field(default_factory=dict)  # file -> module name, for the W500 summary
    stream: TextIO | None = None

    @classmethod
    def from_args(cls, args: argparse.Namespace, root: Path | None = None,
                  modules: dict[str, str] | None = None) -> Reporter:
        return cls(ReportOptions.from_args(args, root), modules or {})

    # ---- what is shown
    def _counts_as_error(self, d: Diagnostic) -> bool:
        return d.is_error or (self.options.strict and d.code == PROVISIONAL)

    def classify(self, diags: Sequence[Diagnostic]) -> tuple[list[Diagnostic], list[Diagnostic], Tally]:
        """(shown, summarized W500s, tally): errors always shown; warnings by the options."""
        o = self.options
        shown: list[Diagnostic] = []
        summarized: list[Diagnostic] = []
        t = Tally()
        for d in diags:
            if self._counts_as_error(d):
                if not d.is_error:
                    d = replace(d, severity=Severity.ERROR)  # shown as what it counts as
                shown.append(d)
                t.errors += 1
                t.by_code[d.code] += 1
                continue
            if o.quiet or (o.select and not _matches(d.code, o.select)) or _matches(d.code, o.ignore):
                t.ignored += 1
                continue
            if d.code == PROVISIONAL and not o.show_provisional and o.format == "text":
                summarized.append(d)
                t.summarized += 1
                continue
            shown.append(d)
            t.warnings += 1
            t.by_code[d.code] += 1
        return shown, summarized, t

    # ---- output
    def report(self, diags: Sequence[Diagnostic], sources: dict[str, str] | None = None, ok: str | None = None) -> int:
        """Print the diagnostics as the options say; return how many count as errors.

        `ok` (like "25 files, 239 entities") starts the summary line when there is no error."""
        shown, summarized, tally = self.classify(diags)
        if self.options.format == "json":
            self._json(shown, tally)
        elif self.options.format == "sarif":
            self._sarif(shown)
        else:
            self._text(shown, summarized, tally, sources or {}, ok)
        return tally.errors

    def _text(self, shown: list[Diagnostic], summarized: list[Diagnostic], t: Tally, sources: dict[str, str],
              ok: str | None) -> None:
        stream = self.stream or sys.stderr
        index = SourceIndex(sources)
        console = _console(stream, self.options.color)
        for d in shown:
            if console is not None:
                console.print(_styled(d, index), soft_wrap=True, highlight=False)
            else:
                stream.write(d.render(index=index) + "\n")
        per_module: Counter[str] = Counter(self.modules.get(d.span.file, d.span.file) for d in summarized)
        for module, n in sorted(per_module.items()):
            line = f"{module}: {n} provisional or unknown value{'s' if n != 1 else ''} (W500)"
            if console is not None:
                console.print(f"[dim]{_escape(line)}[/dim]", soft_wrap=True, highlight=False)
            else:
                stream.write(line + "\n")
        ok = ok if ok and not t.errors and not self.options.quiet else None
        if not shown and not summarized and not ok:
            return
        warnings = f"{t.warnings} warning{'s' if t.warnings != 1 else ''}"
        line = f"{t.errors} error{'s' if t.errors != 1 else ''}, {warnings}"
        if ok:
            line = f"ok: {ok}" + (f", {warnings}" if shown or summarized else "")
        if t.summarized:
            line += (f"; {t.summarized} provisional or unknown value{'s' if t.summarized != 1 else ''} summarized "
                     "(--show-provisional lists them)")
        if t.ignored and not self.options.quiet:
            line += f"; {t.ignored} hidden by --select/--ignore"
        if console is not None:
            style = "bold red" if t.errors else "bold yellow" if t.warnings else "bold"
            console.print(f"[{style}]{_escape(line)}[/{style}]", soft_wrap=True, highlight=False)
        else:
            stream.write(line + "\n")

    def _json(self, shown: list[Diagnostic], t: Tally) -> None:
        doc = {"version": 1, "diagnostics": [diagnostic_to_json(d) for d in shown],
               "summary": {"errors": t.errors, "warnings": t.warnings, "shown": len(shown),
                           "summarized": t.summarized, "hidden": t.ignored, "by_code": dict(sorted(t.by_code.items()))}}
        import json  # only for this format: a cached text check imports nothing it does not print

        sys.stdout.write(json.dumps(doc, ensure_ascii=False, indent=1) + "\n")

    def _sarif(self, shown: list[Diagnostic]) -> None:
        import json

        sys.stdout.write(json.dumps(to_sarif(shown), ensure_ascii=False, indent=1) + "\n")


def to_sarif(diags: Sequence[Diagnostic]) -> dict[str, Any]:
    """SARIF 2.1.0: one run of cardc with its rules (the diagnostic codes) and one result per diagnostic."""
    rules = [{"id": code, "shortDescription": {"text": text}} for code, text in CODES.items()]
    index = {code: n for n, code in enumerate(CODES)}
    results = []
    for d in diags:
        j = diagnostic_to_json(d)
        message = d.message + (f"\nhint: {d.hint}" if d.hint else "")
        results.append({
            "ruleId": d.code, "ruleIndex": index.get(d.code, -1), "level": d.severity.value,
            "message": {"text": message},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": j["file"]},
                "region": {"startLine": j["line"], "startColumn": j["col"],
                           "endLine": j["end_line"], "endColumn": j["end_col"]}}}],
        })
    return {"$schema": "https://json.schemastore.org/sarif-2.1.0.json", "version": "2.1.0",
            "runs": [{"tool": {"driver": {"name": "cardc", "version": __version__, "rules": rules}},
                      "results": results}]}


# ---- colour (rich is imported only when it will be used: start-up stays fast when piped)
def _console(stream: TextIO, mode: str) -> Any:
    if mode == "never" or (mode == "auto" and (os.environ.get("NO_COLOR") or not _isatty(stream))):
        return None
    try:
        from rich.console import Console
    except ImportError:  # pragma: no cover - rich is a dependency; plain text is a fine fallback
        return None
    return Console(file=stream, force_terminal=True if mode == "always" else None, no_color=False,
                   highlight=False, emoji=False, markup=True)


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _escape(text: str) -> str:
    from rich.markup import escape

    return escape(text)


def _styled(d: Diagnostic, index: SourceIndex) -> Any:
    """The same lines as `Diagnostic.render`, with colour and the location as a terminal link."""
    from rich.text import Text

    plain = d.render(index=index).split("\n")
    sp = d.span
    location = f"{sp.file}:{sp.line}:{sp.col}"
    out = Text()
    head = plain[0]
    path = Path(sp.file)
    link = (path if path.is_absolute() else Path.cwd() / path).as_uri() if path.suffix else None
    out.append(location, style=f"bold link {link}" if link else "bold")
    colour = "red" if d.is_error else "yellow"
    out.append(": ")
    out.append(f"{d.severity.value}[{d.code}]", style=f"bold {colour}")
    out.append(head[len(location) + 2 + len(d.severity.value) + len(d.code) + 2:], style="bold")
    for line in plain[1:]:
        out.append("\n")
        if line.lstrip().startswith("= hint:"):
            out.append(line, style="cyan")
        elif "|" in line and set(line.split("|", 1)[1].strip()) <= {"^"}:
            bar, caret = line.split("|", 1)
            out.append(bar + "|", style="blue")
            out.append(caret, style=f"bold {colour}")
        elif "|" in line:
            bar, src = line.split("|", 1)
            out.append(bar + "|", style="blue")
            out.append(src)
        else:
            out.append(line)
    return out
