"""The rules reference and the gallery: every game and language written, no broken internal link,
stable anchors, escaping of user data, byte-identical output, and the balance/errata/variant sections."""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from cardc.backends import BuildOptions
from cardc.backends.reference import md_escape, render_language, write_reference
from cardc.backends.reference.blocks import html_escape
from cardc.frontend import FrontEndResult
from cardc.lower import ODDS_KINDS
from hypothesis import given
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from markupsafe import Markup, escape
from textutil import compile_source

GOLDEN = Path(__file__).resolve().parent / "golden" / "reference"
UPDATE = os.environ.get("CARDC_UPDATE_GOLDENS") == "1"
PAGES = ("index", "base", "components", "variants", "errata", "glossary", "balance", "provisional")


@pytest.fixture(scope="module")
def reference(bundled: FrontEndResult, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("ref")
    write_reference(bundled.project, out, BuildOptions())
    return out / "reference"


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for key, value in attrs:
            if key == "id" and value:
                self.ids.add(value)
            if key in ("href", "src") and value is not None:
                self.links.append(value)


def _parse(path: Path, cache: dict[Path, _Links]) -> _Links:
    if path not in cache:
        parser = _Links()
        parser.feed(path.read_text(encoding="utf-8"))
        cache[path] = parser
    return cache[path]


def broken_html_links(root: Path) -> list[str]:
    """Every href/src of every page that does not lead to an existing file (and id) inside `root`."""
    cache: dict[Path, _Links] = {}
    broken = []
    for page in sorted(root.rglob("*.html")):
        for link in _parse(page, cache).links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc:
                broken.append(f"{page.relative_to(root)}: external link {link}")
                continue
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if not target.is_file() or root.resolve() not in target.parents:
                broken.append(f"{page.relative_to(root)}: {link} (no such file)")
                continue
            if parts.fragment and target.suffix == ".html" and parts.fragment not in _parse(target, cache).ids:
                broken.append(f"{page.relative_to(root)}: {link} (no such anchor)")
    return broken


def broken_md_links(root: Path) -> list[str]:
    broken = []
    for page in sorted(root.rglob("*.md")):
        text = page.read_text(encoding="utf-8")
        for link in re.findall(r"(?<!\\)\]\(([^)\s]+)\)", text):  # not an escaped \](
            path, _, frag = link.partition("#")
            target = (page.parent / path).resolve() if path else page
            if not target.is_file():
                broken.append(f"{page.relative_to(root)}: {link} (no such file)")
            elif frag and f'<a id="{frag}"></a>' not in target.read_text(encoding="utf-8"):
                broken.append(f"{page.relative_to(root)}: {link} (no such anchor)")
    return broken


def test_every_game_and_language_is_written(reference: Path) -> None:
    for game, langs in (("karak", ("cs", "sk", "de", "pl", "en", "fr")), ("prophecy", ("cs", "en"))):
        for lang in langs:
            folder = reference / game / lang
            for stem in PAGES:
                assert (folder / f"{stem}.html").is_file(), (game, lang, stem)
                assert (folder / f"{stem}.md").is_file(), (game, lang, stem)
            assert (folder / "gallery.html").is_file()
    assert (reference / "karak" / "cs" / "regent.html").is_file()
    assert (reference / "style.css").is_file() and (reference / "gallery.js").is_file()


def test_no_broken_internal_link(reference: Path) -> None:
    assert broken_html_links(reference) == []
    assert broken_md_links(reference) == []


def test_the_link_checker_finds_broken_links(tmp_path: Path) -> None:
    (tmp_path / "a.html").write_text('<a href="b.html#x">b</a><a href="c.html">c</a><a href="https://x.org">x</a>'
                                     '<p id="y"></p><a href="#y">y</a><a href="#z">z</a>', encoding="utf-8")
    (tmp_path / "b.html").write_text('<p id="w"></p>', encoding="utf-8")
    assert len(broken_html_links(tmp_path)) == 4


def test_every_entity_has_a_stable_anchor(bundled: FrontEndResult, reference: Path) -> None:
    for e in bundled.project.entities_of("karak"):
        if e.kind in ODDS_KINDS:
            continue  # they label the balance tables, they are not entries
        page = reference / "karak" / "en" / ("base.html" if e.module == "base" else f"{e.module}.html")
        anchor = f"errata-{e.module}-{e.id}" if e.errata else f"e-{e.id}"
        assert f'id="{anchor}"' in page.read_text(encoding="utf-8"), (e.id, page.name)


def test_mentions_link_to_their_entries(reference: Path) -> None:
    html = (reference / "karak" / "en" / "regent.html").read_text(encoding="utf-8")
    assert re.search(r'<a href="base\.html#e-sword">Sword</a>', html)  # Sword master's effect names the sword


def test_names_in_hand_written_texts_link_to_their_entries(bundled: FrontEndResult, reference: Path) -> None:
    entities = [e for e in bundled.project.entities_of("karak") if not e.errata and e.kind not in ODDS_KINDS]
    counts = Counter(e.name.get("en") for e in entities)
    names = {e.name.get("en"): e for e in entities
             if len(e.name.get("en") or "") >= 3 and counts[e.name.get("en")] == 1}
    found = [(e, other) for e in entities if e.text is not None and e.module == "base" for n, other in names.items()
             if other is not e and re.search(rf"(?<!\w){re.escape(n)}(?!\w)", e.text.get("en") or "")]
    assert found, "no hand-written text mentions another entity"
    html = (reference / "karak" / "en" / "base.html").read_text(encoding="utf-8")
    for e, other in found[:5]:
        entry = html[html.index(f'id="e-{e.id}"'):].split("</article>")[0]
        page = "base" if other.module == "base" else other.module
        assert f'<a href="{page}.html#e-{other.id}">{other.name.get("en")}</a>' in entry, (e.id, other.id)


def test_no_javascript_needed_to_read(reference: Path) -> None:
    for page in (reference / "karak" / "de").glob("*.html"):
        html = page.read_text(encoding="utf-8")
        scripts = re.findall(r"<script[^>]*>", html)
        assert scripts in ([], ['<script src="../../gallery.js">']), page.name
    gallery = (reference / "karak" / "de" / "gallery.html").read_text(encoding="utf-8")
    assert '<form id="filters" class="filters" hidden>' in gallery  # the filters appear only with JavaScript


def test_generated_text_is_in_the_page_language(reference: Path) -> None:
    assert "Při sčítání útoku v souboji, pokud máš 3 nebo 4 životy: +1 k útoku." in \
        (reference / "karak" / "cs" / "regent.html").read_text(encoding="utf-8")
    assert "Przy liczeniu siły ataku w walce, jeśli masz 1 lub 2 życia: +2 do ataku." in \
        (reference / "karak" / "pl" / "regent.html").read_text(encoding="utf-8")


def test_provisional_values_are_listed_and_marked(bundled: FrontEndResult, reference: Path) -> None:
    # players see one row per entity and what is unconfirmed; designers one row per note (with the note)
    entities = [e for e in bundled.project.entities_of("karak") if e.provisional]
    html = (reference / "karak" / "en" / "provisional.html").read_text(encoding="utf-8")
    assert len(entities) <= html.count("<tr><td>") <= sum(len(e.provisional) for e in entities)
    for e in entities:
        anchor = f"errata-{e.module}-{e.id}" if e.errata else f"e-{e.id}"
        assert f'href="{"base" if e.module == "base" else e.module}.html#{anchor}"' in html, e.id
    assert 'class="badge provisional"' in (reference / "karak" / "en" / "base.html").read_text(encoding="utf-8")


def test_errata_are_side_by_side(bundled: FrontEndResult, reference: Path) -> None:
    errata = [e for e in bundled.project.entities_of("prophecy") if e.errata]
    html = (reference / "prophecy" / "cs" / "errata.html").read_text(encoding="utf-8")
    assert html.count('<div class="side">') == len(errata) > 0
    for e in errata:
        assert f'id="e-{e.id}"' in html and f'id="errata-{e.module}-{e.id}"' in html


def test_variants_say_what_they_change(reference: Path) -> None:
    html = (reference / "karak" / "en" / "variants.html").read_text(encoding="utf-8")
    section = html[html.index('id="variant-lord_of_karak"'):]
    assert 'href="regent.html#e-lord_of_karak_sheet"' in section.split("</section>")[0]


def test_components_count_physical_entities(bundled: FrontEndResult, reference: Path) -> None:
    p = bundled.project
    md = (reference / "karak" / "en" / "components.md").read_text(encoding="utf-8")
    physical = [e for e in p.entities_of("karak") if not e.errata and (k := p.kinds.get(("karak", e.kind)))
                and k.physical]
    assert len(physical) > 10
    for e in physical:
        name = re.escape(md_escape(e.name.get("en")))
        count = re.escape(str(e.copies) if e.copies is not None else "?")
        page = "base" if e.module == "base" else e.module
        assert re.search(rf"\[{name}\]\({page}\.md#e-{e.id}\) \| {count}", md), e.id


def test_balance_section_without_and_with_tables(bundled: FrontEndResult, tmp_path: Path) -> None:
    render_language(bundled.project, "karak", "cs", tmp_path / "a", None)
    assert 'class="missing"' in (tmp_path / "a" / "balance.html").read_text(encoding="utf-8")
    build = tmp_path / "build"
    (build / "balance").mkdir(parents=True)
    table = {"loadout": "no items", "variants": [], "items": [], "show": ["strength"],
             "opponents": [{"id": "giant_bat", "name": "Giant bat", "strength": 6}],
             "rows": [{"fighter": "valduk", "name": "Valduk", "cells": {"giant_bat": {"win": {"decimal": 0.5}}}}],
             "provisional": []}
    (build / "balance" / "karak.json").write_text(json.dumps({"tables": [table]}), encoding="utf-8")
    render_language(bundled.project, "karak", "cs", tmp_path / "b", build)
    html = (tmp_path / "b" / "balance.html").read_text(encoding="utf-8")
    assert 'class="missing"' not in html
    assert '<a href="regent.html#e-valduk">Valduk</a></td><td>50,0\u00a0%</td>' in html  # Czech: decimal comma
    assert "Obří netopýr (6)" in html or "(6)" in html


def test_unknown_languages_and_odd_balance_files_do_not_break_the_build(tmp_path: Path) -> None:
    result = compile_source(tmp_path, """module g
game g { name: { it "Gioco" en "Game" } languages: [it, en] fallback: en }
kind rule { }
rule r { name: { it "Regola" en "Rule" } on turn_start { lose_life(2) } }
""")
    assert result.ok, [d.render() for d in result.diagnostics]
    build = tmp_path / "build"
    (build / "balance").mkdir(parents=True)
    (build / "balance" / "g.json").write_text('{"tables": [{"rows": [{"cells": 3}], "monsters": [7]}]}',
                                              encoding="utf-8")
    write_reference(result.project, build, BuildOptions())
    html = (build / "reference" / "g" / "it" / "base.html").read_text(encoding="utf-8")
    assert "Regola" in html and "lose 2 lives" in html  # no Italian templates: the fallback language
    assert 'class="missing"' in (build / "reference" / "g" / "it" / "balance.html").read_text(encoding="utf-8")


def test_output_is_byte_identical(bundled: FrontEndResult, tmp_path: Path) -> None:
    render_language(bundled.project, "karak", "fr", tmp_path / "a", None)
    render_language(bundled.project, "karak", "fr", tmp_path / "b", None)
    for f in sorted((tmp_path / "a").iterdir()):
        assert f.read_bytes() == (tmp_path / "b" / f.name).read_bytes(), f.name


NASTY = """module g
import "exp.cardc"
game g { name: { cs "Hra" en "Game <b>" } languages: [cs, en] fallback: en }
kind card { physical: true  copies: 1  size: poker  attr power { type: int default: 0 } }
kind item { physical: true size: token attr slot { type: enum(weapon, spell, key) required: true } }
variant wild { name: { cs "Divoká" en "Wild" } }
item knife { name: { cs "Nůž" en "Knife" } slot: weapon copies: provisional 3 "not counted yet" }
card evil {
  name: { cs "<script>alert(1)</script>" en "<script>alert(1)</script>" }
  text: { cs "{{ x }} a *hvězda* _x_ [odkaz](y) | roura" en "{{ x }} and *star* _x_ [link](y) | pipe" }
  power: 2
  on turn_start if holds(knife) { lose_life(2) }
}
card plain { name: { cs "Obyčejná" en "Plain" } variant: wild on turn_start if variant_on(wild) { gain_life(1) } }
"""
EXPANSION = """module g.x
expansion x extends g { name: { cs "Rozšíření" en "Expansion" } languages: [cs, en] }
errata card plain { name: { cs "Obyčejná" en "Plain" } variant: wild power: 5 }
"""


@pytest.fixture(scope="module")
def nasty(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp_path = tmp_path_factory.mktemp("nasty")
    (tmp_path / "content").mkdir()
    (tmp_path / "content" / "exp.cardc").write_text(EXPANSION, encoding="utf-8")
    result = compile_source(tmp_path, NASTY)
    assert result.ok, [d.render() for d in result.diagnostics]
    out = tmp_path / "out"
    write_reference(result.project, out, BuildOptions())
    return out / "reference"


def test_user_data_is_escaped(nasty: Path) -> None:
    for lang in ("cs", "en"):
        for page in (nasty / "g" / lang).glob("*.html"):
            html = page.read_text(encoding="utf-8")
            assert "<script>alert" not in html, page.name
            assert "Game <b>" not in html and ("Game &lt;b&gt;" in html or lang == "cs"), page.name
        base = (nasty / "g" / lang / "base.html").read_text(encoding="utf-8")
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in base
        assert "{{ x }}" in base  # a template-looking name is data, not a template
        md = (nasty / "g" / lang / "base.md").read_text(encoding="utf-8")
        assert "<script>" not in md and r"\<script\>alert(1)\</script\>" in md
        assert r"\*" in md and r"\[" in md and r"\|" in md
        shown = MarkdownIt("commonmark").enable("table").render(md)  # what a Markdown viewer shows
        assert "<script>" not in shown and "&lt;script&gt;alert(1)&lt;/script&gt;" in shown
        gallery = (nasty / "g" / lang / "gallery.html").read_text(encoding="utf-8")
        assert "<script>alert" not in gallery and "&lt;script&gt;" in gallery
    assert broken_html_links(nasty) == [] and broken_md_links(nasty) == []


def _shown(markdown: str) -> str:
    """The text a CommonMark renderer shows for a paragraph (markup and entities resolved)."""
    tokens = MarkdownIt("commonmark").parseInline(markdown)
    return "".join(t.content for t in tokens[0].children or [] if t.type in ("text", "code_inline"))


def test_md_escape_is_for_markdown_not_html() -> None:
    """Apostrophes and quotes stay as written; syntax characters are escaped so CommonMark shows them."""
    assert md_escape("Horan's \"axe\"") == "Horan's \"axe\""
    assert md_escape("<a> & *b* _c_ [d](e) |f| #g `h`") == \
        r"\<a\> \& \*b\* \_c\_ \[d\](e) \|f\| \#g \`h\`"
    for text in ("Horan's 5 * 3 = 15", "<b>bold</b> &amp; &#39;", "[x](y) ![i](j)", "*a* __b__ `c`", "a | b # c ~d~",
                 "1. not a list", "\\ back\\slash", "Ohnivé jezero: 4 – 6"):
        assert _shown(md_escape(text)) == text, text


@given(st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=0x17F), max_size=40))
def test_md_escape_round_trips_through_commonmark(text: str) -> None:
    text = " ".join(text.split())  # one paragraph: no leading/trailing or repeated spaces
    assert _shown(md_escape(text)) == text


