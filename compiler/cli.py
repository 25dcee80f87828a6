"""The `cardc` command line: check, build, dump.

Exit codes: 0 success (warnings allowed), 1 errors in the content, 2 a bad command line.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from cardc import __version__
from cardc.diagnostics import Diagnostic
from cardc.report import BadOptions, Reporter, ReportOptions, add_report_arguments

if TYPE_CHECKING:  # the front end is imported when a command needs it: `cardc check` may not (checkcache)
    from cardc.frontend import FrontEndResult
    from cardc.lower import Trace

DEFAULT_CONTENT = Path("content")
DEFAULT_OUT = Path("generated")


def _report(diags: Sequence[Diagnostic], sources: dict[str, str], strict: bool = False,
            reporter: Reporter | None = None, ok: str | None = None) -> int:
    """Print diagnostics (on stderr, or as JSON/SARIF on stdout); return the number that count as errors."""
    if reporter is None:
        reporter = Reporter(ReportOptions(strict=strict))
    return reporter.report(diags, sources, ok=ok)


def _reporter(args: argparse.Namespace, result: FrontEndResult, paths: list[Path]) -> Reporter:
    from cardc.loader import find_content_root

    return Reporter.from_args(args, find_content_root(paths or [DEFAULT_CONTENT]), result.modules)


def _front(paths: list[Path], trace: Trace | None = None) -> FrontEndResult:
    import gc

    gc_was_enabled = gc.isenabled()
    gc.disable()  # importing the front end and the runtime, and the catalogue, make objects that live to the end
    try:
        from cardc.backends.python.vocabulary import check_runtime
        from cardc.catalogue import default_catalogue
        from cardc.frontend import compile_paths

        check_runtime(default_catalogue())  # a verb the rules could not run fails `check` as it would `build`
        return compile_paths(paths or [DEFAULT_CONTENT], trace=trace)
    finally:
        if gc_was_enabled:
            gc.enable()


def _with_schema(result: FrontEndResult) -> list[Diagnostic]:
    """The front end's diagnostics plus schema validation of the IR (only when the content is clean)."""
    if not result.ok:
        return list(result.diagnostics)
    from cardc.checkcache import schema_diagnostics

    return sorted([*result.diagnostics, *schema_diagnostics(result.project)], key=Diagnostic.sort_key)


def cmd_check(args: argparse.Namespace) -> int:
    if _process_ends:
        # What a check makes lives to its end (modules, the catalogue, parse trees, the IR) and holds no cycles
        # worth collecting: the cyclic collector is off for the rest of the process (35 M instructions of a
        # first check were collections walking those objects, one of them after the front end turned it back on).
        import gc

        gc.disable()
    from cardc import checkcache
    from cardc.loader import find_content_root

    if _process_ends:  # what the check stores is written after its report, by another process (`run`)
        from cardc import diskcache

        diskcache.defer()

    paths = args.paths or [DEFAULT_CONTENT]
    checked, state = checkcache.lookup(paths, args.schema)
    if checked is None:
        checked = checkcache.lookup_moved(state)
    trace = None
    if checked is None and state is not None and state.previous is not None:  # (else it has nothing to recheck)
        from cardc import recheck

        checked, trace = recheck.recheck(state)
        if checked is not None:
            checkcache.remember(state, paths, checked, trace)
    if checked is None:
        checked, state = checkcache.lookup_trees(state)
    if checked is None:
        from cardc.lower import Trace

        trace = Trace() if state is not None and state.files is not None and not args.schema else None
        result = _front(args.paths, trace)
        checked = checkcache.CheckResult(_with_schema(result) if args.schema else result.diagnostics,
                                         result.sources, result.modules, len(result.project.entities),
                                         len(result.sources))
        checkcache.remember(state, paths, checked, trace)
    n, files = checked.entities, checked.files
    ok = f"{files} file{'s' if files != 1 else ''}, {n} entit{'ies' if n != 1 else 'y'}"
    reporter = Reporter.from_args(args, find_content_root(paths), checked.modules)
    return 1 if _report(checked.diagnostics, checked.sources, reporter=reporter, ok=ok) else 0


def cmd_dump(args: argparse.Namespace) -> int:
    from cardc.flags import unknown_names
    from cardc.irjson import iter_project_json

    result = _front(args.paths)
    if _report(result.diagnostics, result.sources, reporter=_reporter(args, result, args.paths)):
        return 1
    if args.game is not None and _flag_errors("dump", unknown_names("game", [args.game],
                                                                    sorted(result.project.games))):
        return 2
    for chunk in iter_project_json(result.project, args.game):  # streamed: large IRs stay small in memory
        sys.stdout.write(chunk)
    return 0


