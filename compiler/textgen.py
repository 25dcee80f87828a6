"""Rules text from effects: every effect of an entity as a sentence in each language.

The card sheets and the rules reference print these sentences, so what is printed is generated
from the same effect tree that the rules engine runs. Each catalogue verb carries one sentence
template per language (`text:` in dsl/catalogue.yaml); the words they use, with their plural,
case and gender forms, are in the lexicon (compiler/lexicon/words.yaml).

Template placeholders:

    {amount}            the argument: a number, +1, "3 or 4", an entity's name, an enum value's word
    {amount:life}       the number and the noun in the form that agrees with it: 1 život, 2 životy, 5 životů
    {amount:=resource}  the same, with the noun the enum argument `resource` names (2 zlaťáky, 5 zkušeností)
    {dice:die@ins}      the same, in a case the lexicon lists (`ins.one`, `ins.few`, ...)
    {stat@gen}          the form `gen` of the word an enum value stands for
    {count?one=je|few=jsou|many=je}   a choice by the number's plural category (`#` in a choice: the number)
    {item?m=odhozen|f=odhozena|n=odhozeno|p=odhozeny}   a choice by the gender of the named entity or
                        word (p: a plural name; a missing choice falls back to m)
    {self}              the name of the entity the effect belongs to
    {you?m=...|f=...}   a choice by the gender of the hero the text speaks to ("jsi prokletý / prokletá")

Action templates may give two forms, `{do: imperative, may: infinitive}`, since "hoď" and "můžeš hodit"
differ in most languages; a plain string serves both. A condition may give `{do: ..., not: ...}`, its
negative sentence ("nemáš 1 život"), used for `not` instead of "it is not the case that ...".
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from cardc import syntax as s
from cardc.catalogue import Catalogue, Verb, default_catalogue
from cardc.irvisit import ValueVisitor, Visitor
from cardc.lexicon import Lexicon, default_lexicon
from cardc.model import (
    AndCond,
    Choose,
    Condition,
    Do,
    Effect,
    Entity,
    If,
    Invocation,
    May,
    NotCond,
    OrCond,
    Project,
    Statement,
    TypeExpr,
)
from cardc.plurals import plural_category

OPEN_RANGE = s.OPEN_RANGE  # a range reaching this high reads "5 or more"
_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")
_SPEC = re.compile(r"^(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
                   r"(?::(?P<word>=?[A-Za-z_][A-Za-z0-9_.]*))?(?:@(?P<key>[A-Za-z_]+))?$")
GENDERS = ("m", "f", "n", "p")  # p: a plural name ("Dýky")


@dataclass(frozen=True, slots=True)
class Mention:
    """A piece of text that names an entity: the reference links it to the entity's entry."""

    key: str
    text: str


Part = str | Mention


@dataclass
class Rendered:
    """One rendered piece of text, as parts (plain text and entity mentions)."""

    parts: list[Part] = field(default_factory=list)

    def add(self, *parts: Part | Rendered) -> Rendered:
        for p in parts:
            if isinstance(p, Rendered):
                self.parts.extend(p.parts)
            elif p:
                self.parts.append(p)
        return self

    @property
    def plain(self) -> str:
        return "".join(p if isinstance(p, str) else p.text for p in self.parts)

    def capitalized(self) -> Rendered:
        """The same text with its first letter in upper case."""
        out = list(self.parts)
        for i, p in enumerate(out):
            if isinstance(p, str) and p:
                out[i] = p[:1].upper() + p[1:]
                break
            if isinstance(p, Mention) and p.text:
                break
        return Rendered(out)


# Sentences rendered per project (held, so that its id names it while it is here): id(entity), id(effect),
# language -> the sentence and the gaps met. A build renders them before its backends fork (`warm`), and each
# backend process inherits them.
_RENDERED: dict[int, tuple[Project, dict[tuple[int, int, str], tuple[Rendered, tuple[str, ...]]]]] = {}


def warm(project: Project) -> int:
    """Render every effect of every entity in each language its game publishes (what the faces, rulebooks,
    reference and export print); the number of sentences."""
    gen = TextGen(project)
    count = 0
    for game in project.games.values():
        entities = [e for e in project.entities_of(game.id) if e.effects]
        for lang in game.publish or game.languages:
            for e in entities:
                count += len(gen.generated(e, lang))
    return count


