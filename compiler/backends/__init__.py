"""Backends read the checked IR and write files into the build directory. None of them re-parses.

Each backend is `(name, write)` where `write(project, out_dir, options)` returns the diagnostics it
found (for example a text that does not fit its box). Later backends are added to `BACKENDS`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cardc.diagnostics import Diagnostic

if TYPE_CHECKING:  # the command line imports this module for the backends' names: no IR classes needed
    from cardc.model import Project


@dataclass(frozen=True)
class BuildOptions:
    only: frozenset[str] = frozenset()  # empty: every backend
    settings: dict[str, str] = field(default_factory=dict)
    destination: Path | None = None  # the folder the outputs end up in (backends write to a temp folder first)
    designer: bool = False  # the reference shows designer notes and source sections
    cache: Any = field(default=None, compare=False)  # a cardc.buildcache.BuildCache during `cardc build`
    notes: list[str] = field(default_factory=list, compare=False)  # summary lines backends add for the CLI
    jobs: int = 1  # backends run at once (each in a process of its own when above 1); never changes an output

    def wants(self, name: str) -> bool:
        return not self.only or name in self.only


Writer = Callable[["Project", Path, BuildOptions], list[Diagnostic]]


def _ir(project: Project, out: Path, options: BuildOptions) -> list[Diagnostic]:
    from cardc.backends.ir import write_ir

    return write_ir(project, out, options)


def _print(project: Project, out: Path, options: BuildOptions) -> list[Diagnostic]:
    from cardc.backends.print import write_print

    return write_print(project, out, options)


def _python(project: Project, out: Path, options: BuildOptions) -> list[Diagnostic]:
    from cardc.backends.python import write_python

    return write_python(project, out, options)


def _balance(project: Project, out: Path, options: BuildOptions) -> list[Diagnostic]:
    from cardc.backends.python.balance import write_balance

    return write_balance(project, out, options)


def _reference(project: Project, out: Path, options: BuildOptions) -> list[Diagnostic]:
    from cardc.backends.reference import write_reference

    return write_reference(project, out, options)


def _export(project: Project, out: Path, options: BuildOptions) -> list[Diagnostic]:
    from cardc.backends.export import write_export

    return write_export(project, out, options)


BACKENDS: list[tuple[str, Writer]] = [
    ("ir", _ir),
    ("print", _print),
    ("python", _python),
    ("balance", _balance),
    ("reference", _reference),  # after balance: it shows the balance tables written in the same build
    ("export", _export),  # after print: Tabletop Simulator sheets reuse its per-card PNGs when present
]
