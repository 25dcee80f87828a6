"""Issue 14's wording, kept from coming back: the player-facing reference speaks the page's language (no English
designer notes, catalogue docs or tag ids on other languages' pages), the seed's words are used, and the
generated sentences read as a card would. Each test names the exact strings a regression would bring back."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from cardc.backends import BuildOptions
from cardc.backends.reference import render_language, write_reference
from cardc.frontend import FrontEndResult

ROOT = Path(__file__).resolve().parent.parent
# words that mark an English sentence; none is a word of cs, sk, de, pl or fr
ENGLISH = re.compile(r"\b(the|when|which|while|with|not|is|are|its|your|of)\b")
GENERATED_PAGES = ("glossary", "provisional", "components", "variants")


@pytest.fixture(scope="module")
def player(bundled: FrontEndResult, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("player")
    write_reference(bundled.project, out, BuildOptions())
    return out / "reference"


@pytest.fixture(scope="module")
def designer(bundled: FrontEndResult, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("designer")
    write_reference(bundled.project, out, BuildOptions(designer=True))
    return out / "reference"


def _read(root: Path, game: str, lang: str, stem: str) -> str:
    return (root / game / lang / f"{stem}.md").read_text(encoding="utf-8")


def _english_lines(text: str) -> list[str]:
    """Lines with two or more English function words, link targets and anchors left out."""
    out = []
    for line in text.splitlines():
        if line.startswith("<a id="):
            continue
        plain = re.sub(r"\]\([^)]*\)", "]", line)
        if len(ENGLISH.findall(plain)) >= 2:
            out.append(line)
    return out


def test_pages_of_other_languages_have_no_english_sentence(player: Path) -> None:
    """Every page, hand-written card texts included: Karak's base game and house rules are written in all six
    languages, so no German, Slovak, Polish or French page falls back to an English sentence."""
    for game, langs in (("karak", ("cs", "sk", "de", "pl", "fr")), ("prophecy", ("cs",))):
        for lang in langs:
            pages = sorted((player / game / lang).glob("*.md"))
            assert len(pages) >= len(GENERATED_PAGES) + 1
            for page in pages:
                assert _english_lines(page.read_text(encoding="utf-8")) == [], (game, lang, page.stem)


def test_the_detector_sees_an_english_note() -> None:
    assert _english_lines("| [Elf](a.md#e-elf) | Karta rasy | copies | per-race split not in the seed: the most |")
    assert not _english_lines("| Když je odhaleno 5 komnat | [Pán Karaku](regent.md#e-lord_of_karak) |")


def test_glossary_triggers_list_their_entries_and_keep_the_catalogue_doc_for_designers(
        player: Path, designer: Path) -> None:
    cs = _read(player, "karak", "cs", "glossary")
    assert "| Kdy | Kde se objevuje |" in cs
    assert "| Když je odhaleno 5 komnat | [Pán Karaku](regent.md#e-lord_of_karak) |" in cs
    assert "count-th tile" not in cs and "Each time the hero could spend" not in cs
    de = _read(player, "karak", "de", "glossary")
    assert "| Wenn 5 Gemächer aufgedeckt sind | [Der Herr von Karak](regent.md#e-lord_of_karak) |" in de
    doc = _read(designer, "karak", "cs", "glossary")
    assert "When the count-th tile of the kind" in doc and "Význam (katalog)" in doc


def test_tags_read_in_the_page_language(player: Path) -> None:
    cs = _read(player, "prophecy", "cs", "glossary")
    assert "| místo pohybu | [Pohostinnost lidí](base.md#e-hospitality), [Zbrojířství](base.md#e-armoury)" in cs
    assert "| Dračí říše | [Dračí královna](dragon_realm.md#e-dragon_queen), " in cs  # the stand-ins follow her
    assert "instead of movement" not in cs and "| dragon realm |" not in cs
    assert "- **Štítky:** pohyb" in _read(player, "prophecy", "cs", "base")


def test_provisional_page_names_what_is_unconfirmed_and_keeps_the_reasons_for_designers(
        player: Path, designer: Path) -> None:
    cs = _read(player, "prophecy", "cs", "provisional")
    assert "| [Člověk](ancient_races.md#e-human_card) | Karta rasy | Číslo v účincích |" in cs
    assert "| [Člověk](ancient_races.md#e-human_card) | Karta rasy | Počet kusů |" in cs
    assert "not in the seed" not in cs and "start\\_resource" not in cs
    karak = _read(player, "karak", "en", "provisional")
    assert "tilebag.ts" not in karak and "base-game-facts.md" not in karak  # source files are for designers
    doc = _read(designer, "karak", "en", "provisional")
    assert "split of the 80 tiles from R1 tilebag.ts only" in doc
    html = (player / "karak" / "cs" / "regent.html").read_text(encoding="utf-8")
    assert 'title="Tvar, Východy, Místnost">nepotvrzeno' in html and "rulebook does not show" not in html
    assert "rulebook does not show which sides" in \
        (designer / "karak" / "cs" / "regent.html").read_text(encoding="utf-8")


def test_balance_notes_are_for_designers(bundled: FrontEndResult, tmp_path: Path) -> None:
    build = tmp_path / "build"
    (build / "balance").mkdir(parents=True)
    note = "R1 forbids giving up the last life, R3 allows it; no rule text seen"
    table = {"variants": [], "items": [], "show": ["strength"],
             "opponents": [{"id": "giant_bat", "name": "Giant bat", "strength": 6}],
             "rows": [{"fighter": "xanros", "cells": {"giant_bat": {"win": {"decimal": 0.5}}}}],
             "provisional": [note]}
    (build / "balance" / "karak.json").write_text(json.dumps({"tables": [table]}), encoding="utf-8")
    render_language(bundled.project, "karak", "cs", tmp_path / "p", build)
    md = (tmp_path / "p" / "balance.md").read_text(encoding="utf-8")
    assert "R1 forbids" not in md
    assert "Některé hodnoty, z nichž tabulka vychází, zatím nejsou potvrzené; viz [Dosud nepotvrzeno]" \
           "(provisional.md)." in md
    render_language(bundled.project, "karak", "cs", tmp_path / "d", build, BuildOptions(designer=True))
    assert note in (tmp_path / "d" / "balance.md").read_text(encoding="utf-8")


def test_seed_words_in_the_content() -> None:
    """The seed's own words: "Legendy o dracích" (not "drácích") is the card's name and links to it."""
    realm = (ROOT / "content" / "prophecy" / "dragon_realm" / "components.cardc").read_text(encoding="utf-8")
    assert "drácích" not in realm and "(ne Legendy o dracích)" in realm


def test_fire_lake_links_the_legends_by_their_name(player: Path) -> None:
    realm = _read(player, "prophecy", "cs", "dragon_realm")
    assert "(ne [Legendy o dracích](dragon_realm.md#e-legends_of_dragons))" in realm


def test_sacrifice_reads_as_a_card_would(player: Path) -> None:
    en = _read(player, "karak", "en", "base")
    assert "if this effect has not yet been used this turn and you have 2 or more lives: choose one: " \
           "lose 1 life and +1 to your attack; or do nothing." in en
    assert "you do not have 1 life" not in en
    cs = _read(player, "karak", "cs", "base")
    assert "pokud tento účinek v tomto tahu ještě neproběhl a máš 2 a více životů: vyber si jedno: " in cs


def test_every_karak_name_and_text_is_written_in_every_published_language(bundled: FrontEndResult) -> None:
    """No card of Karak prints in a fallback language: names, texts and the kinds' names exist in all six."""
    p = bundled.project
    game = p.games["karak"]
    missing = []
    for e in p.entities_of("karak"):
        for what, value in (("name", e.name), ("text", e.text)):
            if value is not None:
                missing += [(e.id, what, lang) for lang in game.publish if not value.get(lang)]
    for (g, kind), kd in p.kinds.items():
        if g == "karak" and kd.name is not None:
            missing += [(kind, "kind name", lang) for lang in game.publish if not kd.name.get(lang)]
    assert missing == []


