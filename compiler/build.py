"""`cardc build`: run every backend into a temporary folder, then swap it in only if all succeeded.

A failed or interrupted build leaves the previous output folder exactly as it was.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import tempfile
from pathlib import Path

from cardc import backends
from cardc.backends import BuildOptions
from cardc.diagnostics import Diagnostic
from cardc.model import Project


class BuildFailed(Exception):
    """A backend failed; the previous output is untouched. `diagnostics` says why."""

    def __init__(self, message: str, diagnostics: list[Diagnostic] | None = None) -> None:
        super().__init__(message)
        self.diagnostics = diagnostics or []


def build(project: Project, out: Path, options: BuildOptions) -> list[Diagnostic]:
    out = out.resolve()
    if options.destination is None:
        options = dataclasses.replace(options, destination=out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.build-", dir=out.parent))
    diagnostics: list[Diagnostic] = []
    try:
        for name, write in backends.BACKENDS:  # looked up now: tests and plugins may replace the list
            if options.wants(name):
                diagnostics.extend(write(project, tmp, options))
        if any(d.is_error for d in diagnostics):
            raise BuildFailed("a backend reported errors", diagnostics)
        _swap(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return diagnostics


def _swap(new: Path, out: Path) -> None:
    """Put `new` in place of `out` with two renames, so `out` is never half-written."""
    old = out.parent / f".{out.name}.old-{os.getpid()}"
    if out.exists():
        out.rename(old)
    try:
        new.rename(out)
    except BaseException:
        if old.exists():
            old.rename(out)
        raise
    shutil.rmtree(old, ignore_errors=True)
