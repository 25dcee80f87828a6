"""What every reference page needs: the game in one language, names, links to entries, values as rich text.

Rich text is a list of parts (dicts) that both the HTML and the Markdown templates render:
`{"t": text}`, `{"t": text, "href": page, "anchor": id}` (a link), `{"t": text, "badge": cls}`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from cardc import syntax as s
from cardc.irvisit import ValueVisitor
from cardc.lower import ODDS_KINDS
from cardc.model import Entity, Game, Module, Project
from cardc.syntax import LocalizedV, Value  # by name: the method `s` below hides the module in annotations
from cardc.textgen import Mention, Rendered, TextGen
from cardc.yamlload import load_yaml

STRINGS_PATH = Path(__file__).resolve().parent / "strings.yaml"
SECTION_PAGES = ("index", "components", "variants", "errata", "glossary", "balance", "provisional", "gallery")

Rich = list[dict[str, Any]]


@lru_cache(maxsize=1)
def all_strings() -> dict[str, dict[str, Any]]:
    strings: dict[str, dict[str, Any]] = load_yaml(STRINGS_PATH.read_text(encoding="utf-8"))
    return strings


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
    designer: bool = False  # show designer notes and source sections (`cardc build --designer`)
    gen: TextGen = field(init=False)
    where: dict[str, tuple[str, str]] = field(init=False)  # entity key -> (page, anchor)
    entities: list[Entity] = field(init=False)

    # first word -> the lengths of the names starting with it (longest first) and the names themselves
    _names: NameIndex | None = field(init=False, default=None)
    _by_name: dict[str, Entity] = field(init=False, default_factory=dict)
    # id(entity) -> its effects in words, in `lang`: the pages and the gallery both show them
    _effect_text: dict[int, list[Rendered]] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        self.gen = TextGen(self.project)
        # the odds declarations label the balance tables; they are not components or rules to list
        self.entities = [e for e in self.project.entities_of(self.game.id) if e.kind not in ODDS_KINDS]
        self.where = {}
        modules = {m.id: m for m in self.project.modules_of(self.game.id)}
        for e in self.entities:
            mod = modules.get(e.module)
            self.where[e.key] = (module_page(mod) if mod else "base", anchor_of(e))

    # ---- rules text -------------------------------------------------------------

    def effect_text(self, e: Entity) -> list[Rendered]:
        """`gen.generated(e, lang)`, made once per entity (the pages, the gallery and its search all use it;
        generating it three times was a fifth of the reference's time)."""
        found = self._effect_text.get(id(e))
        if found is None:
            found = self._effect_text[id(e)] = self.gen.generated(e, self.lang)
        return found

    def entity_text(self, e: Entity) -> list[Rendered]:
        """`gen.entity(e, lang)`: the hand-written text in `lang`, else the effects in words (shared with
        `effect_text`), else what `gen.entity` falls back to."""
        if e.effects and not (e.text is not None and e.text.get(self.lang)):
            return self.effect_text(e)
        return self.gen.entity(e, self.lang)

    # ---- words ------------------------------------------------------------------

    def s(self, key: str) -> str:
        strings = all_strings()
        return str(strings.get(self.lang, {}).get(key) or strings["en"].get(key, key))

    def loc(self, v: LocalizedV | None) -> str:
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
            self._names = name_index(self._by_name)
        out: Rich = []
        pos = 0
        for at, end in mentions(text, self._names):
            if at > pos:
                out.append({"t": text[pos:at]})
            out.append(self.link(self._by_name[text[at:end]], text[at:end]))
            pos = end
        if pos < len(text) or not out:
            out.append({"t": text[pos:]})
        return out

    def value(self, v: Value, attr: str | None = None) -> Rich:
        """An attribute value as rich text: references link to their entries; an enum value or a kind reads
        in this language (the lexicon's `<attr>.<value>`, then `<value>`, then the kind's name); doubt is marked."""
        return _RichValue(self, attr).value(v)

    def enum_label(self, value: str, attr: str | None = None) -> str:
        """The word for an enum value (or a kind named as a value) in this language; the bare id if none."""
        lexicon = self.gen.lexicon
        word = (lexicon.form(f"{attr}.{value}", self.lang, None) if attr else None) \
            or lexicon.form(value, self.lang, None)
        if word:
            return word
        if self.project.kinds.get((self.game.id, value)) is not None:
            return self.kind_name(value)
        return value.replace("_", " ")

    def tag_name(self, tag: str) -> str:
        """A tag in the page's language: a word of the lexicon, else the name of the entity or expansion it
        names (a tag naming an expansion reads as that expansion's name), else the identifier in words."""
        word = self.gen.lexicon.form(tag, self.lang, None)
        if word:
            return word
        e = self.ref(tag)
        if e is not None:
            return self.name(e)
        for mod in self.modules():
            if mod.id == tag:
                return self.module_name(mod)
        return tag.replace("_", " ")

    def provisional_label(self, e: Entity, attr: str) -> str:
        """What a provisional note is about, in the page's language: an attribute's label, the copies, the name,
        the card text, or a number in the effects (`verb(param)`)."""
        if "(" in attr:
            return self.s("provisional_effect")
        if attr in ("copies", "name", "text"):
            return self.s({"copies": "count", "name": "name", "text": "card_text_short"}[attr])
        return self.attr_label(e.kind, attr)

    def attr_label(self, kind: str, attr: str) -> str:
        kd = self.project.kinds.get((self.game.id, kind))
        adef = kd.attrs.get(attr) if kd is not None else None
        if adef is not None and adef.label is not None:  # the label the kind declares for printed cards
            text = adef.label.get(self.lang) or adef.label.get(self.game.fallback)
            if text:
                return text
        labels = all_strings().get("attributes", {})
        label = labels.get(self.lang, {}).get(attr) or labels.get("en", {}).get(attr) or attr.replace("_", " ")
        return label[:1].upper() + label[1:]


class _RichValue(ValueVisitor[Rich]):
    """A value as rich text on a page of `ctx`; `attr` names the attribute it is the value of, if any."""

    def __init__(self, ctx: RefContext, attr: str | None) -> None:
        self.ctx, self.attr = ctx, attr

    def visit_provisional(self, v: s.ProvisionalV) -> Rich:
        ctx = self.ctx  # the note says why, in English, for designers (`--designer`)
        return [*self.value(v.value), {"t": ctx.s("provisional_badge"), "badge": "provisional",
                                       "title": v.note if ctx.designer else ""}]

    def visit_unknown(self, v: s.UnknownV) -> Rich:
        ctx = self.ctx
        return [{"t": "?"}, {"t": ctx.s("unknown_badge"), "badge": "unknown",
                             "title": (v.note or "") if ctx.designer else ""}]

    def visit_call(self, v: s.CallV) -> Rich:
        ctx, attr = self.ctx, self.attr
        if v.args is not None:
            return [{"t": "?"}]
        own = ctx.gen.lexicon.form(f"{attr}.{v.name}", ctx.lang, None) if attr else None
        if own:  # an enum value with its own word (`used_in: fight` is not the rule `fight`)
            return [{"t": own}]
        target = ctx.ref(v.name)
        if target is not None:
            return [ctx.link(target)]
        return [{"t": ctx.enum_label(v.name, attr)}]

    def visit_list(self, v: s.ListV) -> Rich:
        out: Rich = []
        for i, item in enumerate(v.items):
            if i:
                out.append({"t": ", "})
            out.extend(self.value(item))
        return out

    def visit_localized(self, v: s.LocalizedV) -> Rich:
        return [{"t": self.ctx.loc(v)}]

    def visit_int(self, v: s.IntV) -> Rich:
        return [{"t": str(v.value)}]

    def visit_signed(self, v: s.SignedV) -> Rich:
        return [{"t": f"{v.value:+d}"}]

    def visit_range(self, v: s.RangeV) -> Rich:
        return [{"t": f"{v.lo}–{v.hi}" if v.lo != v.hi else str(v.lo)}]

    def visit_dice(self, v: s.DiceV) -> Rich:
        return [{"t": f"{v.count if v.count != 1 else ''}d{v.sides}"}]

    def visit_bool(self, v: s.BoolV) -> Rich:
        return [{"t": "✓" if v.value else "–"}]

    def visit_decimal(self, v: s.DecimalV) -> Rich:
        return [{"t": self.ctx.gen.lexicon.decimal(v.text, self.ctx.lang)}]

    def visit_str(self, v: s.StrV) -> Rich:
        return [{"t": v.value}]

    def visit_icon(self, v: s.IconV) -> Rich:
        return [{"t": f":{v.name}:"}]


_WORD = re.compile(r"\w+")
_NONE: tuple[list[int], set[str]] = ([], set())
NameIndex = dict[str, tuple[list[int], set[str]]]


def name_index(names: Iterable[str]) -> NameIndex:
    """Names by their first word, each word with the lengths of its names (longest first) and the names.

    A text's words are then looked up one by one, instead of a regex trying every name at every position
    (quadratic in the number of entities); among the names sharing a first word (`Shadow 1` ... `Shadow
    9999`) only one per length can be at a position (the text's slice of that length, found in a set), so a
    common first word costs its distinct lengths, not its names."""
    grouped: dict[str, tuple[set[int], set[str]]] = {}
    for n in names:
        first = _WORD.match(n)
        lengths, found = grouped.setdefault(first.group() if first else "", (set(), set()))
        lengths.add(len(n))
        found.add(n)
    return {w: (sorted(lengths, reverse=True), found) for w, (lengths, found) in grouped.items()}


def mentions(text: str, index: NameIndex) -> Iterator[tuple[int, int]]:
    """Where names of the index stand in the text as whole words (start, end), left to right, the longest
    name at each place, none overlapping."""
    pos = 0
    for word in _WORD.finditer(text):
        at = word.start()
        if at < pos or (at > 0 and _is_word(text[at - 1])):
            continue
        lengths, found = index.get(word.group(), _NONE)
        for size in lengths:
            end = at + size
            if end > len(text):  # a slice past the end would be shorter than the name and match another
                continue
            if text[at:end] in found and not (end < len(text) and _is_word(text[end])):
                yield at, end
                pos = end
                break


def _is_word(ch: str) -> bool:
    return ch.isalnum() or ch == "_"