def cmd_build(args: argparse.Namespace) -> int:
    import gc

    from cardc import backends
    from cardc.backends import BuildOptions
    from cardc.build import BuildFailed, OutputRefused, build, check_output, current_output, read_marker
    from cardc.buildcache import inputs_fingerprint
    from cardc.buildreport import BuildProgress, summary
    from cardc.flags import check_build_flags
    from cardc.loader import find_content_root
    from cardc.report import Reporter

    settings = _print_settings(args)
    if _flag_errors("build", check_build_flags(args, [name for name, _ in backends.BACKENDS], settings)):
        return 2
    content = [args.path or DEFAULT_CONTENT]
    # A content path that does not exist protects no folder: the front end reports it (E110), where a refusal
    # would name the folder around the typo as "the content folder".
    protected = [*content, find_content_root(content)] if content[0].exists() else []
    try:
        check_output(args.out, protected)  # before any work: a refused folder costs no compile
    except OutputRefused as refused:
        print(f"cardc build: error: {refused}", file=sys.stderr)
        return 2
    options = BuildOptions(only=frozenset(args.only or ()), settings=settings, designer=args.designer,
                           jobs=args.jobs if args.jobs is not None else (os.cpu_count() or 1))
    root = find_content_root(content)
    inputs = inputs_fingerprint(root, {"paths": [str(p) for p in content], "out": str(args.out),
                                       "only": sorted(options.only), "settings": options.settings})
    quiet = bool(getattr(args, "quiet", False))  # `-q`: errors only, no progress, no summary of what was written
    current = current_output(args.out, inputs)
    if current is not None:  # nothing changed since the last build: say what it said, write nothing
        front, backend, modules = current
        reporter = Reporter.from_args(args, root, modules)
        sources = _texts_of([*front, *backend])
        if reporter.classify(front)[2].errors:
            _report(front, sources, reporter=reporter)
            print("build not started: fix the errors above", file=sys.stderr)
            return 1
        _report(sorted([*front, *backend], key=Diagnostic.sort_key), sources, reporter=reporter)
        if not quiet:
            print(f"{args.out} is up to date (nothing changed since the last build)", file=sys.stderr)
        return 0
    result = _front(content)
    # The IR lives until the command ends: out of the cyclic collector's sight at once (the first collection after
    # the front end walked all of it, 0.57 s at 10,000 cards); `build` unfreezes it when its backends end.
    gc.freeze()
    reporter = _reporter(args, result, content)
    front = _with_schema(result)
    if reporter.classify(front)[2].errors:
        _report(front, result.sources, reporter=reporter)
        print("build not started: fix the errors above", file=sys.stderr)
        return 1
    progress = BuildProgress([name for name, _ in backends.BACKENDS if options.wants(name)],
                             stream=io.StringIO() if quiet else None)
    try:
        with progress.shown():
            diags = build(result.project, args.out, options, protected, inputs=inputs, front=front,
                          modules=result.modules, progress=progress)
    except OutputRefused as refused:
        print(f"cardc build: error: {refused}", file=sys.stderr)
        return 2
    except BuildFailed as failed:
        _report([*front, *failed.diagnostics], result.sources, reporter=reporter)
        print("build failed: nothing was written", file=sys.stderr)
        return 1
    # one report, one summary: the front end's warnings and the backends' together
    _report(sorted([*front, *diags], key=Diagnostic.sort_key), result.sources, reporter=reporter)
    if quiet:
        return 0
    print(f"built {args.out}:", file=sys.stderr)
    for line in summary(args.out, read_marker(args.out), progress):
        print(line, file=sys.stderr)
    for note in options.notes:
        print(note, file=sys.stderr)
    if options.wants("export"):
        from cardc.backends.export.tts import copy_instructions

        for line in copy_instructions(args.out):
            print(line, file=sys.stderr)
    return 0


def _texts_of(diags: Sequence[Diagnostic]) -> dict[str, str]:
    """The source texts diagnostics point into, read again (for a build that had nothing to do)."""
    out: dict[str, str] = {}
    for d in diags:
        if d.span.file not in out:
            try:
                out[d.span.file] = Path(d.span.file).read_text(encoding="utf-8-sig")
            except (OSError, UnicodeDecodeError):
                continue
    return out