@dataclass
class TextGen:
    """Renders the effects of one project; `gaps` collects every missing template or word it met."""

    project: Project
    catalogue: Catalogue = field(default_factory=default_catalogue)
    lexicon: Lexicon = field(default_factory=default_lexicon)
    gaps: list[str] = field(default_factory=list)
    _current: Invocation | None = field(default=None, repr=False)
    _trigger: str | None = field(default=None, repr=False)  # the trigger of the effect being rendered

    # ---- entities and effects -------------------------------------------------

    def entity(self, entity: Entity, lang: str) -> list[Rendered]:
        """The entity's rules text: its hand-written text in `lang` if it has one, else one sentence per
        effect; a hand-written text in the fallback language only when there are no effects to render."""
        if entity.text is not None and entity.text.get(lang):
            return [Rendered([entity.text.get(lang) or ""])]
        if entity.effects:
            return [self.effect(entity, e, lang) for e in entity.effects]
        if entity.text is not None:
            text = entity.text.get(self._fallback(entity)) or next((x.text for x in entity.text.entries), "")
            return [Rendered([text])] if text else []
        return []

    def generated(self, entity: Entity, lang: str) -> list[Rendered]:
        """The sentences generated from the effects, ignoring any hand-written text."""
        return [self.effect(entity, e, lang) for e in entity.effects]

    def effect(self, entity: Entity, effect: Effect, lang: str) -> Rendered:
        """The effect as one sentence in `lang`. Remembered per project (`_rendered`): the faces, the rulebooks,
        the reference and the export each render every effect in every language."""
        memo = self._rendered()
        if memo is None:
            return self._effect(entity, effect, lang)
        key = (id(entity), id(effect), lang)
        known = memo.get(key)
        if known is None:
            before = len(self.gaps)
            out = self._effect(entity, effect, lang)
            known = memo[key] = (out, tuple(self.gaps[before:]))
        self.gaps.extend(known[1])  # the gaps it met, as if rendered again
        return Rendered(list(known[0].parts))  # a copy: `add` appends to a Rendered

    def _rendered(self) -> dict[tuple[int, int, str], tuple[Rendered, tuple[str, ...]]] | None:
        """The sentences this project's effects rendered to, with the shipped catalogue and lexicon (another
        catalogue or lexicon, as tests give, renders afresh)."""
        if self.catalogue is not default_catalogue() or self.lexicon is not default_lexicon():
            return None
        known = _RENDERED.get(id(self.project))
        if known is None or known[0] is not self.project:
            while len(_RENDERED) >= 2:  # a build has one project; the language server and tests make many
                del _RENDERED[next(iter(_RENDERED))]
            known = _RENDERED[id(self.project)] = (self.project, {})
        return known[1]

    def _effect(self, entity: Entity, effect: Effect, lang: str) -> Rendered:
        if lang not in self.lexicon.grammar:  # a language the lexicon does not know: the fallback language
            self.gaps.append(f"grammar: no language {lang}")
            lang = self._fallback(entity) if self._fallback(entity) in self.lexicon.grammar else "en"
        trigger = self.invocation(entity, effect.trigger, lang)
        self._trigger = effect.trigger.verb
        try:
            body = self.body(entity, effect.body, lang)
        finally:
            self._trigger = None
        if self.lexicon.flag(lang, "capitalize_body"):
            body = body.capitalized()
        if effect.condition is None:
            out = self._pattern(lang, "effect", trigger=trigger, body=body)
        else:
            out = self._pattern(lang, "effect_if", trigger=trigger, cond=self.clause(entity, effect.condition, lang),
                                body=body)
        return self._fixups(out.capitalized(), lang)

    def _fixups(self, text: Rendered, lang: str) -> Rendered:
        """Apply the language's fixed replacements (elisions) to the plain parts of a finished sentence."""
        pairs = self.lexicon.grammar.get(lang, {}).get("fixups") or []
        if not pairs:
            return text
        merged: list[Part] = []
        for p in text.parts:
            if isinstance(p, str) and merged and isinstance(merged[-1], str):
                merged[-1] += p
            else:
                merged.append(p)
        out: list[Part] = []
        for p in merged:
            if isinstance(p, str):
                for old, new in pairs:
                    p = p.replace(old, new)
            out.append(p)
        return Rendered(out)

    def clause(self, entity: Entity, cond: Condition, lang: str) -> Rendered:
        """`if X`; for a negated condition `if not-X` when the verb has a negative sentence, else `unless X`."""
        if isinstance(cond, NotCond) and self._negative(cond.cond, lang) is None:
            return self._pattern(lang, "unless", c=self.condition(entity, cond.cond, lang))
        return self._pattern(lang, "if", c=self.condition(entity, cond, lang))

    def condition(self, entity: Entity, cond: Condition, lang: str) -> Rendered:
        return _Sentence(self, entity, lang).condition(cond)

    def body(self, entity: Entity, body: tuple[Statement, ...], lang: str) -> Rendered:
        items = [self.statement(entity, st, lang) for st in body]
        if not items:
            return self._pattern(lang, "nothing")
        out = Rendered().add(items[0])
        for i, item in enumerate(items[1:], start=1):
            sep = "list_last" if i == len(items) - 1 else "list_sep"
            out.add(self.lexicon.pattern(lang, sep) or ", ", item)
        return out

    def statement(self, entity: Entity, st: Statement, lang: str) -> Rendered:
        return _Sentence(self, entity, lang).statement(st)

    # ---- one verb ---------------------------------------------------------------

    def invocation(self, entity: Entity, inv: Invocation, lang: str, form: str = "do") -> Rendered:
        verb = self.catalogue.verbs.get(inv.verb)
        if verb is None:
            self.gaps.append(f"unknown verb {inv.verb}")
            return Rendered([inv.verb])
        template = self._prevented(lang, form) if verb.name == "prevent" else None
        template = template or self.template(verb, lang, form)
        if template is None:
            self.gaps.append(f"{verb.name}: no template in {lang}")
            template = (self.template(verb, self._fallback(entity), form) or self.template(verb, "en", form)
                        or verb.doc.rstrip("."))
        return self.fill(entity, verb, inv, template, lang)

    def _prevented(self, lang: str, form: str) -> str | None:
        """`prevent` in words that name what does not happen: the `prevented` text of the effect's trigger."""
        trigger = self.catalogue.verbs.get(self._trigger or "")
        texts = trigger.extra.get("prevented") if trigger is not None else None
        t = texts.get(lang) if isinstance(texts, dict) else None
        if isinstance(t, dict):
            value = t.get(form) or t.get("do")
            return str(value) if value is not None else None
        return str(t) if t is not None else None

    def _negative(self, cond: Condition, lang: str) -> tuple[Verb, str] | None:
        """The verb's own negative sentence (`not:` in its template), if the condition is one verb that has it."""
        if not isinstance(cond, Invocation):
            return None
        verb = self.catalogue.verbs.get(cond.verb)
        t = verb.text.get(lang) if verb is not None else None
        if verb is None or not isinstance(t, dict) or not t.get("not"):
            return None
        return verb, str(t["not"])

    @staticmethod
    def template(verb: Verb, lang: str, form: str = "do") -> str | None:
        t = verb.text.get(lang)
        if isinstance(t, dict):
            value = t.get(form) or t.get("do")
            return str(value) if value is not None else None
        return str(t) if t is not None else None

    def fill(self, entity: Entity, verb: Verb, inv: Invocation, template: str, lang: str) -> Rendered:
        self._current = inv
        out = Rendered()
        for literal, spec in split_template(template):
            out.add(literal)
            if spec is not None:
                out.add(self.placeholder(entity, verb, inv, spec, lang))
        return out

    def placeholder(self, entity: Entity, verb: Verb, inv: Invocation, spec: str, lang: str) -> Rendered:
        if "?" in spec:
            name, _, choices = spec.partition("?")
            chosen = self._choose(entity, verb, inv, name.strip(), choices, lang)
            return self.fill(entity, verb, inv, chosen, lang)
        m = _SPEC.match(spec.strip())
        if m is None:
            self.gaps.append(f"{verb.name}: bad placeholder {{{spec}}} in {lang}")
            return Rendered([spec])
        name, word, key = m.group("name"), m.group("word"), m.group("key")
        if name == "self":
            return Rendered([self._mention(entity, lang)])
        value = inv.arg(name)
        param = verb.param(name)
        if value is None or param is None:
            self.gaps.append(f"{verb.name}: no parameter {name} for {{{spec}}} in {lang}")
            return Rendered([name])
        return self.value(entity, verb, name, _unwrap(value), lang, word=word, key=key)

    def value(self, entity: Entity, verb: Verb, pname: str, v: s.Value, lang: str,
              word: str | None = None, key: str | None = None) -> Rendered:
        """One argument as words."""
        if word is not None and word.startswith("="):
            other = self._current.arg(word[1:]) if self._current else None
            inv_value = _unwrap(other) if other is not None else None
            word = next((w for w in _word_ids(verb.name, word[1:], inv_value.name) if w in self.lexicon.words),
                        inv_value.name) if isinstance(inv_value, s.CallV) else word[1:]
        if word is not None:
            n = _number(v)
            if (isinstance(v, s.RangeV) and v.hi > v.lo + 1 and self.lexicon.flag(lang, "range_many")
                    and v.hi < OPEN_RANGE):
                n = 5
            if isinstance(v, s.UnknownV):
                return Rendered([f"? {self.lexicon.counted(word, lang, 5, key) or word}"])
            if n is None:
                self.gaps.append(f"{verb.name}: {{{pname}:{word}}} needs a number")
                return _ValueWords(self, entity, verb, pname, lang, None).value(v)
            noun = self.lexicon.counted(word, lang, n, key)
            if noun is None:
                self.gaps.append(f"word {word}: no {lang} form")
                noun = word
            counted = self.lexicon.pattern(lang, "range_open_counted")
            if counted and isinstance(v, s.RangeV) and v.hi >= OPEN_RANGE and v.lo != v.hi:
                return Rendered([counted.replace("{lo}", str(v.lo)).replace("{noun}", noun)])
            return Rendered([f"{self.number_text(v, lang)} {noun}"])
        return _ValueWords(self, entity, verb, pname, lang, key).value(v)

    def number_text(self, v: s.Value, lang: str) -> str:
        if isinstance(v, s.SignedV):
            return f"+{v.value}" if v.value >= 0 else f"-{-v.value}"
        if isinstance(v, s.IntV):
            return str(v.value)
        if isinstance(v, s.DiceV):
            return str(v.count) if v.sides == 6 else f"{v.count}d{v.sides}"
        if isinstance(v, s.RangeV):
            if v.lo == v.hi:
                return str(v.lo)
            if v.hi >= OPEN_RANGE:
                return (self.lexicon.pattern(lang, "range_open") or "{lo}+").replace("{lo}", str(v.lo))
            part = "range_two" if v.hi == v.lo + 1 else "range"
            pattern = self.lexicon.pattern(lang, part) or "{lo}-{hi}"
            return pattern.replace("{lo}", str(v.lo)).replace("{hi}", str(v.hi))
        return "?"

    # ---- choices by number and gender -------------------------------------------

    def _choose(self, entity: Entity, verb: Verb, inv: Invocation, name: str, choices: str, lang: str) -> str:
        options = {}
        for item in _split_top(choices, "|"):
            option, _, text = item.partition("=")
            options[option.strip()] = text
        category: str | None
        v: s.Value | None = None
        if name == "you":
            category = self.gender(self._addressee(entity), lang)
        elif name == "self":
            category = self.gender(entity, lang)
        else:
            v = inv.arg(name)
            v = _unwrap(v) if v is not None else None
            n = _number(v) if v is not None else None
            if isinstance(v, s.BoolV):
                category = "true" if v.value else "false"
            elif n is not None:
                category = plural_category(lang, n)
            elif isinstance(v, s.CallV):
                param = verb.param(name)
                target = self.project.entity(entity.game, v.name) if param and _is_ref(param.type) else None
                if target is not None:
                    category = self.gender(target, lang)
                elif v.name in {k.strip() for k in options}:
                    category = v.name  # a choice by enum value
                else:
                    category = self._word_gender(verb, name, v.name, lang)
            else:
                category = None
        number = self.number_text(v, lang) if name not in ("you", "self") and v is not None else ""
        if category in options:
            return options[category].replace("#", number)
        for fallback in ("other", "many", "m"):
            if fallback in options:
                return options[fallback].replace("#", number)
        self.gaps.append(f"{verb.name}: no choice for {category} in {{{name}?{choices}}} ({lang})")
        return next(iter(options.values()), "")

    def gender(self, entity: Entity | None, lang: str) -> str:
        """The grammatical gender of an entity's name: its `gender` attribute, else a guess from the name."""
        if entity is None:
            return "m"
        given = entity.attrs.get("gender")
        g: s.Value | None = _unwrap(given) if given is not None else None
        if isinstance(g, s.LocalizedV):
            g = s.StrV(g.get(lang) or "", g.span) if g.get(lang) else None
        if isinstance(g, s.CallV | s.StrV):
            value = (g.name if isinstance(g, s.CallV) else g.value).strip().lower()[:1]
            if value in GENDERS:
                return value
        return guess_gender(self._name(entity, lang), lang)

    def _addressee(self, entity: Entity) -> Entity | None:
        """The hero the text speaks to: the entity or the nearest owner that is a hero or character."""
        seen: set[str] = set()
        current: Entity | None = entity
        while current is not None and current.id not in seen:
            if current.is_a("hero") or current.is_a("character"):
                return current
            seen.add(current.id)
            current = self.project.entity(current.game, current.parent) if current.parent else None
        return None

    # ---- words and names --------------------------------------------------------

    def _word(self, verb: Verb, pname: str, value: str, lang: str, key: str | None) -> str | None:
        for wid in _word_ids(verb.name, pname, value):
            if wid in self.lexicon.words:
                return self.lexicon.form(wid, lang, key)
        return None

    def _content_name(self, entity: Entity, ident: str, lang: str) -> str | None:
        """A name the content gives an ident the lexicon does not know: an expansion's (a tag that names
        an expansion, such as the monsters of one realm), else an entity's."""
        module = next((x for x in self.project.modules_of(entity.game) if x.id == ident), None)
        if module is not None and module.name is not None:
            return module.name.get(lang) or module.name.get(self._fallback(entity))
        target = self.project.entity(entity.game, ident)
        return self._name(target, lang) if target is not None else None

    def _word_gender(self, verb: Verb, pname: str, value: str, lang: str) -> str | None:
        for wid in _word_ids(verb.name, pname, value):
            if wid in self.lexicon.words:
                return self.lexicon.gender(wid, lang)
        return None

    def _fallback(self, entity: Entity) -> str:
        game = self.project.games.get(entity.game)
        return game.fallback if game else "en"

    def _name(self, entity: Entity, lang: str) -> str:
        return (entity.name.get(lang) or entity.name.get(self._fallback(entity))
                or next((e.text for e in entity.name.entries), entity.id))

    def _mention(self, entity: Entity, lang: str) -> Mention:
        return Mention(entity.key, self._name(entity, lang))

    def _pattern(self, lang: str, part: str, **slots: Rendered) -> Rendered:
        pattern = self.lexicon.pattern(lang, part)
        if pattern is None:
            self.gaps.append(f"grammar {part}: none in {lang}")
            pattern = self.lexicon.pattern("en", part) or " ".join("{" + k + "}" for k in slots)
        out = Rendered()
        pos = 0
        for m in _PLACEHOLDER.finditer(pattern):
            out.add(pattern[pos:m.start()])
            out.add(slots.get(m.group(1), Rendered()))
            pos = m.end()
        return out.add(pattern[pos:])