@given(st.text(alphabet="\\`*_[]|#~<>&.)0123456789 \nab", max_size=30))
def test_md_escape_is_the_backslash_before_each_syntax_character_and_list_number(text: str) -> None:
    """The escaping as written with two regular expressions (before a translation table took the first): every
    syntax character, and the `.` or `)` after a number that starts a line."""
    expected = re.sub(r"^(\d+)([.)])", r"\1\\\2", re.sub(r"([\\`*_\[\]|#~<>&])", r"\\\1", text), flags=re.M)
    assert md_escape(text) == expected


def test_generated_markdown_has_no_html_entities() -> None:
    """The committed reference reads right in any Markdown viewer: no `&#39;` or `&amp;` shown literally."""
    root = Path(__file__).resolve().parent.parent / "generated" / "reference"
    pages = sorted(root.rglob("*.md"))
    assert pages
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert "&#39;" not in text and "&\\#39;" not in text and "&amp;" not in text, page
    horan = (root / "karak" / "en" / "house_rules.md").read_text(encoding="utf-8")
    assert "the winner's total" in MarkdownIt("commonmark").render(horan).replace("&#x27;", "'")


@pytest.mark.parametrize("stem", ["base", "x", "variants", "errata", "components", "provisional"])
def test_small_reference_golden(nasty: Path, stem: str) -> None:
    text = (nasty / "g" / "en" / f"{stem}.md").read_text(encoding="utf-8")
    path = GOLDEN / f"small_{stem}.en.md"
    if UPDATE:
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


