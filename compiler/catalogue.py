"""The effect catalogue (`dsl/catalogue.yaml`): the single source of the effect vocabulary.

The checker, the JSON Schemas, the Python generator and the text generator all read it;
adding an effect verb is an entry there, not a compiler change.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cardc.diagnostics import Diagnostic, Severity, Span
from cardc.records import pickle_by_constructor
from cardc.resources import DSL_DIR

if TYPE_CHECKING:  # the IR's classes and PyYAML are imported when a catalogue is read, not from the cache
    from cardc.model import TypeExpr
    from cardc.yamlpos import YamlDoc

CATALOGUE_PATH = DSL_DIR / "catalogue.yaml"
CATALOGUE_SCHEMA = DSL_DIR / "schemas" / "catalogue.schema.json"
ROLES = ("trigger", "condition", "modifier", "action")
_SECTIONS = {"triggers": "trigger", "conditions": "condition", "modifiers": "modifier", "actions": "action"}


@dataclass(frozen=True, slots=True)
class Param:
    name: str
    type: TypeExpr
    required: bool
    default: Any
    doc: str
    join: str = "and"  # how a list argument reads: "and" (all of them) or "or" (any one of them)


@dataclass(frozen=True, slots=True)
class Verb:
    name: str
    role: str
    doc: str
    params: tuple[Param, ...]
    text: dict[str, Any] = field(default_factory=dict)  # sentence templates per language
    extra: dict[str, Any] = field(default_factory=dict)  # backend-specific data (e.g. python)
    descriptive: str = ""  # why the verb is only described, never simulated (empty: it runs)
    span: Span = Span("<catalogue>", 1, 1)  # where the verb is declared, for diagnostics about it

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)


@dataclass(frozen=True, slots=True)
class Catalogue:
    verbs: dict[str, Verb]
    file: str = "<catalogue>"  # the file name its diagnostics give
    source: str = ""  # its text, to show the line of a diagnostic

    def of_role(self, role: str) -> list[Verb]:
        return [v for v in self.verbs.values() if v.role == role]

    def names(self, *roles: str) -> list[str]:
        return [v.name for v in self.verbs.values() if v.role in roles]


class CatalogueError(Exception):
    """The catalogue cannot be used; `diagnostics` point at its lines, `sources` holds its text to show them."""

    def __init__(self, diagnostics: Sequence[Diagnostic], sources: dict[str, str]) -> None:
        super().__init__(f"{len(diagnostics)} problem(s) in the effect catalogue")
        self.diagnostics = list(diagnostics)
        self.sources = sources


def _error(message: str, span: Span, hint: str | None = None, code: str = "E150") -> Diagnostic:
    return Diagnostic(Severity.ERROR, code, message, span, hint)


def _display_name(path: Path) -> str:
    """The catalogue's path as diagnostics show it: relative to the current folder when inside it."""
    try:
        return os.path.relpath(path) if Path(os.path.relpath(path)).parts[:1] != ("..",) else str(path)
    except ValueError:  # another drive
        return str(path)


@lru_cache(maxsize=1)
def _schema() -> dict[str, Any]:
    import json  # only to check a catalogue not met before: a cached check does not

    schema: dict[str, Any] = json.loads(CATALOGUE_SCHEMA.read_text(encoding="utf-8"))
    return schema


def _schema_validator() -> Any:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(_schema())


def schema_diagnostics(doc: YamlDoc) -> list[Diagnostic]:
    """The catalogue against its JSON Schema, each problem at the line of the value it concerns. The verdict
    comes from the compiled validator (fast); only a catalogue that fails is walked again for every error."""
    from cardc.schemafast import bundle_of, is_valid

    schema = _schema()
    if is_valid(bundle_of([schema]).validator(schema["$id"]), doc.data):
        return []
    out: list[Diagnostic] = []
    for err in sorted(_schema_validator().iter_errors(doc.data), key=lambda e: list(map(str, e.absolute_path))):
        path = list(err.absolute_path)
        where = "/".join(str(p) for p in path) or "the top level"
        hint = None
        if err.validator == "additionalProperties" and path and path[0] == "conditions":
            hint = "a condition cannot be `descriptive`: its value decides what happens, so the runtime computes it"
        elif err.validator == "additionalProperties":
            allowed = sorted((err.schema.get("properties") or {}) if isinstance(err.schema, dict) else ())
            hint = f"allowed here: {', '.join(allowed)}" if allowed else None
        out.append(_error(f"catalogue: {where}: {err.message}", doc.span(path), hint))
    return out


