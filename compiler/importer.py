"""`cardc import`: `.cardc` source from an engine-neutral export (`export/<game>.json`), so other tools can hand
content to cardc and an export can be shown complete (export, import, export gives the same JSON).

The export is validated against its published schema first; a file that does not fit is reported with JSON
pointers, never a traceback. Source is written one file per run of entities of one module, numbered so that
the loader (which reads a folder's files sorted) declares the entities in the export's order.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cardc.diagnostics import Diagnostic, Severity, Span
from cardc.resources import DSL_DIR

EXPORT_SCHEMA = DSL_DIR / "schemas" / "export.schema.json"
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
INDENT = "  "


class ImportFailed(Exception):
    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        super().__init__(f"{len(diagnostics)} problem(s) in the export")
        self.diagnostics = diagnostics


def _pointer(path: Any) -> str:
    parts = [str(p).replace("~", "~0").replace("/", "~1") for p in path]
    return "/" + "/".join(parts) if parts else "(the whole document)"


def _problem(file: str, message: str, hint: str) -> Diagnostic:
    return Diagnostic(Severity.ERROR, "E130", message, Span(file, 1, 1, 1, 1), hint)


def read_export(path: Path) -> dict[str, Any]:
    """The export document, checked against `export.schema.json`; every problem as a diagnostic with its pointer."""
    from jsonschema import Draft202012Validator

    file = str(path)
    try:
        raw = path.read_bytes()
    except OSError as err:
        raise ImportFailed([_problem(file, f"cannot read the export: {err.strerror or err}",
                                     "give the path of an `export/<game>.json` file")]) from None
    try:
        doc = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as err:
        line, col = (err.lineno, err.colno) if isinstance(err, json.JSONDecodeError) else (1, 1)
        diag = Diagnostic(Severity.ERROR, "E130", f"not a JSON document: {err}", Span(file, line, col, line, col),
                          "`cardc import` reads the engine-neutral export that `cardc build` writes")
        raise ImportFailed([diag]) from None
    schema = json.loads(EXPORT_SCHEMA.read_text(encoding="utf-8"))
    errors = sorted(Draft202012Validator(schema).iter_errors(doc), key=lambda e: list(map(str, e.absolute_path)))
    if errors:
        raise ImportFailed([_problem(file, f"at {_pointer(e.absolute_path)}: {e.message}",
                                     "the export must follow dsl/schemas/export.schema.json") for e in errors[:50]])
    return doc  # type: ignore[no-any-return]


# ---- values ----------------------------------------------------------------------------------------------------


def _string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t") + '"'


def _texts(localized: dict[str, Any] | None) -> str:
    """A localized text as written: only the languages it was written in (the export flags the fallbacks)."""
    entries: dict[str, str] = {}
    for lang, entry in (localized or {}).items():
        if not entry["fallback"]:
            entries.setdefault(lang, entry["text"])
    if not entries:  # every language fell back: the text was written in the fallback's language only
        for entry in (localized or {}).values():
            entries.setdefault(entry["lang"], entry["text"])
    return "{ " + " ".join(f"{lang} {_string(text)}" for lang, text in entries.items()) + " }"


def value(v: dict[str, Any]) -> str:
    """The source spelling of one typed export value."""
    t = v["type"]
    if t == "int":
        return str(v["value"])
    if t == "modifier":
        return f"{v['value']:+d}"
    if t == "number":
        return str(v.get("text") or v["value"])
    if t == "range":
        return f"{v['min']}..{v['max']}"
    if t == "dice":
        return f"{v['count'] if v['count'] != 1 else ''}d{v['sides']}"
    if t == "string":
        return _string(v["value"])
    if t == "icon":
        return f":{v['name']}:"
    if t == "bool":
        return "true" if v["value"] else "false"
    if t == "text":
        return _texts(v["value"])
    if t == "list":
        return "[" + ", ".join(value(i) for i in v["items"]) + "]"
    if t in ("enum", "name"):
        return str(v["value"])
    if t == "ref":
        return str(v["id"])
    if t == "call":
        args = ", ".join((f"{a['name']}: " if a.get("name") else "") + value(a["value"]) for a in v["args"])
        return f"{v['verb']}({args})"
    if t == "unknown":
        return f"unknown {_string(v['note'])}"
    if t == "provisional":
        return f"provisional {value(v['value'])} {_string(v['note'])}"
    raise ValueError(f"unknown value type {t!r}")  # the schema admits no other


# ---- effects ---------------------------------------------------------------------------------------------------


def call(c: dict[str, Any]) -> str:
    args = c.get("args") or {}
    if not args:
        return str(c["verb"])
    return f"{c['verb']}(" + ", ".join(f"{name}: {value(a)}" for name, a in args.items()) + ")"


def condition(c: dict[str, Any], parent: str = "") -> str:
    t = c["type"]
    if t == "call":
        return call(c)
    if t == "not":
        return "not " + condition(c["operand"], "not")
    text = f" {t} ".join(condition(x, t) for x in c["operands"])
    # `not` binds tightest, then `and`, then `or`: parenthesize where the grammar would regroup
    return f"({text})" if parent == "not" or (parent == "and" and t == "or") else text


def _block(lines: list[str], body: list[dict[str, Any]], depth: int) -> None:
    for st in body:
        statement(lines, st, depth)


def statement(lines: list[str], st: dict[str, Any], depth: int) -> None:
    pad = INDENT * depth
    t = st["type"]
    if t == "do":
        lines.append(pad + call(st["call"]))
    elif t == "may":
        lines.append(pad + "may " + call(st["call"]))
    elif t == "choose":
        lines.append(pad + "choose {")
        for opt in st["options"]:
            lines.append(pad + INDENT + opt["name"] + " {")
            _block(lines, opt["body"], depth + 2)
            lines.append(pad + INDENT + "}")
        lines.append(pad + "}")
    else:
        lines.append(pad + f"if {condition(st['condition'])} {{")
        _block(lines, st["then"], depth + 1)
        if st["else"]:
            lines.append(pad + "} else {")
            _block(lines, st["else"], depth + 1)
        lines.append(pad + "}")


def effect(lines: list[str], x: dict[str, Any], depth: int) -> None:
    pad = INDENT * depth
    cond = f" if {condition(x['condition'])}" if x["condition"] is not None else ""
    lines.append(pad + f"on {call(x['trigger'])}{cond} {{")
    _block(lines, x["body"], depth + 1)
    lines.append(pad + "}")


# ---- declarations ----------------------------------------------------------------------------------------------


@dataclass
class SourceFile:
    module: str
    lines: list[str] = field(default_factory=list)

    def text(self) -> str:
        return f"module {self.module}\n\n" + "\n".join(self.lines).rstrip("\n") + "\n"


class Writer:
    """The `.cardc` files of one exported game."""

    def __init__(self, doc: dict[str, Any]) -> None:
        self.doc = doc
        self.game = doc["game"]
        self.kinds = {k["id"]: k for k in doc["kinds"]}
        self.children: dict[str, list[dict[str, Any]]] = {}
        for e in doc["entities"]:
            if e["parent"] is not None:
                self.children.setdefault(e["parent"], []).append(e)

    def module_name(self, module: str) -> str:
        return self.game["id"] if module == "base" else f"{self.game['id']}.{module}"

    def files(self) -> dict[str, str]:
        gid = self.game["id"]
        head = SourceFile(self.module_name("base"))
        base = next((m for m in self.doc["modules"] if m["base"]), None)
        self.game_decl(head.lines, base)
        for kind in sorted(self.kinds.values(), key=lambda k: (k["module"] != "base", k["module"], k["id"])):
            if not kind["builtin"] and kind["module"] == "base":
                self.kind_decl(head.lines, kind)
        out = {f"{gid}/000-game.cardc": head}
        runs: list[SourceFile] = []
        declared: set[str] = {"base"}
        for mod in self.doc["modules"]:
            if not mod["base"]:
                f = SourceFile(self.module_name(mod["id"]))
                self.expansion_decl(f.lines, mod)
                for kind in sorted(self.kinds.values(), key=lambda k: k["id"]):
                    if not kind["builtin"] and kind["module"] == mod["id"]:
                        self.kind_decl(f.lines, kind)
                runs.append(f)
                declared.add(mod["id"])
        for mod in sorted(declared - {"base"} - {m["id"] for m in self.doc["modules"]}):  # pragma: no cover
            runs.append(SourceFile(self.module_name(mod)))
        for e in self.doc["entities"]:
            if e["parent"] is not None:
                continue  # declared inside its parent
            if not runs or runs[-1].module != self.module_name(e["module"]) or len(out) == 0:
                runs.append(SourceFile(self.module_name(e["module"])))
            self.entity_decl(runs[-1].lines, e, 0)
        for i, f in enumerate(runs, start=1):
            out[f"{gid}/{i:03d}-{f.module.split('.')[-1]}.cardc"] = f
        return {path: f.text() for path, f in out.items()}

    def game_decl(self, lines: list[str], base: dict[str, Any] | None) -> None:
        g = self.game
        lines.append(f"game {g['id']} {{")
        if g.get("name") is not None:
            lines.append(f"{INDENT}name: {_texts(g['name'])}")
        lines.append(f"{INDENT}languages: [{', '.join(g['languages'])}]")
        lines.append(f"{INDENT}publish: [{', '.join(g['publish'])}]")
        lines.append(f"{INDENT}fallback: {g['fallback']}")
        if base is not None and base.get("text") is not None:
            lines.append(f"{INDENT}text: {_texts(base['text'])}")
        if base is not None and base.get("source") is not None:
            lines.append(f"{INDENT}source: {_string(base['source'])}")
        lines += ["}", ""]

    def expansion_decl(self, lines: list[str], mod: dict[str, Any]) -> None:
        lines.append(f"expansion {mod['id']} extends {self.game['id']} {{")
        if mod.get("name") is not None:
            lines.append(f"{INDENT}name: {_texts(mod['name'])}")
        lines.append(f"{INDENT}languages: [{', '.join(mod['languages'])}]")
        if mod["requires"]:
            lines.append(f"{INDENT}requires: [{', '.join(mod['requires'])}]")
        if mod.get("text") is not None:
            lines.append(f"{INDENT}text: {_texts(mod['text'])}")
        if mod.get("source") is not None:
            lines.append(f"{INDENT}source: {_string(mod['source'])}")
        lines += ["}", ""]

    def kind_decl(self, lines: list[str], k: dict[str, Any]) -> None:
        ext = f" extends {k['extends']}" if k["extends"] else ""
        lines.append(f"kind {k['id']}{ext} {{")
        if k.get("name") is not None:
            lines.append(f"{INDENT}name: {_texts(k['name'])}")
        lines.append(f"{INDENT}physical: {'true' if k['physical'] else 'false'}")
        lines.append(f"{INDENT}copies: {k['copies']}")
        if k.get("size"):
            lines.append(f"{INDENT}size: {k['size']}")
        parent_attrs = set(self.kinds[k["extends"]]["attrs"]) if k["extends"] in self.kinds else set()
        for name, a in k["attrs"].items():
            if name in parent_attrs and k["extends"]:
                continue  # inherited
            parts = [f"type: {a['type']}"]
            if a["required"]:
                parts.append("required: true")
            if a["default"] is not None:
                parts.append(f"default: {value(a['default'])}")
            if a.get("doc") is not None:
                parts.append(f"doc: {_string(a['doc'])}")
            lines.append(f"{INDENT}attr {name} {{ {'  '.join(parts)} }}")
        lines += ["}", ""]

    def default_copies(self, e: dict[str, Any]) -> int | None:
        kind = self.kinds.get(e["kind"])
        if kind is None or not kind["physical"]:
            return None
        return int(kind["copies"])

    def entity_decl(self, lines: list[str], e: dict[str, Any], depth: int) -> None:
        pad = INDENT * depth
        inner = pad + INDENT
        errata = "errata " if e["errata"] else ""
        lines.append(f"{pad}{errata}{e['kind']} {e['id']} {{")
        fields: list[tuple[str, str]] = []  # (path as the IR's provisional list names it, line)
        name = _texts(e["name"])
        if e.get("name_provisional") is not None:
            name = f"provisional {name} {_string(e['name_provisional'])}"
        fields.append(("name", f"name: {name}"))
        if e.get("text") is not None:
            text = _texts(e["text"])
            if e.get("text_provisional") is not None:
                text = f"provisional {text} {_string(e['text_provisional'])}"
            fields.append(("text", f"text: {text}"))
        elif e.get("text_provisional") is not None:
            fields.append(("text", f"text: unknown {_string(e['text_provisional'])}"))
        if e.get("copies_provisional") is not None:
            copies = (f"provisional {e['copies']} {_string(e['copies_provisional'])}" if e["copies"] is not None
                      else f"unknown {_string(e['copies_provisional'])}")
            fields.append(("copies", f"copies: {copies}"))
        elif e["copies"] != self.default_copies(e):
            fields.append(("copies", f"copies: {e['copies']}"))
        if e["tags"]:
            fields.append(("tags", f"tags: [{', '.join(e['tags'])}]"))
        if e["variant"] is not None and not (e["parent"] is not None and self._variant_inherited(e)):
            fields.append(("variant", f"variant: {e['variant']}"))
        if e["source"].get("ref") is not None:
            fields.append(("source", f"source: {_string(e['source']['ref'])}"))
        for attr, v in e["attrs"].items():
            fields.append((attr, f"{attr}: {value(v)}"))
        # The IR lists provisional values in source order: write those attributes in that order.
        order = {p["path"]: i for i, p in reversed(list(enumerate(e["provisional"])))}
        fields.sort(key=lambda f: order.get(f[0], -1))
        lines.extend(inner + line for _, line in fields)
        for child in self.children.get(e["id"] if not e["errata"] else e["key"], ()):
            if child["module"] == e["module"]:
                self.entity_decl(lines, child, depth + 1)
        for x in e["effects"]:
            effect(lines, x, depth + 1)
        lines.append(pad + "}")
        if depth == 0:
            lines.append("")

    def _variant_inherited(self, e: dict[str, Any]) -> bool:
        parent = next((p for p in self.doc["entities"] if p["id"] == e["parent"]), None)
        return parent is not None and parent["variant"] == e["variant"]


def import_export(path: Path) -> dict[str, str]:
    """Relative path -> `.cardc` text for the export at `path`, plus a `cardc.toml` marking the content folder."""
    doc = read_export(path)
    files = Writer(doc).files()
    files["cardc.toml"] = ("# Marks the content folder: image paths and imports must stay inside it.\n[content]\n"
                           f"name = {json.dumps('imported ' + doc['game']['id'], ensure_ascii=False)}\n")
    return files


def write_files(files: dict[str, str], out: Path) -> list[Path]:
    """Write the files under `out`, refusing (before writing anything) any that already exists."""
    clash = [out / rel for rel in files if (out / rel).exists() and rel != "cardc.toml"]
    if clash:
        raise FileExistsError(str(clash[0]))
    written = []
    for rel, text in sorted(files.items()):
        target = out / rel
        if rel == "cardc.toml" and target.exists():
            continue  # an existing content folder keeps its own settings
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        written.append(target)
    return written


__all__ = ["ImportFailed", "import_export", "read_export", "value", "write_files"]