def test_gallery_filters_list_kinds_modules_variants(nasty: Path) -> None:
    html = (nasty / "g" / "en" / "gallery.html").read_text(encoding="utf-8")
    assert '<option value="card">' in html and '<option value="item">' in html
    assert '<option value="x">Expansion</option>' in html and '<option value="wild">Wild</option>' in html
    assert html.count('<article class="card') == 4  # knife, evil, plain and its erratum
    assert 'data-variant="wild"' in html


def _enums(t) -> list[str]:  # type: ignore[no-untyped-def]
    if t.name == "enum":
        return [str(a) for a in t.args]
    return _enums(t.args[0]) if t.name == "list" and t.args else []


def test_enum_values_have_a_label_in_every_published_language(bundled: FrontEndResult) -> None:
    """No enum value is left as an English id on another language's page ("Tvar: crossing")."""
    from cardc.backends.reference.context import RefContext
    from cardc.lexicon import default_lexicon

    p = bundled.project
    lexicon = default_lexicon()
    missing = []
    for (game, _kind), kd in p.kinds.items():
        for attr, ad in kd.attrs.items():
            if attr == "gender":  # steers the grammar only; never shown
                continue
            for value in _enums(ad.type):
                for lang in p.games[game].publish:
                    ctx = RefContext(p, p.games[game], lang)
                    own = lexicon.form(f"{attr}.{value}", lang, None) or lexicon.form(value, lang, None)
                    if not own and p.kinds.get((game, value)) is None:
                        missing.append((game, attr, value, lang))
                    assert ctx.enum_label(value, attr)
    assert missing == []