def _check_type(text: str) -> str | None:
    """Why a catalogue type string is not a type, or None when it is one."""
    from cardc.model import TypeExpr
    from cardc.types import COMPOUND_TYPES, SCALAR_TYPES, parse_type_string

    try:
        t = parse_type_string(text)
    except (ValueError, IndexError):
        return f"`{text}` is not a type expression"
    todo = [t]
    while todo:
        cur = todo.pop()
        if cur.name in SCALAR_TYPES:
            if cur.args:
                return f"type `{cur.name}` takes no arguments"
        elif cur.name not in COMPOUND_TYPES:
            return f"unknown type `{cur.name}`"
        elif not cur.args:
            return f"type `{cur.name}` needs arguments"
        elif cur.name == "list":
            if len(cur.args) != 1 or not isinstance(cur.args[0], TypeExpr):
                return "type `list` takes exactly one element type"
            todo.append(cur.args[0])
        elif not all(isinstance(a, str) for a in cur.args):
            return f"the arguments of `{cur.name}` are plain names"
    return None


def _load_verb(where: Callable[[list[str | int]], Span], section: str, name: str, role: str, body: dict[str, Any],
               span: Span, diags: list[Diagnostic]) -> Verb:
    """The verb `name` of `section`, declared at `span`; `where(path)` is the place of the value at a path."""
    from cardc.diagnostics import did_you_mean
    from cardc.types import COMPOUND_TYPES, SCALAR_TYPES, parse_type_string

    params = []
    for i, p in enumerate(body.get("params") or []):
        why = _check_type(p["type"])
        if why is not None:
            known = [*SCALAR_TYPES, *COMPOUND_TYPES]
            word = p["type"].split("(")[0].strip()
            diags.append(_error(f"catalogue: {name}: parameter `{p['name']}`: {why}",
                                where([section, name, "params", i, "type"]),
                                did_you_mean(word, known) or f"known types: {', '.join(sorted(known))}"))
            continue
        params.append(Param(
            name=p["name"],
            type=parse_type_string(p["type"]),
            required="default" not in p,
            default=p.get("default"),
            doc=p.get("doc", ""),
            join=p.get("join", "and"),
        ))
    names = [p["name"] for p in body.get("params") or []]
    for i, pname in enumerate(names):
        if pname in names[:i]:
            diags.append(_error(f"catalogue: {name}: parameter `{pname}` is declared twice",
                                where([section, name, "params", i, "name"])))
    extra = {k: v for k, v in body.items() if k not in ("doc", "params", "text", "descriptive")}
    return Verb(name, role, body.get("doc", ""), tuple(params), dict(body.get("text") or {}), extra,
                str(body.get("descriptive") or ""), span)


def _verbs(data: dict[str, Any], span: Callable[[str, str], Span], where: Callable[[list[str | int]], Span],
           diags: list[Diagnostic]) -> dict[str, Verb]:
    """The verbs of the four sections of `data`; `span(section, name)` is where a verb is declared."""
    verbs: dict[str, Verb] = {}
    for section, role in _SECTIONS.items():
        for name, body in (data.get(section) or {}).items():
            if name in verbs:
                first = verbs[name].span
                diags.append(_error(f"catalogue: verb `{name}` is declared twice (also a {verbs[name].role} at line "
                                    f"{first.line}); verbs are unique across the four sections",
                                    span(section, name)))
                continue
            verbs[name] = _load_verb(where, section, name, role, body or {}, span(section, name), diags)
    return verbs


