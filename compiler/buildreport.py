"""What `cardc build` shows while it works and when it is done: per-backend progress (rich on a terminal,
one plain line per backend otherwise) and a summary of what was written where."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from cardc.backends import BACKENDS


def _interactive(stream: IO[str]) -> bool:
    return stream.isatty() and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"


class BuildProgress:
    """Told by the build when each backend starts, ends or is reused; shows it as it happens."""

    def __init__(self, wanted: list[str], stream: IO[str] | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr  # the stderr of now, not of import time
        self.wanted = wanted
        self.started: dict[str, float] = {}
        self.times: dict[str, float | None] = {}  # seconds, None when reused
        self._progress: Any = None
        self._tasks: dict[str, Any] = {}

    @contextmanager
    def shown(self) -> Iterator[BuildProgress]:
        if not _interactive(self.stream):
            yield self
            return
        from rich.console import Console
        from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

        console = Console(file=self.stream)
        with Progress(SpinnerColumn(), TextColumn("{task.fields[name]:<10}"), BarColumn(bar_width=20),
                      TextColumn("{task.fields[state]}"), TimeElapsedColumn(), console=console,
                      transient=False) as progress:
            self._progress = progress
            for name in self.wanted:
                self._tasks[name] = progress.add_task("", total=1, name=name, state="waiting", start=False)
            try:
                yield self
            finally:
                self._progress = None

    def __call__(self, backend: str, event: str) -> None:
        now = time.perf_counter()
        if event == "start":
            self.started[backend] = now
        elif event == "done":
            self.times[backend] = now - self.started.get(backend, now)
        elif event == "reused":
            self.times[backend] = None
        task = self._tasks.get(backend)
        if self._progress is not None and task is not None:
            if event == "start":
                self._progress.start_task(task)
                self._progress.update(task, state="building")
            else:
                self._progress.update(task, completed=1, state="reused (unchanged)" if event == "reused" else "done")
                self._progress.stop_task(task)
        elif event != "start":
            took = self.times[backend]
            state = "reused (unchanged)" if took is None else f"built in {took:.1f} s"
            print(f"  {backend:<10} {state}", file=self.stream, flush=True)


def summary(out: Path, manifest: dict[str, list[str]], progress: BuildProgress | None = None) -> list[str]:
    """One line per backend: where its files are and how many files, PDFs (with pages) and images."""
    lines = []
    order = [name for name, _ in BACKENDS if name in manifest] + sorted(set(manifest) - {n for n, _ in BACKENDS})
    for name in order:
        files = manifest[name]
        if not files:
            continue
        tops = sorted({f.split("/", 1)[0] for f in files})
        where = ", ".join(f"{out / t}{'/' if (out / t).is_dir() else ''}" for t in tops)
        pdfs = [f for f in files if f.endswith(".pdf")]
        pngs = sum(f.endswith(".png") for f in files)
        parts = [f"{len(files)} file{'s' if len(files) != 1 else ''}"]
        if pdfs:
            pages = _pages(out, pdfs)
            parts.append(f"{len(pdfs)} PDF{'s' if len(pdfs) != 1 else ''}"
                         + (f" ({pages} page{'s' if pages != 1 else ''})" if pages is not None else ""))
        if pngs:
            reused = _reused(out).get(name, 0)
            parts.append(f"{pngs} image{'s' if pngs != 1 else ''}" + (f" ({reused} reused)" if reused else ""))
        if progress is not None and name in progress.times:
            took = progress.times[name]
            parts.append("reused" if took is None else f"{took:.1f} s")
        lines.append(f"  {name:<10} {', '.join(parts)}: {where}")
    return lines


def _reused(out: Path) -> dict[str, int]:
    """Backend -> how many of its files the last build took from the cache instead of drawing them."""
    from cardc.buildcache import read_index

    index = read_index(out) or {}
    backends = index.get("backends") or {}
    return {name: int(entry.get("reused") or 0) for name, entry in backends.items() if isinstance(entry, dict)}


def _pages(out: Path, pdfs: list[str]) -> int | None:
    try:
        import pypdfium2 as pdfium
    except ImportError:  # pragma: no cover - a dependency
        return None
    total = 0
    for rel in pdfs:
        try:
            doc = pdfium.PdfDocument(str(out / rel))
        except (OSError, pdfium.PdfiumError):
            return None
        total += len(doc)
        doc.close()
    return total