class _ValueWords(ValueVisitor[Rendered]):
    """One argument's value as words (a list joined as the parameter says, references as mentions)."""

    def __init__(self, gen: TextGen, entity: Entity, verb: Verb, pname: str, lang: str, key: str | None) -> None:
        self.gen, self.entity, self.verb, self.pname, self.lang, self.key = gen, entity, verb, pname, lang, key

    def _number(self, v: s.Value) -> Rendered:
        return Rendered([self.gen.number_text(v, self.lang)])

    def visit_int(self, v: s.IntV) -> Rendered:
        return self._number(v)

    def visit_signed(self, v: s.SignedV) -> Rendered:
        return self._number(v)

    def visit_range(self, v: s.RangeV) -> Rendered:
        return self._number(v)

    def visit_dice(self, v: s.DiceV) -> Rendered:
        return self._number(v)

    def visit_str(self, v: s.StrV) -> Rendered:
        return Rendered([v.value])

    def visit_localized(self, v: s.LocalizedV) -> Rendered:
        return Rendered([v.get(self.lang) or v.get(self.gen._fallback(self.entity)) or ""])

    def visit_bool(self, v: s.BoolV) -> Rendered:
        return Rendered([str(v.value).lower()])

    def visit_decimal(self, v: s.DecimalV) -> Rendered:
        return Rendered([self.gen.lexicon.decimal(v.text, self.lang)])

    def visit_icon(self, v: s.IconV) -> Rendered:
        return Rendered([f":{v.name}:"])

    def visit_list(self, v: s.ListV) -> Rendered:
        gen, lang = self.gen, self.lang
        items = [self.value(_unwrap(i)) for i in v.items]
        param = self.verb.param(self.pname)
        last = "list_or" if param is not None and param.join == "or" else "list_last"
        out = Rendered()
        for i, item in enumerate(items):
            if i:
                out.add(gen.lexicon.pattern(lang, last if i == len(items) - 1 else "list_sep") or ", ")
            out.add(item)
        return out

    def visit_unknown(self, v: s.UnknownV) -> Rendered:
        return Rendered(["?"])

    def visit_call(self, v: s.CallV) -> Rendered:
        gen, verb, pname, lang, key = self.gen, self.verb, self.pname, self.lang, self.key
        param = verb.param(pname)
        if param is not None and _is_ref(param.type):
            target = gen.project.entity(self.entity.game, v.name)
            if target is not None:
                return Rendered([gen._mention(target, lang)])
        text = gen._word(verb, pname, v.name, lang, key)
        if text is None:
            text = gen._content_name(self.entity, v.name, lang)
        if text is None:
            gen.gaps.append(f"word {_word_ids(verb.name, pname, v.name)[0]} (or {v.name}): no {lang} form"
                            f"{f' {key}' if key else ''}")
            text = v.name.replace("_", " ")
        return Rendered([text])


