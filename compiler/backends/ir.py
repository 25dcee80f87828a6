"""Backend `ir`: `generated/ir/<game>.json`, the checked IR of each game."""

from __future__ import annotations

from pathlib import Path

from cardc.backends import BuildOptions
from cardc.diagnostics import Diagnostic
from cardc.irjson import iter_project_json
from cardc.model import Project


def write_ir(project: Project, out: Path, options: BuildOptions) -> list[Diagnostic]:
    folder = out / "ir"
    folder.mkdir(parents=True, exist_ok=True)
    for game in sorted(project.games):
        with (folder / f"{game}.json").open("w", encoding="utf-8", newline="\n") as fp:
            fp.writelines(iter_project_json(project, game))  # the text of dumps(project_json(...)), streamed
    return []
