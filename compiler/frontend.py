"""The front end in one call: files -> parse trees -> typed IR, with every diagnostic of the run."""

from __future__ import annotations

import gc
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from cardc import syntax as s
from cardc.catalogue import Catalogue, default_catalogue
from cardc.diagnostics import Diagnostic, DiagnosticSink
from cardc.loader import load
from cardc.lower import Lowering, Trace
from cardc.model import Project
from cardc.textcheck import check_hand_texts, hand_text_warnings


@dataclass(frozen=True)
class FrontEndResult:
    project: Project
    diagnostics: list[Diagnostic]
    sources: dict[str, str]
    modules: dict[str, str] = field(default_factory=dict)  # file -> the module it declares
    files: tuple[s.FileS, ...] = ()  # the parse trees, for tools that point into the source (the editor)

    @property
    def ok(self) -> bool:
        return not any(d.is_error for d in self.diagnostics)

    def errors(self, strict: bool = False) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.is_error or (strict and d.code == "W500")]


def compile_paths(paths: list[Path], catalogue: Catalogue | None = None,
                  overlay: Mapping[Path, str] | None = None, trace: Trace | None = None) -> FrontEndResult:
    """`trace`, when given, records which diagnostics each entity gave (`cardc.recheck` reuses them)."""
    # The front end builds a large graph of small, acyclic, long-lived objects: the cyclic garbage
    # collector would walk it again and again for nothing (a third of the time at 10,000 cards).
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        sink = DiagnosticSink()
        sources = load(paths, sink, overlay)
        project = Lowering(sources, catalogue or default_catalogue(), sink, trace=trace).run()
        if trace is None:
            sink.items.extend(check_hand_texts(project))  # W501: hand-written texts against their effects
        else:
            index = {id(e): i for i, e in enumerate(trace.lowered) if e is not None}
            for e in project.entities:
                found = hand_text_warnings(e)
                trace.hand.append((index[id(e)], len(found)))
                sink.items.extend(found)
        modules = {f.path: f.module.name for f in sources.files if f.module is not None}
        return FrontEndResult(project, sink.sorted(), sources.texts, modules, tuple(sources.files))
    finally:
        if gc_was_enabled:
            gc.enable()
