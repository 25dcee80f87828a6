"""Print sheets: files per game and language, page counts against copies, boxes, names with diacritics,
diagnostics (overflow, unknown size, bad settings, templates), escaping and byte-identical builds."""

from __future__ import annotations

import math
import os
import re
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from cardc.backends import BuildOptions
from cardc.backends.print import run
from cardc.backends.print.cards import CardTexts
from cardc.backends.print.fonts import font
from cardc.backends.print.imposition import fit
from cardc.backends.print.presets import PAPERS
from cardc.backends.print.textlayout import LEADING, fit_text
from cardc.frontend import FrontEndResult, compile_paths
from pypdf import PdfReader

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = Path("tests/fixtures/print")
MM = 72 / 25.4


def compile_fixture(path: Path = FIXTURE) -> FrontEndResult:
    old = Path.cwd()
    os.chdir(ROOT)
    try:
        return compile_paths([path])
    finally:
        os.chdir(old)


@pytest.fixture(scope="module")
def fixture_build(tmp_path_factory: pytest.TempPathFactory):  # noqa: ANN201
    result = compile_fixture()
    assert result.ok, [d.render() for d in result.diagnostics if d.is_error]
    out = tmp_path_factory.mktemp("print-fixture")
    # the fixture's `overlong` card cannot fit: printed cut off only because overflow is allowed here
    diags, sheets = run(result.project, out, BuildOptions(settings={"print.png": "false",
                                                                    "print.allow_overflow": "true"}))
    return result.project, out, diags, sheets


@pytest.fixture(scope="module")
def bundled_build(bundled: FrontEndResult, tmp_path_factory: pytest.TempPathFactory):  # noqa: ANN201
    if not bundled.ok:
        pytest.fail("the bundled content does not compile: " + bundled.errors()[0].render())
    out = tmp_path_factory.mktemp("print-bundled")
    diags, sheets = run(bundled.project, out, BuildOptions(settings={"print.png": "false"}))
    return bundled.project, out, diags, sheets


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def pdf_text(path: Path) -> str:
    """All text of a PDF, extracted with PDFium (as a reader would copy it)."""
    pdf = pdfium.PdfDocument(str(path))
    try:
        return "\n".join(pdf[i].get_textpage().get_text_range() for i in range(len(pdf)))
    finally:
        pdf.close()


def _check_build(project, out: Path, diags, sheets) -> None:  # noqa: ANN001
    assert not [d for d in diags if d.is_error], [d.render() for d in diags if d.is_error]
    for game_id, game in project.games.items():
        entities = project.physical_entities(game_id)
        if not entities:
            continue
        for lang in game.publish:
            texts = CardTexts(project, game_id, lang)
            for module in sorted({e.module for e in entities}):
                name = f"{game_id}-{lang}.pdf" if module == "base" else f"{game_id}-{lang}-{module}.pdf"
                path = out / "print" / name
                assert path.is_file(), f"missing {name}"
                mine = [e for e in entities if e.module == module]
                _check_file(path, mine, texts, [s for s in sheets if s.path == path][0])


def _check_file(path: Path, entities, texts: CardTexts, sheet) -> None:  # noqa: ANN001
    reader = PdfReader(path)
    pw, ph = PAPERS["a4"]
    # page count from the copies in the IR: per size, fronts in pages of `fit` cards, one back page each
    by_size: dict[tuple[float, float, bool], int] = {}
    for e in entities:
        size = _size(e, texts)
        by_size[size] = by_size.get(size, 0) + e.copies
    from cardc.backends.print.settings import PrintSettings

    expected_fronts = sum(math.ceil(n / fit(w, h, PrintSettings(), rnd).per_page) for (w, h, rnd), n in by_size.items())
    assert len(reader.pages) == 2 * expected_fronts, path.name
    fronts = sum(len(p.placements) for p in sheet.pages if p.side == "front")
    backs = sum(len(p.placements) for p in sheet.pages if p.side == "back")
    assert fronts == backs == sum(e.copies for e in entities)
    for page in reader.pages:
        size = sorted((float(page.mediabox.width), float(page.mediabox.height)))
        assert size == pytest.approx(sorted((pw * MM, ph * MM)), abs=0.01)
        trim, bleed, media = page.trimbox, page.bleedbox, page.mediabox
        for a, b in ((trim.left, bleed.left), (trim.bottom, bleed.bottom)):
            assert float(a) - float(b) == pytest.approx(3 * MM, abs=0.01)
        for a, b in ((bleed.right, trim.right), (bleed.top, trim.top)):
            assert float(a) - float(b) == pytest.approx(3 * MM, abs=0.01)
        assert float(media.left) <= float(bleed.left) and float(bleed.right) <= float(media.right)
        assert float(media.bottom) <= float(bleed.bottom) and float(bleed.top) <= float(media.top)
    text = _squash(pdf_text(path))
    for e in entities:
        name = texts.loc(e.name)
        assert _squash(name) in text, f"{name!r} ({e.id}) not in {path.name}"


