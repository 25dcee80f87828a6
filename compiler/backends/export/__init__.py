"""Backend `export`: data for other engines, read from the checked IR.

- `export/<game>.json`: the engine-neutral export, published as dsl/schemas/export.schema.json
  (modules: document for the shape, values for typed values).
- `export/tts/<game>-<lang>.json`: Tabletop Simulator saved objects, one deck per module and kind of
  physical entity, with sprite sheets under `export/tts/img/` (modules: tts, sheets, faces).

Settings (BuildOptions.settings): `tts_base_url` (prefix of the image URLs; default: paths relative
to the saved-object file) and `tts_images` (`false` writes the JSON only).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cardc.backends import BuildOptions
from cardc.collector import paused
from cardc.diagnostics import Diagnostic
from cardc.jsonfast import fast_dumps
from cardc.model import Project


def dumps(data: Any) -> str:
    """Deterministic JSON text: sorted keys, UTF-8 as is, trailing newline."""
    return json.dumps(data, ensure_ascii=False, indent=2, sort_keys=True) + "\n"


def write_json(path: Path, data: Any) -> None:
    """`dumps(data)` written to `path`: orjson's bytes when they are json's (`fast_dumps`), else json's streamed
    (indented JSON is encoded in pure Python as millions of small pieces, which `dumps` holds in a list before
    joining them: 10,000 cards, 400 MiB more than the document)."""
    fast = fast_dumps(data)
    if fast is not None:
        path.write_bytes(fast)
        return
    with path.open("w", encoding="utf-8") as out:
        json.dump(data, out, ensure_ascii=False, indent=2, sort_keys=True)
        out.write("\n")


def write_export(project: Project, out: Path, options: BuildOptions) -> list[Diagnostic]:
    from cardc.backends.export.document import export_document
    from cardc.backends.export.tts import RulesCache, write_tts

    rules = RulesCache(project)  # rules text is generated once for the JSON and the TTS files
    text = (lambda _p, e, lang: rules(e, lang)) if rules.fn is not None else None
    folder = out / "export"
    folder.mkdir(parents=True, exist_ok=True)
    with paused():  # no cyclic collections: see `collector`
        for game in sorted(project.games):
            write_json(folder / f"{game}.json", export_document(project, game, text))
        return write_tts(project, out, options, rules)


__all__ = ["dumps", "fast_dumps", "write_export", "write_json"]
