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
from cardc.diagnostics import Diagnostic
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


_DIGITS = frozenset(b"0123456789")


def _may_differ(out: bytes) -> bool:
    """Whether orjson's `out` may hold a number json writes otherwise: a float below 1e-4 (json writes an exponent,
    orjson the number in full down to 1e-6, so with "0.0000") or one with an exponent (`e-` or `e+` between digits
    in both, where their exponents start at different values). Plain searches, as fast as memory: a regex over
    every byte of a 4 MB export took ten times orjson's time. Text that looks so (`2e-5` in a card's rules) only
    makes json write the file."""
    if b"0.0000" in out:
        return True
    for mark in (b"e-", b"e+"):  # "e-" is common in text (re-roll): only digits on both sides count
        at = out.find(mark)
        while at != -1:
            if at > 0 and out[at - 1] in _DIGITS and at + 2 < len(out) and out[at + 2] in _DIGITS:
                return True
            at = out.find(mark, at + 2)
    return False


def fast_dumps(data: Any) -> bytes | None:
    """`dumps(data)` encoded as UTF-8, by orjson (C: about 15 times faster than json's indented encoder, the
    largest part of a JSON-only export); None where orjson's text would not be json's byte for byte: integers past
    64 bits and keys other than strings (orjson refuses them), numbers `_may_differ` finds, or no orjson. (NaN and
    infinities, which json writes as the invalid `NaN`, orjson as null, are not in exports: sizes and positions
    are finite.)"""
    try:
        import orjson
    except ImportError:  # pragma: no cover - orjson is a dependency; json writes the same text
        return None
    try:
        out = orjson.dumps(data, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS | orjson.OPT_APPEND_NEWLINE)
    except TypeError:  # orjson.JSONEncodeError is a TypeError
        return None
    return None if _may_differ(out) else out


def write_export(project: Project, out: Path, options: BuildOptions) -> list[Diagnostic]:
    from cardc.backends.export.document import export_document
    from cardc.backends.export.tts import RulesCache, write_tts

    rules = RulesCache(project)  # rules text is generated once for the JSON and the TTS files
    text = (lambda _p, e, lang: rules(e, lang)) if rules.fn is not None else None
    folder = out / "export"
    folder.mkdir(parents=True, exist_ok=True)
    for game in sorted(project.games):
        write_json(folder / f"{game}.json", export_document(project, game, text))
    return write_tts(project, out, options, rules)


__all__ = ["dumps", "fast_dumps", "write_export", "write_json"]