def _size(e, texts: CardTexts) -> tuple[float, float, bool]:  # noqa: ANN001
    from cardc.backends.print.presets import card_size

    kd = texts.project.kinds[(e.game, e.kind)]
    size = card_size(kd.size or "poker") or card_size("poker")
    return (size.w, size.h, size.shape == "round")


def test_bundled_content_prints_every_game_and_language(bundled_build) -> None:  # noqa: ANN001
    project, out, diags, sheets = bundled_build
    assert "karak" in project.games and len(project.games["karak"].publish) == 6
    _check_build(project, out, diags, sheets)
    made = {p.name for p in (out / "print").glob("*.pdf")}
    for lang in ("cs", "en", "sk", "de", "pl", "fr"):
        assert f"karak-{lang}.pdf" in made
    if "prophecy" in project.games:
        assert {"prophecy-cs.pdf", "prophecy-en.pdf"} <= made


def test_fixture_sheets_counts_boxes_and_names(fixture_build) -> None:  # noqa: ANN001
    project, out, diags, sheets = fixture_build
    _check_build(project, out, diags, sheets)
    text = {lang: pdf_text(out / "print" / f"dungeon-{lang}.pdf") for lang in ("cs", "sk", "pl", "de", "en")}
    assert "Tŕň temnoty" in text["sk"] and "Tŕň temnoty" in text["cs"]
    assert "Mrazivá pěst" in text["cs"] and "Mroźna pięść" in text["pl"]
    assert "Riesenfledermaus" in text["de"] and "Frostfaust" in text["de"]
    assert "Žofia Šťastná" in text["sk"]
    # a name missing in a language falls back to the game's fallback (en)
    assert "Cursed chamber" in text["sk"] and "Prokletá komnata" not in text["sk"]


def test_card_data_is_only_data(fixture_build) -> None:  # noqa: ANN001
    _project, out, _diags, _sheets = fixture_build
    text = pdf_text(out / "print" / "dungeon-en.pdf")
    assert '"; import os {{ x }} <script>' in text
    assert 'Data: {% raw %} x=1 " ) ( \\' in text


def test_overlong_text_is_reported_with_card_language_and_box(fixture_build) -> None:  # noqa: ANN001
    _project, _out, diags, _sheets = fixture_build
    overflow = [d for d in diags if d.code == "W602"]
    assert len(overflow) == 1, [d.message for d in overflow]
    d = overflow[0]
    assert "`overlong`" in d.message and "`cs`" in d.message and "`rules`" in d.message
    assert d.span.file.endswith("cards.cardc") and d.span.line > 1


