"""Plural forms: the CLDR categories, and goldens for 1, 2 and 5 of something in Czech and Polish."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from cardc.plurals import categories, plural_category
from cardc.textgen import TextGen
from textutil import compile_source

GOLDEN = Path(__file__).resolve().parent / "golden" / "text" / "plurals.txt"
UPDATE = os.environ.get("CARDC_UPDATE_GOLDENS") == "1"


@pytest.mark.parametrize(("lang", "n", "expected"), [
    ("cs", 0, "many"), ("cs", 1, "one"), ("cs", 2, "few"), ("cs", 4, "few"), ("cs", 5, "many"), ("cs", 22, "many"),
    ("sk", 1, "one"), ("sk", 3, "few"), ("sk", 7, "many"),
    ("pl", 1, "one"), ("pl", 2, "few"), ("pl", 5, "many"), ("pl", 12, "many"), ("pl", 14, "many"),
    ("pl", 22, "few"), ("pl", 24, "few"), ("pl", 25, "many"), ("pl", 112, "many"), ("pl", 0, "many"),
    ("en", 1, "one"), ("en", 0, "other"), ("en", 2, "other"),
    ("de", 1, "one"), ("de", 5, "other"),
    ("fr", 0, "one"), ("fr", 1, "one"), ("fr", 2, "other"),
])
def test_plural_category(lang: str, n: int, expected: str) -> None:
    assert plural_category(lang, n) == expected
    assert expected in categories(lang)


SOURCE = """module g
game g {
  name: { cs "Hra" pl "Gra" en "Game" }
  languages: [cs, pl, en]
  fallback: en
}
kind rule { }
rule counts {
  name: { cs "Počty" pl "Liczby" en "Counts" }
  on turn_start { lose_life(1) }
  on turn_start { lose_life(2) }
  on turn_start { lose_life(5) }
  on turn_start { move(1) }
  on turn_start { move(2) }
  on turn_start { move(5) }
  on turn_start { roll(1d6) }
  on turn_start { roll(2d6) }
  on turn_start { roll(5d6) }
  on chambers_revealed(1) { end_turn }
  on chambers_revealed(2) { end_turn }
  on chambers_revealed(5) { end_turn }
}
"""


def rendered(tmp_path: Path) -> str:
    result = compile_source(tmp_path, SOURCE)
    assert result.ok, [d.render() for d in result.diagnostics]
    gen = TextGen(result.project)
    entity = result.project.entity("g", "counts")
    assert entity is not None
    lines = []
    for lang in ("cs", "pl"):
        for sentence in gen.generated(entity, lang):
            lines.append(f"{lang}: {sentence.plain}")
    assert gen.gaps == []
    return "\n".join(lines) + "\n"


def test_plural_goldens(tmp_path: Path) -> None:
    text = rendered(tmp_path)
    if UPDATE:
        GOLDEN.write_text(text, encoding="utf-8")
    assert text == GOLDEN.read_text(encoding="utf-8")


def test_plural_forms_differ_by_number(tmp_path: Path) -> None:
    """Independent of the golden file: the noun changes with the number as the grammar says."""
    text = rendered(tmp_path)
    for expected in ("1 život.", "2 životy.", "5 životů.", "1 życie.", "2 życia.", "5 żyć.",
                     "1 kostkou", "2 kostkami", "5 kośćmi", "je odhalena 1 komnata", "jsou odhaleny 2 komnaty",
                     "je odhaleno 5 komnat", "zostanie odkrytych 5 komnat"):
        assert expected in text, expected
