"""`cardc export --csv KIND`: the entities of one kind as a spreadsheet that `import "x.csv" as KIND` reads back.

Columns: `id`, texts one column per language (`name.en`, ...; `name.provisional` for a provisional name's note),
`copies`, `tags`, `variant`, `source`, then the kind's attributes. Cells are written as the sheet importer
reads them (`cardc.sheets`): DSL spelling, except plain strings. Rules (`on ...`) and entities declared inside
others cannot live in a sheet: they are left out, and the command says so.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path
from typing import Any

FIRST = ("id", "name", "text", "copies", "tags", "variant", "source", "note")  # the columns a designer looks for first


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="*", type=Path, help="files or folders (default: content/)")
    p.add_argument("--csv", metavar="KIND", required=True, help="write the entities of this kind as CSV")
    p.add_argument("--game", help="the game whose kind it is (when several games have a kind of that name)")
    p.add_argument("-o", "--out", type=Path, help="the CSV file to write (default: standard output)")


def run(args: argparse.Namespace) -> int:
    from cardc.backends.export.document import export_document
    from cardc.frontend import compile_paths
    from cardc.report import Reporter, ReportOptions

    result = compile_paths(args.paths or [Path("content")])
    if Reporter(ReportOptions(quiet=True)).report(result.diagnostics, result.sources):
        return 1
    games = sorted(g for (g, k) in result.project.kinds if k == args.csv and (args.game in (None, g)))
    if not games:
        known = sorted({k for (_g, k) in result.project.kinds})
        print(f"cardc export: no kind `{args.csv}`{f' in game {args.game}' if args.game else ''}; "
              f"kinds: {', '.join(known)}", file=sys.stderr)
        return 2
    if len(games) > 1:
        print(f"cardc export: games {', '.join(games)} all have a kind `{args.csv}`; choose one with --game",
              file=sys.stderr)
        return 2
    doc = export_document(result.project, games[0])
    header, rows, dropped = sheet_rows(doc, args.csv)
    if args.out is not None:
        if args.out.exists() and args.out.suffix.lower() != ".csv":
            print(f"cardc export: {args.out} exists and is not a .csv file; nothing was written", file=sys.stderr)
            return 1
        with args.out.open("w", encoding="utf-8", newline="") as f:
            _write(f, header, rows)
        print(f"wrote {args.out} ({len(rows)} {args.csv} rows)", file=sys.stderr)
    else:
        _write(sys.stdout, header, rows)
    if dropped:
        print(f"note: a sheet holds no rules or nested entities; left out: {', '.join(dropped)}", file=sys.stderr)
    return 0


def _write(stream: Any, header: list[str], rows: list[list[str]]) -> None:
    w = csv.writer(stream, lineterminator="\n")
    w.writerow(header)
    w.writerows(rows)


def _plain(v: dict[str, Any]) -> str:
    """A string cell as the importer reads it: as written, unless it would read as DSL."""
    from cardc.importer import value
    from cardc.sheets import _DSL_STRING

    if v["type"] == "string" and not _DSL_STRING.match(v["value"]) and v["value"] == v["value"].strip():
        return str(v["value"])
    return value(v)


def _texts(v: dict[str, Any] | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for lang, entry in (v or {}).items():
        if not entry["fallback"]:
            out.setdefault(lang, entry["text"])
    if not out:
        for entry in (v or {}).values():
            out.setdefault(entry["lang"], entry["text"])
    return out


def sheet_rows(doc: dict[str, Any], kind: str) -> tuple[list[str], list[list[str]], list[str]]:
    """(header, rows, what was left out) for the entities of `kind` in an export document."""
    from cardc.importer import Writer, value

    languages: list[str] = list(doc["game"]["languages"])
    writer = Writer(doc)
    entities = [e for e in doc["entities"] if e["kind"] == kind and not e["errata"] and e["parent"] is None]
    dropped = [f"rules of {e['id']}" for e in entities if e["effects"]]
    dropped += [f"{c['kind']} {c['id']} (inside {e['id']})" for e in entities for c in writer.children.get(e["id"], ())]
    records: list[dict[str, str]] = []
    columns: dict[str, None] = {"id": None}

    def text_cells(attr: str, texts: dict[str, str], note: str | None, rec: dict[str, str]) -> None:
        for lang in sorted(texts, key=lambda x: (languages.index(x) if x in languages else len(languages), x)):
            rec[f"{attr}.{lang}"] = texts[lang]
        if note is not None:
            rec[f"{attr}.provisional"] = note

    for e in entities:
        rec: dict[str, str] = {"id": e["id"]}
        text_cells("name", _texts(e["name"]), e.get("name_provisional"), rec)
        if e.get("text") is not None:
            text_cells("text", _texts(e["text"]), e.get("text_provisional"), rec)
        elif e.get("text_provisional") is not None:
            rec["text"] = f"unknown {value({'type': 'string', 'value': e['text_provisional']})}"
        if e.get("copies_provisional") is not None:
            note = value({"type": "string", "value": e["copies_provisional"]})
            rec["copies"] = f"provisional {e['copies']} {note}" if e["copies"] is not None else f"unknown {note}"
        elif e["copies"] != writer.default_copies(e):
            rec["copies"] = str(e["copies"])
        if e["tags"]:
            rec["tags"] = "[" + ", ".join(e["tags"]) + "]"
        if e["variant"] is not None:
            rec["variant"] = str(e["variant"])
        if e["source"].get("ref") is not None:
            rec["source"] = _plain({"type": "string", "value": e["source"]["ref"]})
        for attr, v in e["attrs"].items():
            if v["type"] == "text":
                text_cells(attr, _texts(v["value"]), None, rec)
            elif v["type"] == "provisional" and v["value"]["type"] == "text":
                text_cells(attr, _texts(v["value"]["value"]), v["note"], rec)
            else:
                rec[attr] = _plain(v)
        columns.update(dict.fromkeys(rec))
        records.append(rec)
    first_seen = {c.split(".", 1)[0]: None for c in columns}
    groups = [*[g for g in FIRST if g in first_seen], *[g for g in first_seen if g not in FIRST]]
    order = [*languages, *[x for x in doc["game"].get("publish", ()) if x not in languages]]

    def place(col: str) -> tuple[int, int, str]:
        group, _, lang = col.partition(".")
        rank = -1 if not lang else len(order) + 1 if lang == "provisional" else (
            order.index(lang) if lang in order else len(order))
        return groups.index(group), rank, lang

    header = sorted(columns, key=place)
    return header, [[rec.get(c, "") for c in header] for rec in records], dropped
