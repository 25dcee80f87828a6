"""`cardc fmt [--check] [--diff] [PATH ...]`: rewrite `.cardc` files in the canonical layout (`cardc.fmt`)."""

from __future__ import annotations

import argparse
import difflib
import os
import sys
import tempfile
from pathlib import Path

from cardc.diagnostics import NO_SPAN, DiagnosticSink
from cardc.loader import SOURCE_SUFFIX, display_path

DEFAULT_PATHS = [Path("content")]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="*", type=Path, help="files or folders (default: content/)")
    p.add_argument("--check", action="store_true", help="write nothing; exit 1 if a file is not formatted")
    p.add_argument("--diff", action="store_true", help="write nothing; print what would change as a diff")


def source_files(paths: list[Path], sink: DiagnosticSink) -> list[Path]:
    files: list[Path] = []
    for p in paths:
        if p.is_dir():
            files.extend(sorted(p.rglob(f"*{SOURCE_SUFFIX}")))
        elif p.is_file():
            files.append(p)
        else:
            sink.error("E110", f"no such file or folder: {p}", NO_SPAN)
    return list(dict.fromkeys(files))


def _write(path: Path, text: str) -> None:
    """Replace the file in one step, so an interrupted run never leaves half a file."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        os.chmod(tmp, path.stat().st_mode & 0o7777)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def run(args: argparse.Namespace) -> int:
    from cardc.fmt import FormatError, format_text
    from cardc.parser import parse_text
    from cardc.report import Reporter

    sink = DiagnosticSink()
    sources: dict[str, str] = {}
    changed: list[str] = []
    for path in source_files(args.paths or DEFAULT_PATHS, sink):
        shown = display_path(path.resolve())
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            sink.error("E110", f"`{shown}` cannot be read as UTF-8 text", NO_SPAN)
            continue
        try:
            out = format_text(text)
        except FormatError:
            sources[shown] = text
            parse_text(text, shown, sink)  # reports the syntax error as `cardc check` would
            continue
        if out == text:
            continue
        changed.append(shown)
        if args.diff:
            sys.stdout.writelines(difflib.unified_diff(text.splitlines(keepends=True), out.splitlines(keepends=True),
                                                       f"{shown} (now)", f"{shown} (formatted)"))
        elif args.check:
            print(f"would reformat {shown}", file=sys.stderr)
        else:
            _write(path, out)
            print(f"formatted {shown}", file=sys.stderr)
    errors = Reporter.from_args(args).report(sink.sorted(), sources)
    if errors:
        return 1
    if (args.check or args.diff) and changed:
        print(f"{len(changed)} file{'s' if len(changed) != 1 else ''} would be reformatted; run `cardc fmt`",
              file=sys.stderr)
        return 1
    return 0
