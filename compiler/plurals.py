"""Plural categories per language (the CLDR rules for whole numbers), for agreeing nouns with numbers.

Czech and Slovak: 1 život, 2-4 životy, 0 and 5+ životů. Polish: 1 życie, 2-4 / 22-24 ... życia,
otherwise żyć. English, German: 1 and everything else. French: 0 and 1 are singular.
"""

from __future__ import annotations

ONE, FEW, MANY, OTHER = "one", "few", "many", "other"

# The categories each language distinguishes, in the order a lexicon lists them.
CATEGORIES: dict[str, tuple[str, ...]] = {
    "cs": (ONE, FEW, MANY),
    "sk": (ONE, FEW, MANY),
    "pl": (ONE, FEW, MANY),
    "en": (ONE, OTHER),
    "de": (ONE, OTHER),
    "fr": (ONE, OTHER),
}


def plural_category(lang: str, n: int) -> str:
    """The plural category of the whole number `n` in `lang` (`other` for languages not listed)."""
    n = abs(n)
    if lang in ("cs", "sk"):
        if n == 1:
            return ONE
        return FEW if 2 <= n <= 4 else MANY
    if lang == "pl":
        if n == 1:
            return ONE
        if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
            return FEW
        return MANY
    if lang == "fr":
        return ONE if n in (0, 1) else OTHER
    return ONE if n == 1 else OTHER


def categories(lang: str) -> tuple[str, ...]:
    return CATEGORIES.get(lang, (ONE, OTHER))


def pick(lang: str, n: int, forms: dict[str, str]) -> str | None:
    """The form of `forms` for `n`: its own category, else the nearest one the entry gives."""
    cat = plural_category(lang, n)
    if cat in forms:
        return forms[cat]
    for fallback in ((MANY, OTHER, FEW) if cat != ONE else (OTHER,)):
        if fallback in forms:
            return forms[fallback]
    return None