def _read_yaml(text: str, file: str) -> tuple[YamlDoc, dict[str, Verb]]:
    """The catalogue's YAML read and checked (syntax, duplicate keys, its schema, every verb); raises CatalogueError."""
    from cardc.yamlpos import YamlSyntaxError, load_yaml_doc  # PyYAML only when the catalogue is read

    sources = {file: text}
    try:
        doc = load_yaml_doc(text, file)
    except YamlSyntaxError as err:
        raise CatalogueError([_error(err.message, err.span)], sources) from None
    diags = [_error(f"catalogue: `{key}` is given twice in one mapping (YAML would keep only the last)", span)
             for key, span in doc.duplicate_keys()]
    diags += schema_diagnostics(doc)
    if diags:
        raise CatalogueError(diags, sources)
    verbs = _verbs(doc.data or {}, lambda section, name: doc.span([section, name]),
                   lambda path: doc.span(path, key=False), diags)
    if diags:
        raise CatalogueError(diags, sources)
    return doc, verbs


def _frozen(text: str, file: str) -> dict[str, Verb] | None:
    """The verbs of the catalogue `text` from its frozen form (`cardc.frozen`), or None when there is none for
    this text and schema (or the verbs give a diagnostic: the YAML is read to place it)."""
    from cardc import frozen

    try:
        schema_text = CATALOGUE_SCHEMA.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    found = frozen.load("catalogue", text, schema_text)
    if not isinstance(found, dict):
        return None
    spans: dict[str, dict[str, list[int]]] = found["spans"]
    diags: list[Diagnostic] = []
    verbs = _verbs(found["data"], lambda section, name: Span(file, *spans[section][name]),
                   lambda path: Span(file, 1, 1), diags)
    return None if diags else verbs


def freeze_catalogue(path: Path = CATALOGUE_PATH) -> str:
    """The frozen form of the catalogue at `path` (its data and where each verb is declared), as
    `python -m cardc.frozen` writes it; raises CatalogueError for a catalogue with problems."""
    from cardc import frozen

    text = path.read_text(encoding="utf-8")
    doc, verbs = _read_yaml(text, _display_name(path))
    spans = {section: {name: [(s := doc.span([section, name])).line, s.col, s.end_line, s.end_col]
                       for name in (doc.data.get(section) or {})}
             for section in _SECTIONS}
    return frozen.dumps((text, CATALOGUE_SCHEMA.read_text(encoding="utf-8")), {"data": doc.data, "spans": spans})


def load_catalogue(path: Path = CATALOGUE_PATH) -> Catalogue:
    """The catalogue at `path`, checked against its schema; raises CatalogueError with a diagnostic at the
    line of every problem (never a KeyError or a traceback from a malformed file)."""
    file = _display_name(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise CatalogueError([_error(f"cannot read the effect catalogue: {err}", Span(file, 1, 1))], {}) from None
    from cardc import diskcache

    key = diskcache.digest(diskcache.code_fingerprint(), file, text)
    bundled = path == CATALOGUE_PATH  # kept beside the compiler's bytecode, as its own files are
    cached = diskcache.load_beside_code("catalogue", key) if bundled else None
    if cached is None:
        cached = diskcache.load("catalogue", key)
    if isinstance(cached, Catalogue):
        return cached  # the same text, checked by the same code, from the same folder (spans name the file)
    verbs = _frozen(text, file)
    if verbs is None:
        verbs = _read_yaml(text, file)[1]
    catalogue = Catalogue(verbs, file, text)
    # only a catalogue without problems: errors are found afresh
    (diskcache.store_beside_code if bundled else diskcache.store)("catalogue", key, catalogue)
    return catalogue


@lru_cache(maxsize=1)
def default_catalogue() -> Catalogue:
    return load_catalogue(CATALOGUE_PATH)


pickle_by_constructor(globals())  # the checked catalogue is loaded from the disk cache: see cardc.records
