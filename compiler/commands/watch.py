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

from cardc.diagnostics import Diagnostic
from cardc.frontend import compile_paths
from cardc.loader import display_path, find_content_root
from cardc.preview import PreviewServer, PreviewState

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
        shown, provisional = _split(diagnostics)
        errors = sum(d.is_error for d in shown) + bool(refusal)
        warnings = len(shown) - errors
        took = time.perf_counter() - started
        counts = f"{errors} error{'s' if errors != 1 else ''}, {warnings} warning{'s' if warnings != 1 else ''}"
        if provisional:
            counts += f", {provisional} provisional or unknown value{'s' if provisional != 1 else ''} not listed"
        if built:
            summary = f"built in {took:.1f} s: {counts}"
        else:
            summary = f"not built: {counts}; the pages show the last good build"
        rendered = [d.render(result.sources) for d in shown] + ([refusal] if refusal else [])
        for text in rendered:
            print(text, file=sys.stderr)
        print(summary, file=sys.stderr, flush=True)
        self.state.publish(built=built, ok=built, summary=summary, diagnostics=rendered)


def _split(diagnostics: list[Diagnostic]) -> tuple[list[Diagnostic], int]:
    """The diagnostics to list, and how many provisional-value notes are only counted (they are many)."""
    shown = [d for d in diagnostics if d.is_error or d.code != "W500"]
    return shown, len(diagnostics) - len(shown)


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
