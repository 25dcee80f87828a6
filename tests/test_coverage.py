"""content/COVERAGE.md maps every rulebook section to ids that exist."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from cardc.catalogue import default_catalogue
from cardc.frontend import FrontEndResult
from cardc.lower import ODDS_KINDS

ROOT = Path(__file__).resolve().parent.parent
MAIN = ROOT / "content" / "COVERAGE.md"

# The sections of each rulebook, in the rulebook's order (Regent: the headings of its English part,
# plus the notes only the other languages carry; house rules: its Czech headings).
REQUIRED: dict[str, list[str]] = {
    "Karak: Regent": [
        "GAME RULES", "KARAK: REGENT", "GAME COMPONENTS", "THE LORD OF KARAK CHAMBERS", "Battle Arena",
        "Cursed Chamber", "NEW EQUIPMENT", "The Thorn of Darkness", "The Frost Fist", "NEW HEROES",
        "Valduk — the Barbarian", "Baron Markul — the Battle Mage", "Hannah — the Acrobat",
        "Lady Lorraine — the Ranger", "GAME VERSION—THE LORD OF KARAK", "EXAMPLE 1", "EXAMPLE 2", "EXAMPLE", "Authors",
        "Note (cs, sk, de, fr): the wizard and the thorn", "Note (cs, sk, de, pl, fr): Hannah and the curse",
        "Note (cs, sk, de, pl, fr): the fifth chamber is an arena",
    ],
    "Karak house rules": [
        "Slíbené rozšíření pravidel", "Souboj hrdinů", "Kritický zásah nebo nešikovnost", "Příklad boje s hrdinou",
        "Silnější drak",
    ],
    # Section ids of the Prophecy seed (000_3675fda29ad0c57f.txt) as content/COVERAGE.md names them.
    "Prophecy": [
        "1.uvod", "1.prvni-rozsireni", "2.prastare-rasy", "2.vyber-postav", "2.figurka", "2.vlastnosti",
        "2.dalsi-vyhody-a-nevyhody", "2.odkazy-na-rasy", "3.draci-rise", "3.plan-draci-rise", "3.karty-draci-rise",
        "3.pozitivni-a-negativni-draci-karty", "3.draci-srdce", "3.drakobijecke-schopnosti",
        "3.karty-na-zakladni-plan", "3.legendy-o-dracich-priprava", "3.brana-draci-rise-priprava",
        "3.hra-na-zakladnim-planu", "3.maximum-schopnosti-a-predmetu", "3.legendy-o-dracich",
        "3.drakobijecke-schopnosti-hra", "3.odkryvani-draci-rise", "4.brana-draci-rise", "4.hra-v-draci-risi",
        "4.tazeni-karty-nahody", "4.pohyb", "4.schopnosti-misto-pohybu", "4.navrat-na-zakladni-plan", "4.prekazky",
        "4.nestvury", "5.pozitivni-karty", "5.predmety", "5.prilezitosti", "5.draci-schopnosti",
        "5.boj-mezi-postavami", "5.konec-cesty", "5.utok-na-strazce", "5.draci-srdce",
        "5.artefakty-zahynuvsi-postavy", "5.posledni-artefakt", "5.zaverecny-boj", "6.zakladni-hra",
        "6.rozsireni-zakladni-hry", "6.nove-predmety-a-dobrodruzstvi", "6.novi-strazci", "6.opravy-zakladni-hry",
        "6.sklenena-hora", "6.casova-smycka", "6.posileni-schopnosti", "6.zmena-artefaktu",
        "6.drobne-zmeny-pravidel", "6.zvysovani-vlastnosti", "6.rozdeleni-postav", "6.podekovani",
        "7.varianty-hry", "7.prastare-rasy", "7.zkusenost-za-boj", "7.krizenci", "7.draci-rise",
        "7.drakobijecka-varianta", "7.tymova-hra",
    ],
}
NOTHING_TO_ENCODE = re.compile(r"nothing to encode|no rules", re.I)


def parse_coverage(text: str, default_book: str = "") -> dict[str, dict[str, list[str]]]:
    """{book: {section: [ids]}} from markdown tables under `## <book>` headings.

    The section is a row's first cell (backticks dropped); ids are the backticked names in its last cell.
    Rows of a row that encodes nothing must say so ("nothing to encode").
    """
    books: dict[str, dict[str, list[str]]] = {}
    book = default_book
    lines = text.splitlines()
    for n, line in enumerate(lines):
        if n + 1 < len(lines) and re.match(r"^\|[\s:|-]+\|$", lines[n + 1].strip()):
            continue  # a table's header row (the separator follows it)
        heading = re.match(r"^#{1,2} (.+)$", line)
        if heading and line.startswith("## "):
            book = heading.group(1).strip()
            continue
        if not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 2 or set(cells[0]) <= set("-: ") or cells[0].lower() == "section":
            continue
        section = cells[0].replace("`", "").strip()
        ids = re.findall(r"`([^`]+)`", cells[-1])
        if not ids:
            assert NOTHING_TO_ENCODE.search(cells[-1]), f"section {section!r} names no ids"
        books.setdefault(book, {})[section] = ids
    return books


def known_names(bundled: FrontEndResult) -> set[str]:
    """What a coverage row may name: entities (and errata keys), modules, kinds, their attributes, verbs."""
    p = bundled.project
    names = {e.id for e in p.entities} | {e.key for e in p.entities} | {m.key for m in p.modules.values()}
    names |= {k.id for k in p.kinds.values()} | {a for k in p.kinds.values() for a in k.attrs}
    return names | set(default_catalogue().verbs)


@pytest.fixture(scope="module")
def coverage() -> dict[str, dict[str, list[str]]]:
    return parse_coverage(MAIN.read_text(encoding="utf-8"))


def test_parser_reads_sections_and_ids() -> None:
    text = "## Book\n| section | says | encoded by |\n| --- | --- | --- |\n| `1.a` | x `y` | `e1`, `m.x:e2` |\n"
    assert parse_coverage(text) == {"Book": {"1.a": ["e1", "m.x:e2"]}}
    with pytest.raises(AssertionError):
        parse_coverage("## B\n| s | says |\n| --- | --- |\n| A | nothing here |\n")


@pytest.mark.parametrize("book", sorted(REQUIRED))
def test_every_section_is_covered(coverage: dict[str, dict[str, list[str]]], book: str) -> None:
    rows = {s: ids for b, sections in coverage.items() if b.startswith(book) for s, ids in sections.items()}
    missing = [s for s in REQUIRED[book] if s not in rows]
    assert missing == [], f"{book}: sections missing from COVERAGE.md"


def test_every_named_id_exists(coverage: dict[str, dict[str, list[str]]], bundled: FrontEndResult) -> None:
    known = known_names(bundled)
    unknown = sorted({(book, section, i) for book, rows in coverage.items() for section, ids in rows.items()
                      for i in ids if i not in known})
    assert unknown == []


def test_karak_entities_cite_covered_sections(coverage: dict[str, dict[str, list[str]]],
                                              bundled: FrontEndResult) -> None:
    """Every Karak entity's `source` names a section that COVERAGE.md lists for the same rulebook."""
    books = {"004_dc563c5159c76d25.txt": "Karak: Regent", "002_cbefe6d082d470f6.txt": "Karak house rules",
             "base-game-facts.md": "Karak base game"}
    for e in bundled.project.entities_of("karak"):
        if e.kind in ODDS_KINDS:
            continue  # declarations for the odds tools, not rules of a rulebook
        file, _, section = (e.source or "").partition("#")
        book = next(b for b in coverage if b.startswith(books[file]))
        sections = coverage[book]
        ok = section in sections or any(s.split(" ")[0] == section for s in sections)
        assert ok, f"{e.id}: source section {section!r} is not in COVERAGE.md under {book!r}"
