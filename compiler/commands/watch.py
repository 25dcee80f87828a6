"""`cardc watch [PATH] [--open]`: rebuild on save and preview the reference and gallery with live reload.

Each save checks the content again; when it is clean the chosen backends (the reference, which holds the
gallery, by default) are built and every open page reloads itself. When it is not, the diagnostics go to
the terminal and onto the open pages as a banner, over the last good build. The output goes to a temporary
folder removed on exit, unless `--out` names one (built with `cardc build`'s own safety rules).
"""

from __future__ import annotations

import argparse
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

from cardc.diagnostics import Diagnostic
from cardc.loader import display_path, find_content_root

if TYPE_CHECKING:  # the server (http.server) is imported when `watch` runs, not whenever the command line is
    from cardc.preview import PreviewState

DEFAULT_CONTENT = Path("content")
IGNORED_SUFFIXES = (".swp", ".swx", ".tmp", "~")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", nargs="?", type=Path, help="content folder (default: content/)")
    parser.add_argument("--out", type=Path,
                        help="build into this folder (default: a temporary folder, removed on exit)")
    parser.add_argument("--port", type=int, default=8000, help="port on 127.0.0.1 (default 8000; 0 picks a free one)")
    parser.add_argument("--open", action="store_true", help="open the reference in the web browser")
    parser.add_argument("--only", action="append", metavar="BACKEND",
                        help="backends to rebuild (repeatable; default: reference, which includes the gallery)")


def run(args: argparse.Namespace) -> int:
    import watchfiles

    path = args.path or DEFAULT_CONTENT
    if not path.exists():
        print(f"cardc watch: no such file or folder: {path}", file=sys.stderr)
        return 2
    root = find_content_root([path]).resolve()
    if args.out is not None:
        from cardc.build import OutputRefused, check_output

        try:
            check_output(args.out, [root])  # refused before anything runs, as `cardc build` refuses it
        except OutputRefused as refused:
            print(f"cardc watch: error: {refused}", file=sys.stderr)
            return 2
    own_tmp = None if args.out else Path(tempfile.mkdtemp(prefix="cardc-watch-"))
    out = (args.out if own_tmp is None else own_tmp / "site").resolve()
    only = frozenset(args.only or ("reference",))
    from cardc.preview import PreviewServer, PreviewState

    state = PreviewState()
    try:
        server = PreviewServer(out / "reference", state, args.port)
    except OSError as err:
        print(f"cardc watch: cannot listen on 127.0.0.1:{args.port}: {err.strerror}; pick another with --port",
              file=sys.stderr)
        _remove(own_tmp)
        return 2
    stop = threading.Event()
    previous = _on_terminate(stop)
    try:
        rebuild = Rebuilder(path, out, only, state)
        rebuild()
        server.start()
        print(f"serving {server.url} (watching {display_path(root)}; Ctrl+C stops)", file=sys.stderr, flush=True)
        if args.open:
            import webbrowser

            webbrowser.open(server.url)
        for changes in watchfiles.watch(root, watch_filter=_watch_filter(root, out), stop_event=stop,
                                        raise_interrupt=False, debounce=200, step=50):
            names = sorted({display_path(Path(p)) for _, p in changes})
            print(f"changed: {', '.join(names[:5])}{' ...' if len(names) > 5 else ''}", file=sys.stderr, flush=True)
            rebuild()
    finally:
        signal.signal(signal.SIGTERM, previous)
        server.close()
        _remove(own_tmp)
    return 0


class Rebuilder:
    """One check-and-build, reported to the terminal and to the preview pages."""

    def __init__(self, path: Path, out: Path, only: frozenset[str], state: PreviewState) -> None:
        self.path, self.out, self.only, self.state = path, out, only, state

    def __call__(self) -> None:
        from cardc.backends import BuildOptions
        from cardc.build import BuildFailed, OutputRefused, build

        started = time.perf_counter()
        from cardc.frontend import compile_paths

        result = compile_paths([self.path])
        diagnostics = list(result.diagnostics)
        built = False
        refusal = ""
        if result.ok:
            from cardc.schema import validate_project

            diagnostics = sorted([*diagnostics, *validate_project(result.project)], key=Diagnostic.sort_key)
        if not any(d.is_error for d in diagnostics):
            try:
                diagnostics += build(result.project, self.out, BuildOptions(only=self.only))
                built = True
            except BuildFailed as failed:
                diagnostics += failed.diagnostics
            except OutputRefused as refused:  # e.g. a file put where the output folder was
                refusal = f"cardc watch: error: {refused}"
        from cardc.report import BadOptions, Reporter, ReportOptions, config_codes

        try:
            select, ignore = config_codes(find_content_root([self.path]))
        except BadOptions as bad:
            select, ignore = (), ()
            refusal = refusal or f"cardc watch: {bad}"
        reporter = Reporter(ReportOptions(select=select, ignore=ignore))
        shown, summarized, tally = reporter.classify(diagnostics)
        errors = tally.errors + bool(refusal)
        took = time.perf_counter() - started
        counts = f"{_count(errors, 'error')}, {_count(tally.warnings, 'warning')}"
        if summarized:
            counts += f", {_count(len(summarized), 'provisional or unknown value')} not listed"
        if built:
            summary = f"built in {took:.1f} s: {counts}"
        else:
            summary = f"not built: {counts}; the pages show the last good build"
        rendered = [d.render(result.sources) for d in shown] + ([refusal] if refusal else [])
        reporter.report(diagnostics, result.sources)  # the terminal: as `cardc check` shows them
        if refusal:
            print(refusal, file=sys.stderr)
        print(summary, file=sys.stderr, flush=True)
        self.state.publish(built=built, ok=built, summary=summary, diagnostics=rendered)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _watch_filter(root: Path, out: Path) -> Callable[[object, str], bool]:
    """Every file of the content counts, but not the build's own output, hidden files or editor backups."""

    def accept(_change: object, name: str) -> bool:
        path = Path(name)
        if path == out or out in path.parents:
            return False
        try:
            parts = path.relative_to(root).parts
        except ValueError:
            return False
        if any(p.startswith(".") or p == "__pycache__" for p in parts):
            return False
        return not path.name.endswith(IGNORED_SUFFIXES)

    return accept


def _on_terminate(stop: threading.Event) -> signal.Handlers | Callable[[int, FrameType | None], object] | int | None:
    """SIGTERM stops watching like Ctrl+C does, so the temporary folder is removed either way."""

    def handler(_signum: int, _frame: FrameType | None) -> None:
        stop.set()

    return signal.signal(signal.SIGTERM, handler)


def _remove(folder: Path | None) -> None:
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)