class _Sentence(Visitor[Rendered]):
    """Conditions and statements of one entity's effects as words of one language."""

    def __init__(self, gen: TextGen, entity: Entity, lang: str) -> None:
        self.gen, self.entity, self.lang = gen, entity, lang

    def visit_invocation(self, c: Invocation) -> Rendered:
        return self.gen.invocation(self.entity, c, self.lang)

    def visit_not(self, c: NotCond) -> Rendered:
        gen, lang = self.gen, self.lang
        negative = gen._negative(c.cond, lang)
        if negative is not None:
            assert isinstance(c.cond, Invocation)
            return gen.fill(self.entity, negative[0], c.cond, negative[1], lang)
        return gen._pattern(lang, "not", c=self.condition(c.cond))

    def visit_and(self, c: AndCond) -> Rendered:
        return self.gen._pattern(self.lang, "and", a=self.condition(c.left), b=self.condition(c.right))

    def visit_or(self, c: OrCond) -> Rendered:
        return self.gen._pattern(self.lang, "or", a=self.condition(c.left), b=self.condition(c.right))

    def visit_do(self, st: Do) -> Rendered:
        return self.gen.invocation(self.entity, st.call, self.lang, form="do")

    def visit_may(self, st: May) -> Rendered:
        return self.gen._pattern(self.lang, "may", x=self.gen.invocation(self.entity, st.call, self.lang, form="may"))

    def visit_choose(self, st: Choose) -> Rendered:
        gen, lang = self.gen, self.lang
        sep = gen.lexicon.pattern(lang, "option_sep") or "; "
        options = Rendered()
        for i, o in enumerate(st.options):
            if i:
                options.add(sep)
            body = gen.body(self.entity, o.body, lang) if o.body else gen._pattern(lang, "skip")
            if o.guard is not None:  # an option offered only while its condition holds
                body = gen._pattern(lang, "if_stmt", c=self.condition(o.guard), then=body)
            options.add(body)
        return gen._pattern(lang, "choose", options=options)

    def visit_if(self, st: If) -> Rendered:
        gen, lang = self.gen, self.lang
        c = self.condition(st.cond)
        then = gen.body(self.entity, st.then, lang)
        if st.orelse:
            return gen._pattern(lang, "if_else", c=c, then=then, **{"else": gen.body(self.entity, st.orelse, lang)})
        return gen._pattern(lang, "if_stmt", c=c, then=then)


