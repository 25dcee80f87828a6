"""W501: a hand-written `text` that no longer mentions the numbers its effects use.

When a designer overrides the generated rules text by hand, the text and the effects can drift apart
(the effect says +2, the text still says +1). This check compares the numbers written in the effects
with the numbers in each language of the hand-written text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from typing import TYPE_CHECKING

from cardc import syntax as s
from cardc.catalogue import Catalogue, default_catalogue
from cardc.diagnostics import Diagnostic, Severity
from cardc.irvisit import ValueVisitor, invocations
from cardc.model import (
    Effect,
    Entity,
    Invocation,
    Project,
)

if TYPE_CHECKING:  # the lexicon (a YAML file) only for an effect that counts one of something
    from cardc.lexicon import Lexicon

_DIGITS = re.compile(r"\d+")

# Small numbers are often written as words ("lose one life", "ztrať jeden život", "padla-li šestka");
# a form ending in `*` is a stem that matches any word it starts.
_WORDS: dict[str, dict[int, tuple[str, ...]]] = {
    "en": {1: ("one", "once", "single", "first"), 2: ("two", "twice", "both", "double", "second"),
           3: ("three", "third"), 4: ("four*",), 5: ("five", "fifth"), 6: ("six*",)},
    "cs": {1: ("jed*", "prv*"), 2: ("dva", "dvě", "dvo*", "dvak*", "obě", "oba", "dvoj*", "druh*"),
           3: ("tři", "tří*", "troj*", "třet*"), 4: ("čtyř*", "čtvrt*"), 5: ("pět*", "pát*"), 6: ("šest*",)},
    "sk": {1: ("jed*", "prv*"), 2: ("dva", "dve", "dvo*", "obe", "oba", "druh*"), 3: ("tri", "tret*"),
           4: ("štyri*", "štvrt*"), 5: ("päť*", "piat*"), 6: ("šesť*", "šest*")},
    "de": {1: ("eins", "einmal", "einzig*", "erst*"),
           2: ("zwei*", "beide*", "doppel*"), 3: ("drei*", "dritt*"), 4: ("vier*",), 5: ("fünf*",), 6: ("sechs*",)},
    "pl": {1: ("jed*", "raz", "pierw*"), 2: ("dwa", "dwie", "dwó*", "oba", "obie", "drug*"),
           3: ("trzy*", "trzec*"), 4: ("czter*", "czwart*"), 5: ("pięć*", "piąt*"), 6: ("sześć*", "szóst*")},
    "fr": {1: ("seul", "seule", "premi*"), 2: ("deux*", "double"), 3: ("trois*",), 4: ("quatre*",),
           5: ("cinq*",), 6: ("six*",)},
}

# Indefinite articles also read "one" ("lose a life", "ein Leben", "une vie"), but most of them count
# nothing ("walk past a monster"): one counts as the number 1 only before a noun that an effect's 1
# counts (the noun of a `{param:word}` placeholder of the verb's sentence, in any of its forms).
_ARTICLES: dict[str, tuple[str, ...]] = {
    "en": ("a", "an"),
    "de": ("ein", "eine", "einen", "einem", "einer", "eines"),
    "fr": ("un", "une", "d'un", "d'une", "l'un", "l'une"),
}
_COUNTED = re.compile(r"\{(\w+):(=?[A-Za-z_][\w.]*)(?:@\w+)?\}")


def effect_numbers(entity: Entity) -> set[int]:
    """The numbers the designer wrote in the entity's effects (parameter defaults do not count)."""
    out: set[int] = set()
    for e in entity.effects:
        for inv in effect_invocations(e):
            for _, value in inv.args:
                if value.span == inv.span:  # a default filled in by the checker, not written
                    continue
                out.update(_numbers(value))
    out.discard(0)  # "costs nothing", "no lives": zero is seldom written as a digit
    return out


def text_numbers(text: str, lang: str, counted: frozenset[str] = frozenset()) -> set[int]:
    """The numbers a text mentions, in digits or as a small number word; an article only counts as 1
    before one of the `counted` nouns (lower-case forms)."""
    found = {int(d) for d in _DIGITS.findall(text)}
    tokens = _TOKEN.findall(text.lower())
    found |= _words_numbers(tokens, lang)
    if _article_counts(tokens, _ARTICLES.get(lang, ()), counted):
        found.add(1)
    return found


def _words_numbers(tokens: list[str], lang: str) -> set[int]:
    """The numbers the number words among `tokens` name."""
    found: set[int] = set()
    exact, stems, any_stem = _number_words(lang)
    for w in set(tokens):
        found.update(exact.get(w, ()))
        if w.startswith(any_stem):  # one C-level test per word before trying the stems one by one
            found.update(n for stem, n in stems if w.startswith(stem))
    return found


def _article_counts(tokens: list[str], articles: tuple[str, ...], counted: frozenset[str]) -> bool:
    """Whether an article among `tokens` reads "one" before a `counted` noun (one of the next two words)."""
    if not counted:
        return False
    for i, w in enumerate(tokens):
        if w in articles and any(nxt in counted for nxt in tokens[i + 1:i + 3]):
            return True
    return False


_TOKEN = re.compile(r"[\w']+")


