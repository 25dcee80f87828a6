"""What a template sees of a card: names, texts and attributes of one entity in one language.

Everything comes from the checked IR; a text missing in the language falls back to the game's
fallback language. Rules text comes from `compiler.textgen.entity_rules_text`.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from pathlib import Path

from cardc import syntax as s
from cardc.backends.print.icons import ICONS
from cardc.lexicon import default_lexicon
from cardc.model import Entity, Project
from cardc.textgen import entity_rules_text

PALETTES = [
    {"frame": "#7a2e2e", "accent": "#d9a441", "panel": "#fbf6ec", "ink": "#1d1a16", "back": "#4a1d1d"},
    {"frame": "#2e4a7a", "accent": "#9fc1e8", "panel": "#f3f6fb", "ink": "#14181f", "back": "#1d2f4a"},
    {"frame": "#2f6b3a", "accent": "#b8d98c", "panel": "#f3f8ef", "ink": "#141c15", "back": "#1e4426"},
    {"frame": "#5b3a7a", "accent": "#cfb3ea", "panel": "#f7f2fb", "ink": "#1a1420", "back": "#3a2550"},
    {"frame": "#6b5a2f", "accent": "#e6d59a", "panel": "#faf7ec", "ink": "#1c1a12", "back": "#443a1d"},
    {"frame": "#2f6b6b", "accent": "#9fdcdc", "panel": "#eff8f8", "ink": "#121c1c", "back": "#1d4444"},
]
SKIP_ATTRS = {"image", "note"}


@dataclass(frozen=True, slots=True)
class Face:
    """One card to print: the entity, its language and the template context."""

    entity: Entity
    lang: str
    context: dict[str, object]


class CardTexts:
    """Localizes names and values of one game's entities for one language."""

    def __init__(self, project: Project, game: str, lang: str) -> None:
        self.project = project
        self.game = project.games[game]
        self.lang = lang
        self.by_id = {e.id: e for e in project.entities_of(game) if not e.errata}
        self.lexicon = default_lexicon()
        self.children: dict[tuple[str, str], list[Entity]] = {}  # (module, parent id) -> nested entities
        for e in project.entities_of(game):
            if e.parent:
                self.children.setdefault((e.module, e.parent), []).append(e)

    def loc(self, v: s.LocalizedV | None) -> str:
        if v is None:
            return ""
        text = v.get(self.lang)
        if text is None:
            text = v.get(self.game.fallback)
        if text is None and v.entries:
            text = v.entries[0].text
        return text or ""

    def value(self, v: s.Value | None) -> str:
        """A value as it reads on a card."""
        match v:
            case None | s.UnknownV():
                return "?"
            case s.IntV(value=n):
                return str(n)
            case s.SignedV(value=n):
                return f"{n:+d}"
            case s.DecimalV(text=t):
                return t
            case s.RangeV(lo=lo, hi=hi):
                return f"{lo}–{hi}"
            case s.DiceV(count=c, sides=d):
                return f"{c if c != 1 else ''}d{d}"
            case s.StrV(value=t):
                return t
            case s.IconV(name=n):
                return f":{n}:"
            case s.BoolV(value=b):
                return "✓" if b else "–"
            case s.LocalizedV():
                return self.loc(v)
            case s.ListV(items=items):
                return ", ".join(self.value(i) for i in items)
            case s.CallV(name=n):
                ref = self.by_id.get(n)
                return self.loc(ref.name) if ref is not None else self.word(n)
            case s.ProvisionalV(value=inner):
                return self.value(inner)
        return "?"

    def word(self, name: str) -> str:
        """An identifier (attribute or enum value) as a word of the language, from the text lexicon."""
        for lang in (self.lang, self.game.fallback):
            found = self.lexicon.form(name, lang, None)
            if found:
                return found
        return name.replace("_", " ")

    def kind_name(self, kind: str) -> str:
        kd = self.project.kinds.get((self.game.id, kind))
        return self.loc(kd.name) if kd is not None and kd.name is not None else kind.replace("_", " ")

    def rules(self, e: Entity) -> list[str]:
        return [t for t in entity_rules_text(self.project, e, self.lang) if t]

    def context(self, e: Entity, w: float, h: float, bleed: float, shape: str) -> dict[str, object]:
        attrs: dict[str, str] = {}
        refs: dict[str, dict[str, str]] = {}
        stats = []
        for key in sorted(e.attrs):
            if key in SKIP_ATTRS:
                continue
            raw = e.attrs[key]
            inner = raw.value if isinstance(raw, s.ProvisionalV) else raw
            attrs[key] = self.value(raw)
            if isinstance(inner, s.CallV) and inner.name in self.by_id:
                ref = self.by_id[inner.name]
                refs[key] = {"id": ref.id, "kind": ref.kind, "name": self.loc(ref.name),
                             "kind_name": self.kind_name(ref.kind), "text": "\n".join(self.rules(ref))}
            if isinstance(inner, s.IntV | s.SignedV | s.DiceV | s.RangeV):
                stats.append({"name": key, "label": self.word(key), "value": attrs[key],
                              "icon": key if key in ICONS else ""})
        lines = self.rules(e)
        children = [{"id": c.id, "kind": c.kind, "kind_name": self.kind_name(c.kind), "name": self.loc(c.name),
                     "text": "\n".join(self.rules(c))} for c in self.children.get((e.module, e.id), [])]
        root_kind = e.kinds[-1] if e.kinds else e.kind
        palette = _palette(root_kind)
        deck = refs.get("deck")  # cards of one deck share a back; otherwise the kind's back
        back = ({"key": deck["id"], "label": deck["name"], "palette": _palette(deck["id"])} if deck else
                {"key": e.kind, "label": self.kind_name(e.kind), "palette": palette})
        image = e.attrs.get("image")
        return {
            "card": {
                "id": e.id, "kind": e.kind, "kinds": list(e.kinds), "kind_name": self.kind_name(e.kind),
                "name": self.loc(e.name), "text": "\n".join(lines), "lines": lines,
                "attrs": attrs, "refs": refs, "stats": stats, "children": children,
                "tags": list(e.tags), "copies": e.copies or 0, "module": e.module,
                "provisional": bool(e.provisional), "errata": e.errata,
                "image": image.value if isinstance(image, s.StrV) else "",
                "w": w, "h": h, "bleed": bleed, "shape": shape,
                "enums": {key: {"id": inner.name, "word": self.word(inner.name)}
                          for key, inner in _enum_values(e).items() if inner.name not in self.by_id},
            },
            "icons": sorted(ICONS),
            "game": {"id": self.game.id, "name": self.loc(self.game.name) or self.game.id},
            "lang": self.lang,
            "palette": palette,
            "back": back,
        }


def _palette(key: str) -> dict[str, str]:
    return PALETTES[zlib.crc32(key.encode()) % len(PALETTES)]


def _enum_values(e: Entity) -> dict[str, s.CallV]:
    """Attributes whose value is a bare name (an enum value or a reference)."""
    out = {}
    for key, raw in e.attrs.items():
        inner = raw.value if isinstance(raw, s.ProvisionalV) else raw
        if isinstance(inner, s.CallV) and inner.is_bare:
            out[key] = inner
    return out


def image_path(project: Project, e: Entity, rel: str) -> Path | None:
    """An entity's `image`, resolved next to its source file or in the content folder."""
    if not rel:
        return None
    for base in ((project.root / project.source_name(e.span.file)).parent, project.root):
        p = (base / rel).resolve()
        if p.is_file():
            return p
    return None
