"""What every reference page needs: the game in one language, names, links to entries, values as rich text.

Rich text is a list of parts (dicts) that both the HTML and the Markdown templates render:
`{"t": text}`, `{"t": text, "href": page, "anchor": id}` (a link), `{"t": text, "badge": cls}`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml
from cardc import syntax as s
from cardc.lower import ODDS_KINDS
from cardc.model import Entity, Game, Module, Project
from cardc.textgen import Mention, Rendered, TextGen

STRINGS_PATH = Path(__file__).resolve().parent / "strings.yaml"
SECTION_PAGES = ("index", "components", "variants", "errata", "glossary", "balance", "provisional", "gallery")

Rich = list[dict[str, Any]]


@lru_cache(maxsize=1)
def all_strings() -> dict[str, dict[str, str]]:
    return yaml.safe_load(STRINGS_PATH.read_text(encoding="utf-8"))


def anchor_of(e: Entity) -> str:
    """A stable anchor: `e-<id>`, or `errata-<module>-<id>` for a corrected version."""
    return f"errata-{e.module}-{e.id}" if e.errata else f"e-{e.id}"


def module_page(mod: Module) -> str:
    """The page (file stem) of a module: `base` or the expansion id (never one of the section pages)."""
    if mod.id == "base":
        return "base"
    return f"module-{mod.id}" if mod.id in SECTION_PAGES or mod.id == "base" else mod.id


@dataclass
class RefContext:
    project: Project
    game: Game
    lang: str
    build_dir: Path | None = None
    gen: TextGen = field(init=False)
    where: dict[str, tuple[str, str]] = field(init=False)  # entity key -> (page, anchor)
    entities: list[Entity] = field(init=False)

    _names: re.Pattern[str] | None = field(init=False, default=None)
    _by_name: dict[str, Entity] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        self.gen = TextGen(self.project)
        # the odds declarations label the balance tables; they are not components or rules to list
        self.entities = [e for e in self.project.entities_of(self.game.id) if e.kind not in ODDS_KINDS]
        self.where = {}
        modules = {m.id: m for m in self.project.modules_of(self.game.id)}
        for e in self.entities:
            mod = modules.get(e.module)
            self.where[e.key] = (module_page(mod) if mod else "base", anchor_of(e))

    # ---- words ------------------------------------------------------------------

    def s(self, key: str) -> str:
        strings = all_strings()
        return strings.get(self.lang, {}).get(key) or strings["en"].get(key, key)

    def loc(self, v: s.LocalizedV | None) -> str:
        if v is None:
            return ""
        return (v.get(self.lang) or v.get(self.game.fallback) or (v.entries[0].text if v.entries else ""))

    def name(self, e: Entity) -> str:
        return self.loc(e.name) or e.id

    def game_name(self) -> str:
        return self.loc(self.game.name) or self.game.id

    def module_name(self, mod: Module) -> str:
        if mod.id == "base":
            return self.s("base_game")
        return self.loc(mod.name) or mod.id

    def kind_name(self, kind: str) -> str:
        """The kind's own name in this language, else the lexicon's word for it, else the fallback name."""
        kd = self.project.kinds.get((self.game.id, kind))
        own = kd.name.get(self.lang) if kd is not None and kd.name is not None else None
        if own:
            return own
        forms = self.gen.lexicon.forms(kind, self.lang) or {}
        word = forms.get("kind") or forms.get("one")
        if word:
            return word[:1].upper() + word[1:]
        return (self.loc(kd.name) if kd is not None and kd.name is not None else "") or kind.replace("_", " ")

    def modules(self) -> list[Module]:
        """The base game first, then the expansions in declaration order."""
        mods = self.project.modules_of(self.game.id)
        return sorted(mods, key=lambda m: (m.id != "base", self.project.source_name(m.span.file), m.span.line))

    # ---- rich text --------------------------------------------------------------

    def link(self, e: Entity, text: str | None = None) -> dict[str, Any]:
        page, anchor = self.where[e.key]
        return {"t": text if text is not None else self.name(e), "href": page, "anchor": anchor}

    def ref(self, ident: str) -> Entity | None:
        return self.project.entity(self.game.id, ident)

    def rendered(self, r: Rendered) -> Rich:
        out: Rich = []
        for p in r.parts:
            if isinstance(p, Mention) and p.key in self.where:
                page, anchor = self.where[p.key]
                out.append({"t": p.text, "href": page, "anchor": anchor})
            elif isinstance(p, Mention):
                out.append({"t": p.text})
            else:
                out.extend(self.linked(p))
        return out

    def linked(self, text: str) -> Rich:
        """Plain text with every mention of an entity's name (in this language) linked to its entry."""
        if self._names is None:
            counts: dict[str, int] = {}
            targets = [e for e in self.entities if not e.errata]
            for e in targets:
                counts[self.name(e)] = counts.get(self.name(e), 0) + 1
            self._by_name = {self.name(e): e for e in targets if len(self.name(e)) >= 3 and counts[self.name(e)] == 1}
            names = sorted(self._by_name, key=lambda n: (-len(n), n))
            self._names = re.compile(r"(?<!\w)(" + "|".join(re.escape(n) for n in names) + r")(?!\w)") \
                if names else re.compile(r"(?!x)x")
        out: Rich = []
        pos = 0
        for m in self._names.finditer(text):
            if m.start() > pos:
                out.append({"t": text[pos:m.start()]})
            out.append(self.link(self._by_name[m.group(1)], m.group(1)))
            pos = m.end()
        if pos < len(text) or not out:
            out.append({"t": text[pos:]})
        return out

    def value(self, v: s.Value) -> Rich:
        """An attribute value as rich text: references link to their entries; doubt is marked."""
        if isinstance(v, s.ProvisionalV):
            return [*self.value(v.value), {"t": self.s("provisional_badge"), "badge": "provisional", "title": v.note}]
        if isinstance(v, s.UnknownV):
            return [{"t": "?"}, {"t": self.s("unknown_badge"), "badge": "unknown", "title": v.note or ""}]
        if isinstance(v, s.CallV) and v.args is None:
            target = self.ref(v.name)
            if target is not None:
                return [self.link(target)]
            word = self.gen.lexicon.form(v.name, self.lang, None)
            return [{"t": word or v.name.replace("_", " ")}]
        if isinstance(v, s.ListV):
            out: Rich = []
            for i, item in enumerate(v.items):
                if i:
                    out.append({"t": ", "})
                out.extend(self.value(item))
            return out
        if isinstance(v, s.LocalizedV):
            return [{"t": self.loc(v)}]
        if isinstance(v, s.IntV):
            return [{"t": str(v.value)}]
        if isinstance(v, s.SignedV):
            return [{"t": f"{v.value:+d}"}]
        if isinstance(v, s.RangeV):
            return [{"t": f"{v.lo}–{v.hi}" if v.lo != v.hi else str(v.lo)}]
        if isinstance(v, s.DiceV):
            return [{"t": f"{v.count if v.count != 1 else ''}d{v.sides}"}]
        if isinstance(v, s.BoolV):
            return [{"t": "✓" if v.value else "–"}]
        if isinstance(v, s.DecimalV):
            return [{"t": v.text}]
        if isinstance(v, s.StrV):
            return [{"t": v.value}]
        if isinstance(v, s.IconV):
            return [{"t": f":{v.name}:"}]
        return [{"t": "?"}]

    def attr_label(self, kind: str, attr: str) -> str:
        labels = all_strings().get("attributes", {})
        label = labels.get(self.lang, {}).get(attr) or labels.get("en", {}).get(attr) or attr.replace("_", " ")
        return label[:1].upper() + label[1:]