def cmd_schemas(args: argparse.Namespace) -> int:
    from cardc.schema import SCHEMA_DIR, generated_schemas, write_schemas

    if args.out is None and not args.check and _not_in_checkout("schemas", "give --out DIR to write them elsewhere"):
        return 2
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


def cmd_odds(args: argparse.Namespace) -> int:
    from cardc.flags import check_odds_flags
    from cardc.odds import run_odds

    if _flag_errors("odds", check_odds_flags(args)):
        return 2
    return run_odds(args, _front, _report)


def _flag_errors(command: str, errors: list[str]) -> bool:
    """Print command-line errors the way argparse does (`cardc CMD: error: ...`); True if there were any."""
    for error in errors:
        print(f"cardc {command}: error: {error}", file=sys.stderr)
    return bool(errors)


PRINT_FLAGS = {"paper": "paper", "orientation": "orientation", "bleed": "bleed", "duplex": "duplex",
               "crop_mark_length": "mark_length", "crop_mark_weight": "mark_weight", "cut_lines": "cut_lines",
               "back_offset": "back_offset", "png_dpi": "png_dpi", "min_text": "min_text", "png": "png",
               "allow_overflow": "allow_overflow", "strict_languages": "strict_languages", "layout": "layout"}


def _print_settings(args: argparse.Namespace) -> dict[str, str]:
    """The print flags of `build` as `print.*` settings; values are checked by the print backend."""
    out = {f"print.{key}": str(getattr(args, flag)) for flag, key in PRINT_FLAGS.items()
           if getattr(args, flag, None) is not None}
    for item in getattr(args, "print_set", None) or ():
        key, _, value = item.partition("=")
        out[f"print.{key.strip()}"] = value
    if getattr(args, "tts_base_url", None) is not None:
        out["tts_base_url"] = args.tts_base_url
    if getattr(args, "tts_images", None) is not None:
        out["tts_images"] = args.tts_images
    return out


def _not_in_checkout(command: str, hint: str) -> bool:
    """Developer commands rewrite files of the language itself: only in a source checkout, never in site-packages."""
    from cardc.resources import source_checkout

    if source_checkout() is not None:
        return False
    print(f"cardc {command}: error: this command rewrites the language's own files and works only in a source "
          f"checkout of cardc, not in an installed copy; {hint}", file=sys.stderr)
    return True


def cmd_docs(args: argparse.Namespace) -> int:
    from cardc.docgen import README, update

    if _not_in_checkout("docs", "the language README is part of the source, not of the installed tool"):
        return 2
    changed = update(README, check=args.check)
    if args.check and changed:
        print(f"{README} is not current; run `cardc docs`", file=sys.stderr)
        return 1
    print(f"{'wrote' if changed else 'unchanged:'} {README}", file=sys.stderr)
    return 0


