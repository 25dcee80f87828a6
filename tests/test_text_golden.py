"""Goldens: the rules texts generated for the Karak: Regent heroes (and their abilities) in all six languages.

To re-record after an intended change of a template, the lexicon or the content, run
`CARDC_UPDATE_GOLDENS=1 python3 -m pytest -q tests/test_text_golden.py` and review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from cardc.frontend import FrontEndResult
from cardc.textgen import TextGen

GOLDEN = Path(__file__).resolve().parent / "golden" / "text"
UPDATE = os.environ.get("CARDC_UPDATE_GOLDENS") == "1"
LANGS = ("cs", "sk", "de", "pl", "en", "fr")


def regent_hero_texts(bundled: FrontEndResult, lang: str) -> str:
    p = bundled.project
    gen = TextGen(p)
    heroes = [e for e in p.entities if e.game == "karak" and e.module == "regent" and e.is_a("hero")]
    lines = []
    for hero in heroes:
        for who in (hero, *(e for e in p.entities if e.game == "karak" and e.parent == hero.id)):
            name = who.name.get(lang) or who.name.get("en")
            for i, sentence in enumerate(gen.generated(who, lang), start=1):
                lines.append(f"{hero.id}/{who.id} ({name}) {i}: {sentence.plain}")
    assert gen.gaps == []
    return "\n".join(lines) + "\n"


def test_regent_has_the_four_heroes(bundled: FrontEndResult) -> None:
    heroes = {e.id for e in bundled.project.entities if e.module == "regent" and e.is_a("hero")}
    assert len(heroes) == 4
    assert "valduk" in heroes and "hannah" in heroes


@pytest.mark.parametrize("lang", LANGS)
def test_regent_hero_texts(bundled: FrontEndResult, lang: str) -> None:
    text = regent_hero_texts(bundled, lang)
    path = GOLDEN / f"regent_heroes.{lang}.txt"
    if UPDATE:
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")
    assert text.count("\n") >= 8  # every hero has abilities with effects