def test_overflow_is_an_error_that_fails_the_build(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from cardc.cli import main

    code = main(["build", str(ROOT / FIXTURE), "--out", str(tmp_path / "gen"), "--only", "print", "--png", "false"])
    err = capsys.readouterr().err
    assert code == 1 and not (tmp_path / "gen").exists()
    [line] = [x for x in err.splitlines() if "error[E602]" in x]
    assert "`rules` of event `overlong`" in line and "language `cs`" in line and "cards.cardc:" in line
    assert "--allow-overflow" in err


def test_labels_and_icons_come_from_the_content(fixture_build) -> None:  # noqa: ANN001
    from cardc.backends.print.icons import ICONS

    _project, out, diags, sheets = fixture_build
    assert "door" in ICONS  # the fixture's own SVG (icons/door.svg), declared on `attr exits`
    assert not [d for d in diags if d.code == "W604" and "door" in d.message]
    [sheet] = [s for s in sheets if s.lang == "en"]
    front = sheet.faces["chamber"][0]
    assert ":door: Exits 3" in front  # label and icon as the kind declares them, not the attribute's id
    text = pdf_text(out / "print" / "dungeon-en.pdf")
    assert "Exits" in text and "exits" not in text.replace("Exits", "")


def test_min_text_is_the_one_floor(tmp_path: Path) -> None:
    """A template's own `min` may ask for more, never for less than the maker's --min-text."""
    from cardc.backends.print.render import draw_face
    from cardc.backends.print.settings import PrintSettings
    from cardc.backends.print.sheets import canvas
    from cardc.backends.print.templates import parse_elements

    line = 'text rules x=2 y=2 w=30 h=8 size=9 min=3 text="' + "slovo " * 30 + '"'
    els = parse_elements(line, "t")
    c = canvas(str(tmp_path / "m.pdf"))
    loose = draw_face(c, els, 40, 40, 3, PrintSettings(min_text=3), lambda _r: None)
    strict = draw_face(c, els, 40, 40, 3, PrintSettings(min_text=6), lambda _r: None)
    assert not loose.overflow  # fits at 3 pt
    assert strict.overflow == [("rules", 6.0)]  # the template's min=3 does not undercut --min-text 6


def test_round_text_stays_inside_the_circle() -> None:
    from cardc.backends.print.textlayout import Box, fit_text

    f = font("regular")
    r = 15 * MM
    box = Box(0, 2 * r, 2 * r, 2 * r, r, r, r)  # the circle's bounding square, y up
    text = "slovo " * 24
    layout = fit_text(text, f, 2 * r, 2 * r, 6, 5, box)
    square = fit_text(text, f, 2 * r, 2 * r, 6, 5)
    # narrower lines near the top and bottom of the circle
    assert not layout.overflow and len(layout.lines) > len(square.lines)
    space = f.width(" ")
    y = 0.0
    for words, _first in layout.lines:
        left, right = box.span(box.top - y, box.top - y - LEADING * layout.size)
        width = (sum(w.width for w in words) + space * max(0, len(words) - 1)) * layout.size
        assert width <= right - left + 1e-6
        y += LEADING * layout.size


def test_unknown_size_is_a_diagnostic(fixture_build) -> None:  # noqa: ANN001
    _project, _out, diags, _sheets = fixture_build
    [d] = [d for d in diags if d.code == "W603"]
    assert "gigantic_scroll" in d.message and d.hint and "print.size.gigantic_scroll" in d.hint


def test_two_builds_are_byte_identical(tmp_path: Path) -> None:
    project = compile_fixture().project
    options = BuildOptions(settings={"print.png_dpi": "40"})
    run(project, tmp_path / "a", options)
    run(project, tmp_path / "b", options)
    files = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*") if p.is_file())
    assert any(f.suffix == ".png" for f in files) and any(f.suffix == ".pdf" for f in files)
    for f in files:
        assert (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes(), f


def test_per_card_pngs_have_the_card_size(tmp_path: Path) -> None:
    from PIL import Image

    project = compile_fixture().project
    run(project, tmp_path, BuildOptions(settings={"print.png_dpi": "100"}))
    folder = tmp_path / "print" / "png" / "dungeon-cs"
    with Image.open(folder / "ambush.png") as im:
        w, h = im.size  # poker + 2 x 3 mm bleed, at 100 dpi (pdfium rounds up)
        assert abs(w - 69 / 25.4 * 100) < 1 and abs(h - 94 / 25.4 * 100) < 1
    assert (folder / "ambush-back.png").is_file() and (folder / "zofie.png").is_file()


def test_bad_settings_are_diagnostics_not_tracebacks(tmp_path: Path) -> None:
    project = compile_fixture().project
    diags, sheets = run(project, tmp_path, BuildOptions(settings={
        "print.paper": "b5", "print.bleed": "-1", "print.back_offset": "x", "print.colour": "red"}))
    assert sheets == [] and len([d for d in diags if d.code == "E600" and d.is_error]) == 4


def test_letter_paper_fold_and_simplex(tmp_path: Path) -> None:
    project = compile_fixture().project
    _d, letter = run(project, tmp_path / "l", BuildOptions(settings={"print.paper": "letter", "print.png": "no"}))
    page = PdfReader(letter[0].path).pages[0]
    assert sorted((float(page.mediabox.width), float(page.mediabox.height))) == pytest.approx(
        sorted((215.9 * MM, 279.4 * MM)), abs=0.01)
    _d, fold = run(project, tmp_path / "f", BuildOptions(settings={"print.duplex": "fold", "print.png": "no"}))
    assert all(p.side == "fold" for s in fold for p in s.pages)
    assert len(PdfReader(fold[0].path).pages) == len(fold[0].pages)
    _d, simplex = run(project, tmp_path / "s", BuildOptions(settings={"print.duplex": "none", "print.png": "no"}))
    assert all(p.side == "front" for s in simplex for p in s.pages)


def test_designer_template_overrides_the_bundled_one_and_runs_sandboxed(tmp_path: Path) -> None:
    content = tmp_path / "content"
    (content / "dungeon" / "templates").mkdir(parents=True)
    (content / "cardc.toml").write_text((ROOT / FIXTURE / "cardc.toml").read_text())
    for f in ("game.cardc", "cards.cardc"):
        (content / "dungeon" / f).write_text((ROOT / FIXTURE / "dungeon" / f).read_text())
    tpl = content / "dungeon" / "templates"
    (tpl / "event.j2").write_text("fill color=white\ntext name x=3 y=3 w=50 h=10 text={{ 'CUSTOM ' ~ card.name }}\n")
    project = compile_paths([content]).project
    diags, sheets = run(project, tmp_path / "out", BuildOptions(settings={"print.png": "0"}))
    text = pdf_text(sheets[0].path)
    assert "CUSTOM Přepadení" in text.replace("\n", " ")
    (tpl / "event.j2").write_text("text x=1 y=1 w=5 h=5 text={{ card.__class__.__mro__ }}\n")
    (tpl / "tile.j2").write_text("fill color=white\nbogus x=1\n")
    diags, _ = run(project, tmp_path / "out2", BuildOptions(settings={"print.png": "0"}))
    errors = [d for d in diags if d.code == "E601"]
    assert any("event" in d.message and "unsafe" in d.message.lower() for d in errors), [d.message for d in errors]
    assert any("tile" in d.message and "bogus" in d.message for d in errors)


def test_text_shrinks_to_fit_then_reports_overflow() -> None:
    f = font("regular")
    short = fit_text("Krátký text.", f, 50 * MM, 20 * MM, 9, 5)
    assert short.size == 9 and not short.overflow
    long = fit_text("slovo " * 60, f, 50 * MM, 20 * MM, 9, 5)
    assert 5 <= long.size < 9 and not long.overflow
    assert long.height <= 20 * MM
    too_long = fit_text("slovo " * 400, f, 50 * MM, 20 * MM, 9, 5)
    assert too_long.overflow and too_long.size == 5


def test_icon_only_line_keeps_the_baseline_grid() -> None:
    f = font("regular")
    mixed = fit_text("Ztratíš život:\n:heart: :heart:", f, 50 * MM, 30 * MM, 8, 5)
    assert [len(words) for words, _ in mixed.lines] == [2, 2]
    icons = mixed.lines[1][0][0].pieces
    assert icons == (("icon", "heart"),)
    text_only = fit_text("Ztratíš život:\nDva životy", f, 50 * MM, 30 * MM, 8, 5)
    assert mixed.height == text_only.height == pytest.approx(8 * (2 * LEADING + 0.35))


def test_kerning_is_applied() -> None:
    f = font("regular")
    assert f.width("AV") < f.width("A") + f.width("V")
    assert f.width("To") < f.width("T") + f.width("o")


def test_fonts_are_embedded_subsets(fixture_build) -> None:  # noqa: ANN001
    _project, out, _diags, _sheets = fixture_build
    reader = PdfReader(out / "print" / "dungeon-pl.pdf")
    embedded = set()
    for page in reader.pages:
        fonts = page["/Resources"]["/Font"]
        for ref in fonts.values():
            f = ref.get_object()
            if f.get("/Subtype") == "/TrueType" or "/DescendantFonts" in f:
                desc = f.get("/FontDescriptor") or f["/DescendantFonts"][0].get_object()["/FontDescriptor"]
                desc = desc.get_object()
                assert "/FontFile2" in desc, f["/BaseFont"]
                embedded.add(str(f["/BaseFont"]).split("+")[-1])
    assert any("DejaVuSans" in name for name in embedded), embedded


def test_cut_lines_and_calibration_pages(tmp_path: Path) -> None:
    project = compile_fixture().project
    _d, sheets = run(project, tmp_path, BuildOptions(settings={"print.cut_lines": "true", "print.png": "no",
                                                                "print.duplex": "short"}))
    for page in sheets[0].pages:
        xs = {p.x for p in page.placements}
        assert {seg.x1 for seg in page.cut_lines if seg.x1 == seg.x2} >= xs
        assert all(seg.y1 == 0 and seg.y2 == page.height for seg in page.cut_lines if seg.x1 == seg.x2)
    calibration = PdfReader(tmp_path / "print" / "calibration-a4.pdf")
    assert len(calibration.pages) == 4  # front and back, portrait and landscape


def test_cli_print_flags(tmp_path: Path) -> None:
    from cardc.cli import main

    code = main(["build", str(ROOT / FIXTURE), "--out", str(tmp_path / "gen"), "--only", "print", "--paper",
                 "letter", "--bleed", "2", "--duplex", "short", "--back-offset", "0.5,-1", "--png", "false",
                 "--allow-overflow", "--layout", "gutter=1"])
    assert code == 0
    page = PdfReader(tmp_path / "gen" / "print" / "dungeon-cs.pdf").pages[0]
    assert float(page.bleedbox.left) == pytest.approx(float(page.trimbox.left) - 2 * MM, abs=0.01)
    assert not (tmp_path / "gen" / "print" / "png").exists()
    assert main(["build", str(ROOT / FIXTURE), "--out", str(tmp_path / "bad"), "--only", "print",
                 "--bleed", "lots"]) == 2  # a command-line error, found before any work
    assert not (tmp_path / "bad").exists()


def test_backs_are_shared_per_deck_else_per_kind(fixture_build) -> None:  # noqa: ANN001
    _project, _out, _diags, sheets = fixture_build
    [sheet] = [s for s in sheets if s.lang == "en"]
    back = {key: faces[1] for key, faces in sheet.faces.items()}
    assert back["ambush"] == back["tricky"]  # deck `dangers`
    assert back["overlong"] != back["ambush"]  # deck `wonders`
    assert "Dangers" in back["ambush"] and "Wonders" in back["overlong"]
    assert back["scroll"] != back["ambush"] and "Oddity" in back["scroll"]  # no deck: the kind's back
    assert back["bat"] != back["thorn"] and "Thorn of darkness" in back["bat"]  # a monster's reward: per card


def test_drawn_text_carries_the_kerning(tmp_path: Path) -> None:
    from cardc.backends.print.sheets import canvas
    from cardc.backends.print.textlayout import Box, draw_layout

    f = font("regular")
    c = canvas(str(tmp_path / "k.pdf"))
    layout = fit_text("AVATAR To Wá", f, 80 * MM, 20 * MM, 10, 5)
    draw_layout(c, layout, f, Box(10, 200, 80 * MM, 20 * MM), "left", "top", set())
    tj = [part for part in c._code if "TJ" in part]
    assert tj and re.search(r"\) -?\d+ \(", tj[0]), tj  # kerning adjustments between glyph runs
    c.showPage()
    c.save()
    assert "AVATAR To Wá" in pdf_text(tmp_path / "k.pdf")


def test_each_text_is_fitted_once_per_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The sheets, the PNGs (which measure every face before drawing any) and the rulebooks share one fitting of
    each text box: a text fitted twice means a cache key that differs between them or a cache too small for the
    build (the 4,096 layouts kept before were a tenth of a 10,000-card build's, so the PNGs fitted most texts
    twice more)."""
    from cardc.backends.print import render, textlayout

    calls: list[tuple[str, float, float]] = []
    real = render.fit_text

    def counted(text: str, f, width: float, height: float, *rest):  # noqa: ANN001, ANN202
        calls.append((text, width, height))
        return real(text, f, width, height, *rest)

    monkeypatch.setattr(render, "fit_text", counted)
    monkeypatch.setattr(render, "_FITTED", {})
    monkeypatch.setattr(textlayout, "_WORDS", {})
    project = compile_fixture().project
    run(project, tmp_path / "a", BuildOptions(settings={"print.png_dpi": "40", "print.allow_overflow": "true"}))
    assert calls and len(calls) == len(set(calls)), "a text box was fitted again"
    # the words of every layout kept are shared: each is the one object `words_of` keeps for it
    kept = {id(w) for known in textlayout._WORDS.values() for w in known.values()}
    words = [w for layout, _box in render._FITTED.values() for line, _first in layout.lines for w in line]
    assert words and all(id(w) in kept for w in words) and len(kept) < len(words)


def test_shared_words_fit_as_new_ones() -> None:
    """`words_of` hands out the same word objects for known words: layouts fitted with a warm table equal the ones
    fitted from nothing (sizes, lines, widths)."""
    from cardc.backends.print import textlayout

    f = font("regular")
    texts = ["Zahoď kartu a lízni dvě. Zahoď kartu:\n:sword: +2 ve fázi souboje", "slovo " * 50,
             "AVATAR To Wá — tečka."]
    kept = dict(textlayout._WORDS)
    try:
        textlayout._WORDS.clear()
        cold = [fit_text(t, f, 50 * MM, 20 * MM, 9, 5) for t in texts]
        warm = [fit_text(t, f, 50 * MM, 20 * MM, 9, 5) for t in texts]
    finally:
        textlayout._WORDS.clear()
        textlayout._WORDS.update(kept)
    assert cold == warm
    assert cold[1].lines[0][0][0] is cold[1].lines[0][0][1]  # "slovo" twice: one object


def test_print_leaves_the_cyclic_collector_as_it_found_it(tmp_path: Path) -> None:
    """The print backend runs its face phases without cyclic collections: the collector is on again after it (off if
    the caller had it off), and outside a build's frozen heap nothing is left frozen."""
    import gc

    from cardc import collector

    result = compile_fixture()
    assert gc.isenabled() and gc.get_freeze_count() == 0
    run(result.project, tmp_path / "on", BuildOptions(settings={"print.allow_overflow": "true"}))
    assert gc.isenabled() and gc.get_freeze_count() == 0
    gc.disable()
    try:
        run(result.project, tmp_path / "off", BuildOptions(settings={"print.allow_overflow": "true"}))
        assert not gc.isenabled()
    finally:
        gc.enable()
    with collector.frozen():  # as in a build: what print made is frozen with the rest, and unfrozen after
        before = gc.get_freeze_count()
        run(result.project, tmp_path / "frozen", BuildOptions(settings={"print.allow_overflow": "true"}))
        assert gc.get_freeze_count() > before
    assert gc.get_freeze_count() == 0


def test_copies_of_one_face_are_one_file_under_many_names(tmp_path: Path) -> None:
    """A deck's shared back is drawn once and, without a build cache too, written once: every other card's back
    file is a second name for it (creating thousands of identical files cost seconds of kernel time)."""
    result = compile_fixture()
    run(result.project, tmp_path, BuildOptions(settings={"print.allow_overflow": "true"}))
    pngs = {p.name: p for p in tmp_path.rglob("*.png") if "-en" in p.parent.name or p.parent.name.endswith("en")}
    ambush, tricky, bat, thorn = (pngs[f"{key}-back.png"] for key in ("ambush", "tricky", "bat", "thorn"))
    assert ambush.read_bytes() == tricky.read_bytes()
    assert ambush.stat().st_ino == tricky.stat().st_ino  # the deck's back: one file
    assert bat.stat().st_ino != thorn.stat().st_ino  # a monster's reward is on its own back
    assert bat.read_bytes() != thorn.read_bytes()
