"""The `cardc` command line: check, build, dump.

Exit codes: 0 success (warnings allowed), 1 errors in the content, 2 a bad command line.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Sequence
from pathlib import Path

from compiler import __version__
from compiler.diagnostics import Diagnostic, Severity
from compiler.frontend import FrontEndResult, compile_paths

DEFAULT_CONTENT = Path("content")
DEFAULT_OUT = Path("generated")


def _report(diags: Sequence[Diagnostic], sources: dict[str, str], strict: bool = False) -> int:
    """Print diagnostics on stderr; return the number that count as errors."""
    errors = warnings = 0
    for d in diags:
        if strict and d.code == "W500":
            d = dataclasses.replace(d, severity=Severity.ERROR)  # shown as what it counts as
        print(d.render(sources), file=sys.stderr)
        if d.is_error or (strict and d.code == "W500"):
            errors += 1
        else:
            warnings += 1
    if diags:
        print(f"{errors} error{'s' if errors != 1 else ''}, {warnings} warning{'s' if warnings != 1 else ''}",
              file=sys.stderr)
    return errors


def _front(paths: list[Path]) -> FrontEndResult:
    return compile_paths(paths or [DEFAULT_CONTENT])


def _with_schema(result: FrontEndResult) -> list[Diagnostic]:
    """The front end's diagnostics plus schema validation of the IR (only when the content is clean)."""
    if not result.ok:
        return list(result.diagnostics)
    from compiler.schema import validate_project

    return sorted([*result.diagnostics, *validate_project(result.project)], key=Diagnostic.sort_key)


def cmd_check(args: argparse.Namespace) -> int:
    result = _front(args.paths)
    diags = _with_schema(result) if args.schema else result.diagnostics
    errors = _report(diags, result.sources, strict=args.strict)
    if errors:
        return 1
    if not args.quiet:
        n = len(result.project.entities)
        print(f"ok: {len(result.sources)} files, {n} entities", file=sys.stderr)
    return 0


def cmd_dump(args: argparse.Namespace) -> int:
    from compiler.irjson import dumps, project_json

    result = _front(args.paths)
    if _report(result.diagnostics if not args.quiet else [d for d in result.diagnostics if d.is_error],
               result.sources):
        return 1
    sys.stdout.write(dumps(project_json(result.project, args.game)))
    return 0


def cmd_build(args: argparse.Namespace) -> int:
    from compiler.backends import BuildOptions
    from compiler.build import BuildFailed, build

    result = _front([args.path] if args.path else [])
    if _report(_with_schema(result), result.sources, strict=args.strict):
        print("build not started: fix the errors above", file=sys.stderr)
        return 1
    options = BuildOptions(only=frozenset(args.only or ()))
    try:
        diags = build(result.project, args.out, options)
    except BuildFailed:
        return 1
    _report(diags, result.sources)
    print(f"built {args.out}", file=sys.stderr)
    return 0


def cmd_schemas(args: argparse.Namespace) -> int:
    from compiler.schema import SCHEMA_DIR, generated_schemas, write_schemas

    result = _front(args.paths)
    if _report([d for d in result.diagnostics if d.is_error], result.sources):
        return 1
    out = args.out or SCHEMA_DIR
    if args.check:
        stale = [rel for rel, text in generated_schemas(result.project).items()
                 if not (out / rel).is_file() or (out / rel).read_text(encoding="utf-8") != text]
        for rel in stale:
            print(f"{out / rel} is not current; run `cardc schemas`", file=sys.stderr)
        return 1 if stale else 0
    for path in write_schemas(result.project, out):
        print(f"wrote {path}", file=sys.stderr)
    return 0


def make_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cardc", description="Compile card-and-rules content written in the "
                                     "cardc language into rule modules, print sheets, references and exports.")
    parser.add_argument("--version", action="version", version=f"cardc {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser("check", help="parse and check content; report every problem")
    p.add_argument("paths", nargs="*", type=Path, help="files or folders (default: content/)")
    p.add_argument("--strict", action="store_true", help="treat provisional and unknown values as errors")
    p.add_argument("-q", "--quiet", action="store_true", help="print nothing when all is well")
    p.add_argument("--schema", action="store_true",
                   help="also validate the IR against the JSON Schemas (as `build` always does)")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("build", help="build every output from content into generated/")
    p.add_argument("path", nargs="?", type=Path, help="content folder (default: content/)")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder (default: generated/)")
    p.add_argument("--only", action="append", metavar="BACKEND", help="build only this backend (repeatable)")
    p.add_argument("--strict", action="store_true", help="refuse to build with provisional values")
    p.set_defaults(func=cmd_build)

    p = sub.add_parser("dump", help="print the whole checked IR as JSON")
    p.add_argument("paths", nargs="*", type=Path, help="files or folders (default: content/)")
    p.add_argument("--game", help="only this game")
    p.add_argument("-q", "--quiet", action="store_true", help="do not print warnings")
    p.set_defaults(func=cmd_dump)

    p = sub.add_parser("schemas", help="write the JSON Schemas generated from kinds and the effect catalogue")
    p.add_argument("paths", nargs="*", type=Path, help="files or folders (default: content/)")
    p.add_argument("--out", type=Path, help="schema folder (default: dsl/schemas/)")
    p.add_argument("--check", action="store_true", help="write nothing; exit 1 if a schema file is not current")
    p.set_defaults(func=cmd_schemas)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = make_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