def test_word_order_and_typography_of_each_language(player: Path) -> None:
    """German keeps the verb second (the condition follows its clause), French repeats `si` as `que` and counts
    `2 vies ou plus`, sets a space before a colon and writes decimals with a comma; Czech puts `se` after the verb
    after `a`. Each pair is (what the page must say, what it said before)."""
    cases = [
        ("karak", "de", "regent", "Wirf 1 Würfel und du wirst verflucht, wenn der letzte Würfelwurf 1 bis 3 ist.",
         "wenn der letzte Würfelwurf 1 bis 3 ist, du wirst verflucht"),
        ("karak", "de", "house_rules", "auf dem Feld, von dem aus du angegriffen hast, liegen.",
         "von dem aus du angegriffen hast liegen"),
        ("karak", "fr", "base", "et que vous avez 2 vies ou plus\u00a0:", "2 ou plus vies"),
        ("karak", "fr", "base", "si au moins un dé indique 1 et que cet effet", "indique 1 et cet effet"),
        ("karak", "fr", "base", "- **Exemplaires\u00a0:**", "- **Exemplaires:**"),
        ("karak", "cs", "base", "- **Hodnota:** 1,5", "- **Hodnota:** 1\\.5"),
        ("prophecy", "cs", "ancient_races", "vítězstvím a hraje se varianta", "a se hraje varianta"),
    ]
    for game, lang, stem, good, bad in cases:
        text = _read(player, game, lang, stem)
        assert good in text, (game, lang, stem, good)
        assert bad not in text, (game, lang, stem, bad)
