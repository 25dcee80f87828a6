"""The effect catalogue (`dsl/catalogue.yaml`): the single source of the effect vocabulary.

The checker, the JSON Schemas, the Python generator and the text generator all read it;
adding an effect verb is an entry there, not a compiler change.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from cardc.model import TypeExpr
from cardc.resources import DSL_DIR
from cardc.types import parse_type_string
from cardc.yamlload import load_yaml

CATALOGUE_PATH = DSL_DIR / "catalogue.yaml"
ROLES = ("trigger", "condition", "modifier", "action")
_SECTIONS = {"triggers": "trigger", "conditions": "condition", "modifiers": "modifier", "actions": "action"}


@dataclass(frozen=True, slots=True)
class Param:
    name: str
    type: TypeExpr
    required: bool
    default: Any
    doc: str


@dataclass(frozen=True, slots=True)
class Verb:
    name: str
    role: str
    doc: str
    params: tuple[Param, ...]
    text: dict[str, Any] = field(default_factory=dict)  # sentence templates per language
    extra: dict[str, Any] = field(default_factory=dict)  # backend-specific data (e.g. python)

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)


@dataclass(frozen=True, slots=True)
class Catalogue:
    verbs: dict[str, Verb]

    def of_role(self, role: str) -> list[Verb]:
        return [v for v in self.verbs.values() if v.role == role]

    def names(self, *roles: str) -> list[str]:
        return [v.name for v in self.verbs.values() if v.role in roles]


def _load_verb(name: str, role: str, body: dict[str, Any]) -> Verb:
    params = []
    for p in body.get("params") or []:
        params.append(Param(
            name=p["name"],
            type=parse_type_string(p["type"]),
            required="default" not in p,
            default=p.get("default"),
            doc=p.get("doc", ""),
        ))
    extra = {k: v for k, v in body.items() if k not in ("doc", "params", "text")}
    return Verb(name, role, body.get("doc", ""), tuple(params), dict(body.get("text") or {}), extra)


def load_catalogue(path: Path = CATALOGUE_PATH) -> Catalogue:
    data = load_yaml(path.read_text(encoding="utf-8")) or {}
    verbs: dict[str, Verb] = {}
    for section, role in _SECTIONS.items():
        for name, body in (data.get(section) or {}).items():
            if name in verbs:
                raise ValueError(f"catalogue verb {name!r} is declared twice")
            verbs[name] = _load_verb(name, role, body or {})
    return Catalogue(verbs)


@lru_cache(maxsize=1)
def default_catalogue() -> Catalogue:
    return load_catalogue()