def test_pages_show_enum_words_and_kind_names(reference: Path) -> None:
    regent = (reference / "karak" / "cs" / "regent.md").read_text(encoding="utf-8")
    assert "**Použití:** ve vlastním tahu" in regent and "own turn" not in regent
    assert "**Použití:** v boji" in (reference / "karak" / "cs" / "base.md").read_text(encoding="utf-8")
    base = (reference / "karak" / "cs" / "base.md").read_text(encoding="utf-8")
    assert "**Tvar:** křižovatka" in base and "**Tvar:** crossing" not in base
    realm = (reference / "prophecy" / "cs" / "dragon_realm.md").read_text(encoding="utf-8")
    assert "dragon obstacle" not in realm and "**Pořadí:** lesser" not in realm and "**Pořadí:** nižší" in realm


def test_designer_notes_and_sources_only_with_designer(bundled: FrontEndResult, reference: Path,
                                                       tmp_path: Path) -> None:
    player = (reference / "karak" / "en" / "regent.md").read_text(encoding="utf-8")
    assert "*Note:*" not in player and "004_dc563c5159c76d25.txt" not in player
    write_reference(bundled.project, tmp_path, BuildOptions(designer=True))
    designer = (tmp_path / "reference" / "karak" / "en" / "regent.md").read_text(encoding="utf-8")
    assert "*Note:*" in designer and "004\\_dc563c5159c76d25.txt" in designer


