"""The text generator's lexicon (`words.yaml`): nouns with their plural and case forms, the words enum
values stand for, and how each language puts the parts of an effect together.

Kept as data beside the catalogue's sentence templates, so that adding a language or a word is an
edit of YAML, not of the generator.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from cardc.plurals import categories, pick, plural_category
from cardc.yamlload import load_yaml

LEXICON_PATH = Path(__file__).resolve().parent / "words.yaml"


@dataclass(frozen=True, slots=True)
class Lexicon:
    words: dict[str, dict[str, dict[str, str]]]  # word -> language -> form key -> form
    grammar: dict[str, dict[str, Any]]  # language -> part -> pattern

    def forms(self, word: str, lang: str) -> dict[str, str] | None:
        entry = self.words.get(word)
        return None if entry is None else entry.get(lang)

    def counted(self, word: str, lang: str, n: int, case: str | None = None) -> str | None:
        """The form of `word` that goes after the number `n` (in `case`, if the template asks for one)."""
        forms = self.forms(word, lang)
        if forms is None:
            return None
        if case:
            cased = {k.split(".", 1)[1]: v for k, v in forms.items() if k.startswith(case + ".")}
            if cased:
                return pick(lang, n, cased)
        return pick(lang, n, {k: v for k, v in forms.items() if k in categories(lang) or k in ("other", "many")})

    def form(self, word: str, lang: str, key: str | None) -> str | None:
        """The form `key` of `word` (the singular, `one`, when no key is given)."""
        forms = self.forms(word, lang)
        if forms is None:
            return None
        if key is None:
            return forms.get("one")
        return forms.get(key) if key in forms else forms.get(f"{key}.one")

    def gender(self, word: str, lang: str) -> str | None:
        forms = self.forms(word, lang)
        return None if forms is None else forms.get("gender")

    def pattern(self, lang: str, part: str) -> str | None:
        value = self.grammar.get(lang, {}).get(part)
        return value if isinstance(value, str) else None

    def decimal(self, text: str, lang: str) -> str:
        """A number written with a point (`1.5`) in this language's way (`1,5`)."""
        return text.replace(".", self.pattern(lang, "decimal_sep") or ".")

    def percent(self, share: float, lang: str, digits: int = 1) -> str:
        """A share (0..1) as a percentage in this language's way: `12.5%`, `12,5 %`."""
        n = self.decimal(f"{100 * share:.{digits}f}", lang)
        return (self.pattern(lang, "percent") or "{n} %").replace("{n}", n)

    def flag(self, lang: str, name: str) -> bool:
        return bool(self.grammar.get(lang, {}).get(name, False))

    @property
    def languages(self) -> tuple[str, ...]:
        return tuple(sorted(self.grammar))


def load_lexicon(path: Path = LEXICON_PATH) -> Lexicon:
    return _lexicon_from_text(path.read_text(encoding="utf-8"))


def _lexicon_from_text(text: str) -> Lexicon:
    from cardc import frozen

    data = frozen.load("words", text)  # the bundled words, read ahead (None for any other text)
    return _lexicon_from_data(load_yaml(text) or {} if data is None else data)


def _lexicon_from_data(data: Any) -> Lexicon:
    words: dict[str, dict[str, dict[str, str]]] = {}
    for w, entry in (data.get("words") or {}).items():
        words[str(w)] = {}
        for lang, forms in (entry or {}).items():
            bad = [k for k, v in (forms or {}).items() if not isinstance(k, str) or not isinstance(v, str) or not v]
            if bad:
                raise ValueError(f"lexicon word {w!r} ({lang}): form {bad[0]!r} is not a text "
                                 "(quote forms that contain commas, and keys such as on/no/yes)")
            words[str(w)][str(lang)] = {str(k): v for k, v in forms.items()}
    grammar = {str(lang): dict(parts) for lang, parts in (data.get("grammar") or {}).items()}
    return Lexicon(words, grammar)


def freeze_lexicon() -> str:
    """The bundled words.yaml's data, as `python -m cardc.frozen` writes it (checked as a lexicon first)."""
    from cardc import frozen

    text = LEXICON_PATH.read_text(encoding="utf-8")
    data = load_yaml(text) or {}
    _lexicon_from_data(data)  # raises for words that are not texts: such a file is not frozen
    return frozen.dumps((text,), data)


@lru_cache(maxsize=1)
def default_lexicon() -> Lexicon:
    """The bundled lexicon, remembered on disk under its text and the compiler's code (`cardc.diskcache`):
    importing PyYAML and reading the file was a fifth of `cardc check` after an edit."""
    from cardc import diskcache

    text = LEXICON_PATH.read_text(encoding="utf-8")
    key = diskcache.digest(diskcache.code_fingerprint(), text)
    cached = diskcache.load_beside_code("lexicon", key)  # kept beside the bytecode, as the compiler's own files
    if cached is None:
        cached = diskcache.load("lexicon", key)
    if isinstance(cached, Lexicon):
        return cached
    lexicon = _lexicon_from_text(text)
    diskcache.store_beside_code("lexicon", key, lexicon)
    return lexicon


__all__ = ["Lexicon", "default_lexicon", "load_lexicon", "plural_category"]
