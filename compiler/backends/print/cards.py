"""What a template sees of a card: names, texts and attributes of one entity in one language.

Everything comes from the checked IR; a text missing in the language falls back to the game's
fallback language. Rules text comes from `compiler.textgen.entity_rules_text`.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from cardc import syntax as s
from cardc.backends.print.icons import ICONS, register_svg
from cardc.lexicon import default_lexicon
from cardc.model import AttrDef, Entity, Project
from cardc.textgen import TextGen

PALETTES = [
    {"frame": "#7a2e2e", "accent": "#d9a441", "panel": "#fbf6ec", "ink": "#1d1a16", "back": "#4a1d1d"},
    {"frame": "#2e4a7a", "accent": "#9fc1e8", "panel": "#f3f6fb", "ink": "#14181f", "back": "#1d2f4a"},
    {"frame": "#2f6b3a", "accent": "#b8d98c", "panel": "#f3f8ef", "ink": "#141c15", "back": "#1e4426"},
    {"frame": "#5b3a7a", "accent": "#cfb3ea", "panel": "#f7f2fb", "ink": "#1a1420", "back": "#3a2550"},
    {"frame": "#6b5a2f", "accent": "#e6d59a", "panel": "#faf7ec", "ink": "#1c1a12", "back": "#443a1d"},
    {"frame": "#2f6b6b", "accent": "#9fdcdc", "panel": "#eff8f8", "ink": "#121c1c", "back": "#1d4444"},
]
SKIP_ATTRS = {"image", "note"}
PROVISIONAL_MARK = "≈"  # before a provisional number, after a provisional name or text; the sheet has a legend


def fallback_mark(lang: str) -> str:
    """What follows a text printed in the fallback language `lang`: `[EN]`."""
    return f"[{lang.upper()}]"


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
        self.gen = TextGen(project, lexicon=self.lexicon)  # one generator for every card of the language
        self._rules: dict[str, list[str]] = {}
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

    def loc_marked(self, v: s.LocalizedV | None, what: str, found: list[tuple[str, str]]) -> str:
        """`loc`, with the fallback mark after a text that is not in this language (noted in `found`)."""
        text = self.loc(v)
        if text and v is not None and v.get(self.lang) is None:
            lang = self.game.fallback if v.get(self.game.fallback) is not None else v.entries[0].lang
            found.append((what, lang))
            return f"{text} {fallback_mark(lang)}"
        return text

    def rules_marked(self, e: Entity, what: str, found: list[tuple[str, str]]) -> list[str]:
        """`rules`, marked if it is a hand-written text from the fallback language (no effects to render)."""
        lines = self.rules(e)
        if (lines and not e.effects and e.text is not None and e.text.get(self.lang) is None) or (
                lines and e.effects and (e.text is None or e.text.get(self.lang) is None)
                and self.lang not in self.lexicon.grammar):
            lang = self.game.fallback
            found.append((what, lang))
            lines[-1] = f"{lines[-1]} {fallback_mark(lang)}"
        return lines

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
                return self.lexicon.decimal(t, self.lang)
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

    def kind_name(self, kind: str, found: list[tuple[str, str]] | None = None) -> str:
        kd = self.project.kinds.get((self.game.id, kind))
        if kd is None or kd.name is None:
            return kind.replace("_", " ")
        return self.loc_marked(kd.name, f"kind name `{kind}`", found) if found is not None else self.loc(kd.name)

    def rules(self, e: Entity) -> list[str]:
        """The entity's rules text, one paragraph per sentence (memoized: refs repeat, e.g. a shared reward)."""
        cached = self._rules.get(e.key)
        if cached is None:
            cached = self._rules[e.key] = [t for t in (r.plain for r in self.gen.entity(e, self.lang)) if t]
        return list(cached)

    def context(self, e: Entity, w: float, h: float, bleed: float, shape: str) -> dict[str, object]:
        """What the templates see of `e`. Texts from the fallback language carry `[EN]`, provisional values `≈`;
        `marks` lists both for the sheet's legend and the build's report."""
        fallbacks: list[tuple[str, str]] = []
        provisional_paths = {path for path, _note in e.provisional}
        attrs: dict[str, str] = {}
        refs: dict[str, dict[str, str]] = {}
        stats: list[dict[str, str]] = []
        marked = False
        for key in sorted(e.attrs):
            if key in SKIP_ATTRS:
                continue
            raw = e.attrs[key]
            inner = raw.value if isinstance(raw, s.ProvisionalV) else raw
            attrs[key] = self.value(raw)
            if isinstance(inner, s.CallV) and inner.name in self.by_id:
                ref = self.by_id[inner.name]
                refs[key] = {"id": ref.id, "kind": ref.kind,
                             "name": self.loc_marked(ref.name, f"{key} name", fallbacks),
                             "kind_name": self.kind_name(ref.kind, fallbacks),
                             "text": "\n".join(self.rules_marked(ref, f"{key} text", fallbacks)),
                             "stats": self.stats(ref, {}, f"{key} ", fallbacks)[0]}  # type: ignore[dict-item]
            if isinstance(raw, s.ProvisionalV) or key in provisional_paths:
                attrs[key] = f"{PROVISIONAL_MARK}{attrs[key]}"
        stats, stat_marked = self.stats(e, attrs, "", fallbacks)
        marked |= stat_marked
        name = self.loc_marked(e.name, "name", fallbacks)
        if "name" in provisional_paths:
            name, marked = f"{name} {PROVISIONAL_MARK}", True
        lines = self.rules_marked(e, "text", fallbacks)
        if "text" in provisional_paths and lines:
            lines[-1], marked = f"{lines[-1]} {PROVISIONAL_MARK}", True
        children = [{"id": c.id, "kind": c.kind, "kind_name": self.kind_name(c.kind, fallbacks),
                     "name": self.loc_marked(c.name, f"{c.id} name", fallbacks),
                     "text": "\n".join(self.rules_marked(c, f"{c.id} text", fallbacks))}
                    for c in self.children.get((e.module, e.id), [])]
        root_kind = e.kinds[-1] if e.kinds else e.kind
        palette = _palette(root_kind)
        deck = refs.get("deck")  # cards of one deck share a back; otherwise the kind's back
        back = ({"key": deck["id"], "label": deck["name"], "palette": _palette(deck["id"])} if deck else
                {"key": e.kind, "label": self.kind_name(e.kind, fallbacks), "palette": palette})
        image = e.attrs.get("image")
        return {
            "card": {
                "id": e.id, "kind": e.kind, "kinds": list(e.kinds), "kind_name": self.kind_name(e.kind, fallbacks),
                "name": name, "text": "\n".join(lines), "lines": lines,
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
            "marks": {"provisional": marked, "fallbacks": fallbacks},
        }

    def stats(self, e: Entity, attrs: dict[str, str], prefix: str,
              fallbacks: list[tuple[str, str]]) -> tuple[list[dict[str, str]], bool]:
        """The numeric attributes of `e` as printed: label, value (marked if provisional) and icon."""
        out = []
        marked = False
        provisional_paths = {path for path, _note in e.provisional}
        kd = self.project.kinds.get((e.game, e.kind))
        order = {name: i for i, name in enumerate(kd.attrs)} if kd is not None else {}
        for key in sorted(e.attrs, key=lambda k: (order.get(k, len(order)), k)):  # as the kind declares them
            raw = e.attrs[key]
            inner = raw.value if isinstance(raw, s.ProvisionalV) else raw
            if key in SKIP_ATTRS or not isinstance(inner, s.IntV | s.SignedV | s.DiceV | s.RangeV):
                continue
            value = attrs.get(key) or self.value(raw)
            if (isinstance(raw, s.ProvisionalV) or key in provisional_paths) and not value.startswith(PROVISIONAL_MARK):
                value = f"{PROVISIONAL_MARK}{value}"
            marked |= value.startswith(PROVISIONAL_MARK)
            out.append({"name": key, "label": self.attr_label(e, key, fallbacks), "value": value,
                        "icon": self.attr_icon(e, key)})
        return out, marked

    def attr_def(self, e: Entity, key: str) -> AttrDef | None:
        kd = self.project.kinds.get((e.game, e.kind))
        return kd.attrs.get(key) if kd is not None else None

    def attr_label(self, e: Entity, key: str, fallbacks: list[tuple[str, str]] | None = None) -> str:
        """The attribute's label as its kind declares it (`label:`) in this language, else a lexicon word."""
        adef = self.attr_def(e, key)
        if adef is not None and adef.label is not None:
            label = self.loc_marked(adef.label, f"{key} label", fallbacks) if fallbacks is not None else \
                self.loc(adef.label)
        else:
            label = self.word(key)
        return label[:1].upper() + label[1:]

    def attr_icon(self, e: Entity, key: str) -> str:
        """The icon the kind declares for the attribute (`icon:`), as a name usable in `:name:`; else ''."""
        adef = self.attr_def(e, key)
        if adef is None or not adef.icon:
            return ""
        if adef.icon.startswith(":"):
            return adef.icon.strip(":")
        return register_svg(Path(adef.span.file).parent / adef.icon, self.project.root)


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
    root = project.root.resolve()
    for base in ((project.root / project.source_name(e.span.file)).parent, project.root):
        try:
            p = (base / rel).resolve()  # symlinks resolved: what is read must be inside the content folder
            if p.is_relative_to(root) and p.is_file():
                return p if _usable_image(p) else None
        except (OSError, ValueError):  # a name too long or with a NUL byte: no such image
            return None
    return None


@lru_cache(maxsize=1024)
def _usable_image(path: Path) -> bool:
    """Only images the checker would accept are drawn (a template may name any file)."""
    from cardc.types import IMAGE_SUFFIXES, image_problem

    return path.suffix.lower() in IMAGE_SUFFIXES and image_problem(path) is None