def test_numbers_follow_the_language(bundled: FrontEndResult, tmp_path: Path) -> None:
    """A decimal value and a percentage are written the language's way: `1.5` and `12.5%` in English,
    `1,5` and `12,5 %` (no-break space) in Czech, `12,5%` in Polish."""
    from cardc.lexicon import load_lexicon

    lex = load_lexicon()
    assert lex.percent(0.125, "en") == "12.5%"
    assert lex.percent(0.125, "cs") == "12,5\u00a0%"
    assert lex.percent(0.125, "pl") == "12,5%"
    assert lex.percent(0.5, "de", digits=0) == "50\u00a0%"
    for lang in lex.languages:
        assert lex.pattern(lang, "decimal_sep") and lex.pattern(lang, "percent"), lang
    render_language(bundled.project, "karak", "cs", tmp_path / "cs", None)
    render_language(bundled.project, "karak", "en", tmp_path / "en", None)
    assert "<dd>1,5</dd>" in (tmp_path / "cs" / "base.html").read_text(encoding="utf-8")
    assert "<dd>1.5</dd>" in (tmp_path / "en" / "base.html").read_text(encoding="utf-8")


@given(st.one_of(st.text(), st.integers(), st.none(), st.text().map(Markup)))
def test_html_escape_is_markupsafe_s_escape(value: object) -> None:
    """The pages' and gallery's writer escapes each value as Jinja's autoescape did (markupsafe), Markup as it is."""
    assert html_escape(value) == str(escape(value))