@cache
def _number_words(lang: str) -> tuple[dict[str, tuple[int, ...]], tuple[tuple[str, int], ...], tuple[str, ...]]:
    """`_WORDS[lang]` as a lookup: whole words -> the numbers they name, and (stem, number) for `stem*` forms."""
    exact: dict[str, tuple[int, ...]] = {}
    stems: list[tuple[str, int]] = []
    for n, forms in _WORDS.get(lang, {}).items():
        for form in forms:
            if form.endswith("*"):
                stems.append((form[:-1], n))
            else:
                exact[form] = (*exact.get(form, ()), n)
    return exact, tuple(stems), tuple(stem for stem, _ in stems)


@cache
def _word_numbers(lang: str) -> frozenset[int]:
    """Every number a word of `lang` can name."""
    return frozenset(_WORDS.get(lang, {}))


def counted_nouns(entity: Entity, lang: str, number: int = 1,
                  catalogue: Catalogue | None = None, lexicon: Lexicon | None = None) -> frozenset[str]:
    """The forms (lower case) of the nouns that `number` counts in the entity's effects, in `lang`."""
    catalogue = catalogue or default_catalogue()
    if lexicon is None:
        from cardc.lexicon import default_lexicon

        lexicon = default_lexicon()
    out: set[str] = set()
    for e in entity.effects:
        for inv in effect_invocations(e):
            verb = catalogue.verbs.get(inv.verb)
            template = verb.text.get(lang) if verb is not None else None
            if template is None:
                continue
            text = " ".join(str(x) for x in template.values()) if isinstance(template, dict) else str(template)
            for param, word in _COUNTED.findall(text):
                value = inv.arg(param)
                if value is None or value.span == inv.span or number not in set(_numbers(value)):
                    continue
                if word.startswith("="):  # the noun an enum argument names (`{amount:=resource}`)
                    other = inv.arg(word[1:])
                    while isinstance(other, s.ProvisionalV):
                        other = other.value
                    word = other.name if isinstance(other, s.CallV) else ""
                forms = lexicon.forms(word, lang) or {}
                out.update(v.lower() for k, v in forms.items() if k not in ("gender", "kind"))
    return frozenset(out)


def check_hand_texts(project: Project) -> list[Diagnostic]:
    """W501 for every language of every hand-written text that misses a number of its entity's effects."""
    return [d for entity in project.entities for d in hand_text_warnings(entity)]


def hand_text_warnings(entity: Entity) -> list[Diagnostic]:
    """W501 for one entity (it depends on nothing else: `cardc.recheck` checks an edited entity alone)."""
    out: list[Diagnostic] = []
    if entity.text is None or not entity.effects:
        return out
    wanted = effect_numbers(entity)
    if not wanted:
        return out
    for entry in entity.text.entries:
        missing = _missing(entity, entry.text, entry.lang, wanted)
        if missing:
            listed = ", ".join(str(n) for n in missing)
            out.append(Diagnostic(
                Severity.WARNING, "W501",
                f"the {entry.lang} text of `{entity.id}` does not mention {listed}, which its effects use",
                entry.span,
                "update the hand-written text, or remove `text` to use the text generated from the effects",
            ))
    return out


def _missing(entity: Entity, text: str, lang: str, wanted: set[int]) -> list[int]:
    """`sorted(wanted - text_numbers(text, lang, counted))`, with `counted` the nouns `counted_nouns` gives when 1 is
    wanted: each part only while some number is still missing (most texts write their numbers in digits, and then
    neither the words nor the nouns an effect counts are looked at)."""
    left = wanted.difference([int(d) for d in _DIGITS.findall(text)])
    if not left:
        return []
    articles = _ARTICLES.get(lang, ())
    if left.isdisjoint(_word_numbers(lang)) and not (articles and 1 in left):
        return sorted(left)
    tokens = _TOKEN.findall(text.lower())
    left -= _words_numbers(tokens, lang)
    if articles and 1 in left and _article_counts(tokens, articles, counted_nouns(entity, lang)):
        left.discard(1)
    return sorted(left)


class _Numbers(ValueVisitor[list[int]]):
    """The numbers written in a value (in lists and provisional values too; a call's arguments are words)."""

    def visit_provisional(self, v: s.ProvisionalV) -> list[int]:
        return self.value(v.value)

    def visit_int(self, v: s.IntV) -> list[int]:
        return [abs(v.value)]

    def visit_signed(self, v: s.SignedV) -> list[int]:
        return [abs(v.value)]

    def visit_range(self, v: s.RangeV) -> list[int]:
        return [v.lo, v.hi] if v.hi != v.lo and v.hi < s.OPEN_RANGE else [v.lo]

    def visit_dice(self, v: s.DiceV) -> list[int]:
        return [v.count]

    def visit_list(self, v: s.ListV) -> list[int]:
        return [n for item in v.items for n in self.value(item)]

    def other(self, v: s.Value) -> list[int]:
        return []


_numbers = _Numbers().value


def effect_invocations(effect: Effect) -> Iterator[Invocation]:
    """Every verb the effect uses: its trigger, its condition's verbs, its actions, in source order."""
    return invocations(effect)