def _terminal_columns() -> int:
    """The width `shutil.get_terminal_size` gives (`$COLUMNS`, else the terminal's, else 80), without importing
    shutil, which brings bz2, lzma and fnmatch: argparse asks for the width each time an argument is added."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns if columns > 0 else 80


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's help formatter, told the terminal's width (as `_terminal_columns` finds it) so that it need not
    import shutil to find it."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        super().__init__(prog, indent_increment, max_help_position,
                         width if width is not None else _terminal_columns() - 2)


def make_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole command line; with `command`, only that command gets its arguments (the others are listed,
    so `choices` and errors stay the same): their modules are not imported, which `cardc check` would pay
    for on every run."""

    def want(name: str) -> bool:
        return command is None or command == name

    parser = argparse.ArgumentParser(prog="cardc", description="Compile card-and-rules content written in the "
                                     "cardc language into rule modules, print sheets, references and exports.",
                                     formatter_class=_HelpFormatter)
    parser.add_argument("--version", action="version", version=f"cardc {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", prog="cardc")  # prog: no help formatter yet
    sub.required = True
    spare: list[argparse.ArgumentParser] = []

    def add(name: str, **kwargs: Any) -> argparse.ArgumentParser:
        """The command's parser. With `command` given, the others share one spare parser nothing reads: each
        parser costs argparse a few gettext look-ups on disk, and 13 of them were 5-10% of a cached check."""
        if command is None or name == command:
            return sub.add_parser(name, formatter_class=_HelpFormatter, **kwargs)
        if not spare:
            spare.append(argparse.ArgumentParser(add_help=False, formatter_class=_HelpFormatter))
        return spare[0]

    p = add("check", help="parse and check content; report every problem")
    if want("check"):
        p.add_argument("paths", nargs="*", type=Path, help="files or folders (default: content/)")
        p.add_argument("--strict", action="store_true", help="treat provisional and unknown values as errors")
        add_report_arguments(p)
        p.add_argument("--schema", action="store_true",
                       help="also validate the IR against the JSON Schemas (as `build` always does)")
        p.set_defaults(func=cmd_check)

    p = add("build", help="build every output from content into generated/")
    if want("build"):
        p.add_argument("path", nargs="?", type=Path, help="content folder (default: content/)")
        p.add_argument("--out", type=Path, default=DEFAULT_OUT,
                       help="output folder (default: generated/): a new or empty folder, or one an earlier build "
                       "wrote; files in it that the build did not write are kept")
        from cardc.backends import BACKENDS

        p.add_argument("--only", action="append", metavar="BACKEND", help="build only this backend (repeatable): "
                       + ", ".join(name for name, _ in BACKENDS))
        p.add_argument("--strict", action="store_true", help="refuse to build with provisional values")
        p.add_argument("--jobs", "-j", type=int, metavar="N",
                       help="backends built at once, each in a process of its own (default: the number of cores); "
                       "the outputs are the same for any N")
        add_report_arguments(p)
        p.add_argument("--designer", action="store_true",
                       help="the rules reference also shows designer notes and the rulebook sections entities cite")
        pp = p.add_argument_group("print sheets")
        pp.add_argument("--paper", help="a4 (default) or letter")
        pp.add_argument("--orientation", help="auto (default: whichever holds more cards), portrait or landscape")
        pp.add_argument("--bleed", help="bleed around each card in mm (default 3)")
        pp.add_argument("--duplex", help="backs for a sheet turned over its long (default) or short edge; "
                        "fold (fronts and backs side by side) or none")
        pp.add_argument("--crop-mark-length", help="crop mark length in mm (default 5)")
        pp.add_argument("--crop-mark-weight", help="crop mark line weight in pt (default 0.5)")
        pp.add_argument("--cut-lines", nargs="?", const="true", help="also draw full-page cut lines")
        pp.add_argument("--back-offset", metavar="DX,DY", help="shift every back by DX (right) and DY (down) mm, "
                        "as measured with the calibration page")
        pp.add_argument("--png", help="write per-card PNGs: true (default) or false")
        pp.add_argument("--png-dpi", help="resolution of the per-card PNGs (default 300)")
        pp.add_argument("--min-text", help="smallest font size in pt that card text may shrink to (default 5)")
        pp.add_argument("--allow-overflow", action="store_const", const="true",
                        help="print text that does not fit even at --min-text (cut off) with a warning, not an error")
        pp.add_argument("--strict-languages", action="store_const", const="true",
                        help="fail if any printed text falls back to the game's fallback language")
        pp.add_argument("--layout", metavar="auto|CxR[,gutter=MM]",
                        help="cards per page (e.g. 3x3; default auto: as many as fit) and the gap between cards "
                        "(default: shared cut lines where that fits more cards, else a full bleed each)")
        pe = p.add_argument_group("exports")
        pe.add_argument("--tts-base-url", metavar="URL",
                        help="prefix for Tabletop Simulator image URLs, for images hosted online "
                        "(default: absolute file:/// URLs of the output folder, which TTS loads locally)")
        pe.add_argument("--tts-images", choices=("true", "false"), help="build TTS sprite sheets (default true)")
        pp.add_argument("--print-set", action="append", metavar="KEY=VALUE",
                        help="any other print setting, e.g. size.small_card=41x63 or margin=4 (repeatable)")
        p.set_defaults(func=cmd_build)

    p = add("dump", help="print the whole checked IR as JSON")
    if want("dump"):
        p.add_argument("paths", nargs="*", type=Path, help="files or folders (default: content/)")
        p.add_argument("--game", help="only this game")
        p.add_argument("-q", "--quiet", action="store_true", help="do not print warnings")
        p.set_defaults(func=cmd_dump)

    p = add("fmt", help="rewrite .cardc files in the one canonical layout (comments kept)")
    if want("fmt"):
        from cardc.commands import fmt

        fmt.add_arguments(p)
        p.set_defaults(func=fmt.run)

    p = add("new", help="start a new game or expansion: a folder that checks and builds at once")
    if want("new"):
        from cardc.commands import new

        new.add_arguments(p)
        p.set_defaults(func=new.run)

    p = add("export", help="write the entities of one kind as a spreadsheet (CSV) that imports back")
    if want("export"):
        from cardc.commands import export_csv

        export_csv.add_arguments(p)
        p.set_defaults(func=export_csv.run)

    p = add("odds", help="exact win/tie/loss odds of a fight, a duel or every hero against every monster")
    if want("odds"):
        from cardc.odds import add_odds_arguments

        add_odds_arguments(p)
        p.set_defaults(func=cmd_odds)

    p = add("simulate", help="play many whole games with bots: win rates, game length, lives, items")
    if want("simulate"):
        from cardc.commands import simulate

        simulate.add_arguments(p)
        p.set_defaults(func=simulate.run)

    p = add("play", help="play a whole game with bots (or at the terminal) and print its turn log")
    if want("play"):
        from cardc.commands import play

        play.add_arguments(p)
        p.set_defaults(func=lambda a: play.run(a, _front, _report))

    p = add("import", help="write .cardc source from an engine-neutral export (export/<game>.json)")
    if want("import"):
        from cardc.commands import import_export

        import_export.add_arguments(p)
        p.set_defaults(func=import_export.run)

    p = add("schemas", help="write the JSON Schemas generated from kinds and the effect catalogue")
    if want("schemas"):
        p.add_argument("paths", nargs="*", type=Path, help="files or folders (default: content/)")
        p.add_argument("--out", type=Path, help="schema folder (default: dsl/schemas/)")
        p.add_argument("--check", action="store_true", help="write nothing; exit 1 if a schema file is not current")
        p.set_defaults(func=cmd_schemas)

    p = add("docs", help="regenerate the effect catalogue and diagnostic code tables in dsl/README.md")
    if want("docs"):
        p.add_argument("--check", action="store_true", help="write nothing; exit 1 if dsl/README.md is not current")
        p.set_defaults(func=cmd_docs)

    p = add("lsp", help="run the language server for editors (stdio)")
    if want("lsp"):
        from cardc.commands import lsp

        lsp.add_arguments(p)
        p.set_defaults(func=lsp.run)

    p = add("watch", help="rebuild on save; preview the reference and gallery with live reload")
    if want("watch"):
        from cardc.commands import watch

        watch.add_arguments(p)
        p.set_defaults(func=watch.run)
    if command is not None and command not in sub.choices:  # not a command: the error lists them all
        return make_parser(None)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    given = list(sys.argv[1:] if argv is None else argv)
    parser = make_parser(given[0] if given and not given[0].startswith("-") else None)
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except BadOptions as err:
        print(f"cardc: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # a bug in cardc (RecursionError, MemoryError too): one line and a report, no traceback
        from cardc.catalogue import CatalogueError

        if isinstance(exc, CatalogueError):  # the vocabulary itself is broken: its lines, like any content error
            from cardc.diagnostics import SourceIndex

            index = SourceIndex(exc.sources)
            for d in sorted(exc.diagnostics, key=Diagnostic.sort_key):
                print(d.render(index=index), file=sys.stderr)
            return 1
        from cardc.crash import handle

        return handle(exc, argv)


_process_ends = False  # `run` is the command: the process ends with the command (`cmd_check` leaves the collector off)


def run() -> NoReturn:
    """The `cardc` command: `main`, then the process ends without the interpreter's teardown. The exit handlers
    run and the output is flushed as on a normal exit; what is skipped is the last cyclic collection and freeing
    every object one by one, about 2 s after a build of 10,000 cards (a full collection over the IR and what the
    backends kept alone took 3 s). With another thread still running, the exit is the ordinary one (it waits for
    the thread; only threads started through `threading` are waited for, so it is not imported to ask)."""
    import atexit

    global _process_ends
    _process_ends = True
    code = main()
    diskcache = sys.modules.get("cardc.diskcache")
    threading = sys.modules.get("threading")  # not imported: no thread an ordinary exit would wait for
    if threading is not None and threading.active_count() > 1:
        if diskcache is not None:
            diskcache.run_later()
        sys.exit(code)
    try:
        atexit._run_exitfuncs()
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):  # a closed pipe or stream: nothing more can be said on it
                pass
    finally:  # (also when the flush fails otherwise: a stream closed before the start is None)
        if diskcache is not None and diskcache.deferring():  # the cache writes a check deferred past its report
            diskcache.write_behind()
    os._exit(code)