@lru_cache(maxsize=4096)
def split_template(template: str) -> tuple[tuple[str, str | None], ...]:
    """A template as (literal text, placeholder or None) pairs; placeholders may nest inside choices.
    Remembered: the catalogue's few hundred templates are split for every effect of every language."""
    out: list[tuple[str, str | None]] = []
    literal: list[str] = []
    i = 0
    while i < len(template):
        ch = template[i]
        if ch != "{":
            literal.append(ch)
            i += 1
            continue
        depth, j = 0, i
        while j < len(template):
            if template[j] == "{":
                depth += 1
            elif template[j] == "}":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        if depth:  # unbalanced: keep the rest as text
            literal.append(template[i:])
            break
        out.append(("".join(literal), template[i + 1:j]))
        literal = []
        i = j + 1
    out.append(("".join(literal), None))
    return tuple(out)


def _split_top(text: str, sep: str) -> list[str]:
    """Split at `sep` outside braces."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def _is_ref(t: TypeExpr) -> bool:
    """A reference, or a list of references."""
    if t.name == "list" and t.args and isinstance(t.args[0], TypeExpr):
        return _is_ref(t.args[0])
    return t.name == "ref"


def _word_ids(verb: str, param: str, value: str) -> tuple[str, ...]:
    return (f"{verb}.{param}.{value}", f"{param}.{value}", value)


def _unwrap(v: s.Value) -> s.Value:
    while isinstance(v, s.ProvisionalV):
        v = v.value
    return v


def _number(v: s.Value | None) -> int | None:
    """The number a noun agrees with: the value, the higher end of a range, the count of dice."""
    if isinstance(v, s.IntV):
        return v.value
    if isinstance(v, s.SignedV):
        return abs(v.value)
    if isinstance(v, s.RangeV):
        return v.hi
    if isinstance(v, s.DiceV):
        return v.count
    return None


_FEMININE_ENDINGS = {"cs": ("a", "á"), "sk": ("a", "á"), "pl": ("a",)}
_NEUTER_ENDINGS = {"cs": ("o", "í", "é", "e"), "sk": ("o", "ie", "é", "e"), "pl": ("o", "e", "ę", "um")}
_PLURAL_ENDINGS = {"cs": ("y",), "sk": ("y",), "pl": ("y", "i", "że", "cze", "sze", "rze", "dze")}


def guess_gender(name: str, lang: str) -> str:
    """A guess of the grammatical gender (m, f, n) or plural (p) of a name in Czech, Slovak or Polish.

    A name whose last word ends like a plural ("Vrhací dýky", "Sztylety") is plural; otherwise the first
    word decides: "Ledová pěst" is feminine by its adjective, "Kouzlo" neuter by its ending. Other
    languages, and names the guess gets wrong ("Hannah"), take the entity's `gender` attribute.
    """
    words = name.strip().split()
    if lang not in _FEMININE_ENDINGS or not words:
        return "m"
    last = words[-1].lower().strip(".,!?\"'„“")
    if last.endswith(_PLURAL_ENDINGS[lang]) and not last.endswith(("ý", "ij")):
        return "p"
    first = words[0].lower().strip(".,!?\"'„“")
    if first.endswith(_FEMININE_ENDINGS[lang]):
        return "f"
    if first.endswith(_NEUTER_ENDINGS[lang]):
        return "n"
    return "m"


def entity_rules_text(project: Project, entity: Entity, lang: str) -> list[str]:
    """The sentences describing `entity`'s effects in `lang` (hand-written text first, if any)."""
    return [r.plain for r in TextGen(project).entity(entity, lang)]


def entity_rules_parts(project: Project, entity: Entity, lang: str) -> list[Rendered]:
    """The same sentences as parts, so that a reference can link the entities they mention."""
    return TextGen(project).entity(entity, lang)


def generated_rules_text(project: Project, entity: Entity, lang: str) -> list[str]:
    """The sentences generated from the effects, even where a hand-written text overrides them."""
    return [r.plain for r in TextGen(project).generated(entity, lang)]
