"""Tabletop Simulator saved objects (`export/tts/<game>-<lang>.json`): card counts equal copies, CardIDs
agree with the CustomDeck sheets, sheets hold at most 69 cards plus the hidden face, names in each
language, image URLs, sheet images, settings."""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from cardc.backends import BuildOptions
from cardc.backends.export import faces, write_export
from cardc.backends.export.sheets import CARDS_PER_SHEET, MAX_SHEET_PX, grid
from cardc.backends.export.tts import write_tts
from cardc.frontend import FrontEndResult, compile_paths
from cardc.model import Project
from PIL import Image

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "export"
NO_IMAGES = BuildOptions(settings={"tts_images": "false"})


def _compile(folder: Path) -> Project:
    old = Path.cwd()
    os.chdir(folder)
    try:
        result = compile_paths([Path(".")])
    finally:
        os.chdir(old)
    assert result.ok, [d.render() for d in result.diagnostics if d.is_error]
    return result.project


@pytest.fixture(scope="module")
def tavern() -> Project:
    return _compile(FIXTURE)


@pytest.fixture(scope="module")
def tavern_out(tavern: Project, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("tts")
    assert write_export(tavern, out, BuildOptions()) == []
    return out / "export" / "tts"


@pytest.fixture(scope="module")
def bundled_out(bundled: FrontEndResult, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("tts-bundled")
    assert write_tts(bundled.project, out, NO_IMAGES) == []
    return out / "export" / "tts"


def _load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def _cards(obj: dict[str, Any]) -> list[dict[str, Any]]:
    return obj["ContainedObjects"] if obj["Name"] in ("DeckCustom", "Bag") else [obj]


# Tabletop Simulator's documented shape tables (knowledge base: custom deck card types, custom tile types).
TTS_CARD_TYPES = {0: "rectangle (rounded)", 1: "rectangle", 2: "hex (rounded)", 3: "hex", 4: "circle"}
TTS_TILE_TYPES = {0: "box", 1: "hex", 2: "circle", 3: "rounded"}


def _check_tiles(obj: dict[str, Any], by_key: dict[str, Any], seen: Counter[str]) -> None:
    """A bag of Custom_Tile pieces (or one piece): each copy once, a TTS tile shape, an image per side."""
    pieces = _cards(obj)
    if obj["Name"] == "Bag":
        assert len(pieces) >= 2
    for piece in pieces:
        assert piece["Name"] == "Custom_Tile"
        image = piece["CustomImage"]
        assert image["CustomTile"]["Type"] in TTS_TILE_TYPES
        assert image["ImageURL"] and image["ImageSecondaryURL"]
        seen[by_key[piece["GMNotes"]].key] += 1


def _check_save(save: dict[str, Any], project: Project, game: str, lang: str) -> None:
    """Every structural promise of the saved-object file, against the IR it came from."""
    by_key = {e.key: e for e in project.entities_of(game)}
    numbers: list[int] = []
    seen: Counter[str] = Counter()
    for obj in save["ObjectStates"]:
        assert obj["Name"] in ("DeckCustom", "CardCustom", "Bag", "Custom_Tile")
        if obj["Name"] in ("Bag", "Custom_Tile"):
            _check_tiles(obj, by_key, seen)
            continue
        cards = _cards(obj)
        decks = obj["CustomDeck"]
        numbers.extend(int(n) for n in decks)
        if obj["Name"] == "DeckCustom":
            assert len(cards) >= 2
            assert obj["DeckIDs"] == [c["CardID"] for c in cards]
            entities = {by_key[c["GMNotes"]].key: by_key[c["GMNotes"]] for c in cards}
            assert len(cards) == sum(e.copies or 0 for e in entities.values())  # each card `copies` times
        for c in cards:
            e = by_key[c["GMNotes"]]
            seen[e.key] += 1
            deck_no, index = divmod(c["CardID"], 100)
            sheet = decks[str(deck_no)]
            assert c["CustomDeck"] == {str(deck_no): sheet}
            cols, rows = sheet["NumWidth"], sheet["NumHeight"]
            assert 2 <= cols <= 10 and 2 <= rows <= 7
            assert 0 <= index < cols * rows - 1, "the last cell is the hidden face, never a card"
            assert sheet["BackIsHidden"] is False
            assert sheet["Type"] in TTS_CARD_TYPES
            expected = e.name.get(lang) or e.name.get(project.games[game].fallback)
            assert c["Nickname"] == expected
    assert len(numbers) == len(set(numbers)), "deck numbers are unique within the file"
    for key, count in seen.items():
        assert count == by_key[key].copies
    assert set(seen) == {e.key for e in project.physical_entities(game)}


def test_bundled_decks_hold_every_copy(bundled: FrontEndResult, bundled_out: Path) -> None:
    project = bundled.project
    files = sorted(p.name for p in bundled_out.glob("*.json"))
    expected = sorted(f"{g}-{lang}.json" for g, game in project.games.items()
                      for lang in (game.publish or game.languages) if project.physical_entities(g))
    assert files == expected
    for name in files:
        game, lang = name[:-5].rsplit("-", 1)
        _check_save(_load(bundled_out / name), project, game, lang)


def test_fixture_decks_and_names(tavern: Project, tavern_out: Path) -> None:
    for lang in ("cs", "en", "de"):
        _check_save(_load(tavern_out / f"tavern-{lang}.json"), tavern, "tavern", lang)
    text = (tavern_out / "tavern-cs.json").read_text(encoding="utf-8")
    assert "Zdeňka Ťuková" in text and "Karel Čížek" in text  # diacritics kept as they are
    save = _load(tavern_out / "tavern-de.json")
    nick = {c["GMNotes"]: c["Nickname"] for obj in save["ObjectStates"] for c in _cards(obj)}
    assert nick["slivovice"] == "Zwetschgenbrand" and nick["beer"] == "Beer"  # German, else the fallback
    decks = {obj["Nickname"]: obj for obj in save["ObjectStates"]}
    assert "Absinthe" in decks and decks["Absinthe"]["Name"] == "Custom_Tile"  # a single token stands alone
    assert decks["Absinthe"]["CustomImage"]["CustomTile"]["Type"] == 2  # TTS's circle tile


def test_hostile_names_stay_data(tavern_out: Path) -> None:
    for lang, name in (("cs", "\"; import os"), ("en", "{{ x }}"), ("de", "<script>alert(1)</script>")):
        text = (tavern_out / f"tavern-{lang}.json").read_text(encoding="utf-8")
        cards = [c for obj in json.loads(text)["ObjectStates"] for c in _cards(obj) if c["GMNotes"] == "hostile"]
        assert cards and all(c["Nickname"] == name for c in cards)
    assert '"Nickname": "\\"; import os"' in (tavern_out / "tavern-cs.json").read_text(encoding="utf-8")


def test_descriptions_are_rules_text(tavern: Project, tavern_out: Path) -> None:
    from cardc.textgen import entity_rules_text

    karel = next(e for e in tavern.entities if e.id == "karel" and not e.errata)
    save = _load(tavern_out / "tavern-en.json")
    card = next(c for obj in save["ObjectStates"] for c in _cards(obj) if c["GMNotes"] == "karel")
    assert card["Description"] == "\n".join(t for t in entity_rules_text(tavern, karel, "en") if t)
    assert card["Description"]


def _urls(node: Any) -> list[str]:
    """Every image URL anywhere in a saved object (decks, cards, bags, tiles)."""
    if isinstance(node, dict):
        found = [v for k, v in node.items() if k.endswith("URL") and isinstance(v, str)]
        return found + [u for v in node.values() for u in _urls(v)]
    if isinstance(node, list):
        return [u for v in node for u in _urls(v)]
    return []


def test_every_url_resolves_to_a_built_file(tavern_out: Path) -> None:
    """By default TTS gets absolute file:/// URLs it can load as they are, each naming a file the build wrote."""
    from urllib.parse import unquote, urlparse

    for path in sorted(tavern_out.glob("*.json")):
        urls = _urls(_load(path))
        assert urls
        for url in urls:
            parsed = urlparse(url)
            assert parsed.scheme == "file", url
            target = Path(unquote(parsed.path))
            assert target.is_absolute() and target.is_file(), url
            assert target.resolve().is_relative_to(tavern_out.resolve())


def test_images_exist_and_match_the_grid(tavern_out: Path) -> None:
    save = _load(tavern_out / "tavern-cs.json")
    sheets = {n: d for obj in save["ObjectStates"] for n, d in obj.get("CustomDeck", {}).items()}
    assert sheets
    for sheet in sheets.values():
        for key in ("FaceURL", "BackURL"):
            with Image.open(_file(sheet[key])) as img:
                assert max(img.size) <= MAX_SHEET_PX
                if key == "FaceURL" or sheet["UniqueBack"]:
                    assert img.width % sheet["NumWidth"] == 0 and img.height % sheet["NumHeight"] == 0


def _file(url: str) -> Path:
    from urllib.parse import unquote, urlparse

    return Path(unquote(urlparse(url).path))


def test_base_url_setting_prefixes_every_url(tavern: Project, tmp_path: Path) -> None:
    write_tts(tavern, tmp_path, BuildOptions(settings={"tts_images": "false",
                                                      "tts_base_url": "https://example.org/tavern/"}))
    save = _load(tmp_path / "export" / "tts" / "tavern-en.json")
    urls = _urls(save)
    assert urls and all(u.startswith("https://example.org/tavern/img/tavern-en-") for u in urls)
    assert not (tmp_path / "export" / "tts" / "img").exists()


def test_bad_setting_is_a_diagnostic(tavern: Project, tmp_path: Path) -> None:
    diags = write_tts(tavern, tmp_path, BuildOptions(settings={"tts_images": "maybe"}))
    assert [d.code for d in diags] == ["E600"] and diags[0].is_error
    assert "tts_images" in diags[0].message


def test_grid_reserves_the_hidden_cell() -> None:
    for n in range(1, CARDS_PER_SHEET + 1):
        cols, rows = grid(n)
        assert 2 <= cols <= 10 and 2 <= rows <= 7
        assert n <= cols * rows - 1  # room for the cards and the hidden face
        assert rows == 2 or cols * rows - 1 < n + cols  # no spare row above TTS's 2 x 2 minimum
    assert grid(CARDS_PER_SHEET) == (10, 7)
    with pytest.raises(ValueError):
        grid(CARDS_PER_SHEET + 1)


def test_many_cards_split_into_several_sheets(tmp_path: Path) -> None:
    game = tmp_path / "big"
    game.mkdir()
    cards = "\n".join(f'card c{i} {{ name: {{ en "Card {i}" }} copies: {1 + i % 3} }}' for i in range(75))
    (game / "game.cardc").write_text(
        "module big\ngame big { name: { en \"Big\" } languages: [en] fallback: en }\n"
        "kind card { name: { en \"Card\" } physical: true }\n" + cards + "\n", encoding="utf-8")
    project = _compile(tmp_path)
    write_tts(project, tmp_path / "out", BuildOptions())
    folder = tmp_path / "out" / "export" / "tts"
    save = _load(folder / "big-en.json")
    _check_save(save, project, "big", "en")
    (deck,) = save["ObjectStates"]
    sheets = deck["CustomDeck"]
    assert [(s["NumWidth"], s["NumHeight"]) for s in sheets.values()] == [(10, 7), (7, 2)]
    assert len(deck["ContainedObjects"]) == sum(1 + i % 3 for i in range(75))
    with Image.open(_file(sheets["1"]["FaceURL"])) as img:
        assert img.width % 10 == 0 and img.height % 7 == 0 and max(img.size) <= MAX_SHEET_PX


def test_printed_face_is_cropped_to_the_trim(tmp_path: Path) -> None:
    """A print PNG (with 3 mm bleed at 100 dpi) loses its bleed; the trim is what the sheet shows."""
    dpi, w_mm, h_mm, bleed = 100, 63.0, 88.0, 3.0
    px = lambda mm: round(mm / 25.4 * dpi)  # noqa: E731
    img = Image.new("RGB", (px(w_mm + 2 * bleed), px(h_mm + 2 * bleed)), "red")
    img.paste(Image.new("RGB", (px(w_mm), px(h_mm)), "blue"), (px(bleed), px(bleed)))
    path = tmp_path / "card.png"
    img.save(path, dpi=(dpi, dpi))
    face = faces.printed_face(path, w_mm, h_mm, (63, 88))
    assert face is not None and face.size == (63, 88)
    colors = {c for _, c in face.getcolors(10_000) or []}
    assert all(b > 200 and r < 60 for r, _, b in colors), colors
    assert faces.printed_face(tmp_path / "missing.png", w_mm, h_mm, (63, 88)) is None


def test_drawn_face_fits_long_text() -> None:
    face = faces.FaceText("Žluťoučký kůň", "Host", ("síla 3",), ("slovo " * 400,), True)
    img = faces.draw_face(face, 180, 250, "#2e4a7a")
    assert img.size == (180, 250)


def test_print_faces_are_reused_when_print_ran(tavern: Project, tmp_path: Path) -> None:
    """Built with the print backend, sheets show its faces (the screen faces inside its PNGs); backs are its
    per-card backs as a sheet (UniqueBack) where they differ, else the one printed back the sheet's cards share,
    as a single card-sized image."""
    import shutil

    from cardc.build import build

    shutil.copytree(FIXTURE, tmp_path / "src")
    (tmp_path / "src" / "tavern" / "templates").mkdir()
    (tmp_path / "src" / "tavern" / "templates" / "guest.back.j2").write_text(  # a back of its own for every guest
        "fill color=#334455\ntext who x=5 y=40 w=50 h=10 size=9 color=#ffffff text={{ card.name }}\n",
        encoding="utf-8")
    tavern = _compile(tmp_path / "src")
    out = tmp_path / "gen"
    build(tavern, out, BuildOptions(only=frozenset({"print", "export"}), settings={"print.png_dpi": "60"}))
    save = _load(out / "export" / "tts" / "tavern-en.json")
    decks = {n: d for obj in save["ObjectStates"] for n, d in obj.get("CustomDeck", {}).items()}
    printed_backs: dict[str, set[bytes]] = {}
    for obj in save["ObjectStates"]:
        for card in _cards(obj):
            if "CardID" in card:
                (back,) = (out / "print" / "png").glob(f"*-en*/{card['GMNotes'].replace(':', '.')}-back.png")
                printed_backs.setdefault(str(card["CardID"] // 100), set()).add(_screen_bytes(back))
    assert decks and set(printed_backs) == set(decks)
    assert {d["UniqueBack"] for d in decks.values()} == {True, False}  # the fixture has both kinds of backs
    for number, deck in decks.items():
        assert deck["UniqueBack"] == (len(printed_backs[number]) > 1)
        with Image.open(_file(deck["FaceURL"])) as face, Image.open(_file(deck["BackURL"])) as back:
            cell = (face.width // deck["NumWidth"], face.height // deck["NumHeight"])
            assert back.size == (face.size if deck["UniqueBack"] else cell)
            if not deck["UniqueBack"]:  # the printed back, not a drawn one: its colours are the printed PNG's
                (png,) = printed_backs[number]
                (tmp_path / "back.png").write_bytes(png)
                expected = faces.printed_face(tmp_path / "back.png", 63.5, 88.9, cell)
                assert expected is not None and back.convert("RGB").tobytes() == expected.tobytes()
    alone = tmp_path / "alone"
    write_tts(tavern, alone, BuildOptions())
    first = next(iter(decks.values()))["FaceURL"]
    second = first.replace(out.resolve().as_uri(), alone.resolve().as_uri())
    assert second != first
    with Image.open(_file(first)) as a, Image.open(_file(second)) as b:
        assert a.size == b.size and a.tobytes() != b.tobytes()


def test_descriptions_carry_abilities(bundled: FrontEndResult, bundled_out: Path) -> None:
    """A hero's description holds its own rules text and each ability's, named, in the file's language."""
    from cardc.textgen import entity_rules_text

    project = bundled.project
    for game in sorted(project.games):
        children: dict[str, list[Any]] = {}
        for e in project.entities_of(game):
            if e.parent is not None and not e.errata:
                children.setdefault(e.parent, []).append(e)
        for lang in ("en", "cs"):
            save = _load(bundled_out / f"{game}-{lang}.json")
            pieces = {c["GMNotes"]: c for obj in save["ObjectStates"] for c in _cards(obj)}
            checked = 0
            for key, piece in pieces.items():
                for child in children.get(key, ()):
                    text = " ".join(t for t in entity_rules_text(project, child, lang) if t)
                    if text:
                        name = child.name.get(lang) or child.name.get(project.games[game].fallback)
                        assert f"{name}: {text}" in piece["Description"]
                        checked += 1
            if game == "karak":
                assert checked >= 8, "every Karak hero's abilities travel with the hero"


def test_tokens_and_tiles_are_tts_tiles_in_bags(bundled_out: Path) -> None:
    """Round tokens are circle tiles, square map tiles box tiles, each kind of a module in one bag."""
    save = _load(bundled_out / "karak-en.json")
    bags = [obj for obj in save["ObjectStates"] if obj["Name"] == "Bag"]
    assert bags
    types = {piece["CustomImage"]["CustomTile"]["Type"] for bag in bags for piece in bag["ContainedObjects"]}
    assert types == {0, 2}  # box tiles and circle tokens
    for obj in save["ObjectStates"]:
        for deck in obj.get("CustomDeck", {}).values():
            assert deck["Type"] in (0, 4)


def test_build_says_where_to_copy_the_saved_objects(tmp_path: Path) -> None:
    from cardc.cli import main

    out = tmp_path / "gen"
    import contextlib
    import io

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        rc = main(["build", str(FIXTURE / "tavern"), "--out", str(out), "--only", "export", "--tts-images", "false"])
    assert rc == 0
    text = err.getvalue()
    assert "Saved Objects" in text and str(out / "export" / "tts") in text
    save = _load(out / "export" / "tts" / "tavern-en.json")
    assert all(u.startswith(out.resolve().as_uri()) for u in _urls(save))


def test_sheet_canvas_is_the_pasted_sheet() -> None:
    """The sheet written row by row into PNG scanlines has the pixels of the same cells pasted by Pillow, and
    unused cells are grey."""
    import io

    from cardc.backends.export.sheets import SheetCanvas

    cell, cols, rows = (7, 5), 3, 2
    cells = [Image.new("RGB", cell, (40 * i, 255 - 30 * i, 7 * i)) for i in range(4)]
    cells[1].putpixel((0, 0), (1, 2, 3))
    cells[2].putpixel((6, 4), (250, 251, 252))  # corners land in the right place
    canvas = SheetCanvas(cols, rows, cell)
    expected = Image.new("RGB", (cols * cell[0], rows * cell[1]), "#808080")
    for i, img in zip((0, 1, 2, 5), cells, strict=True):
        canvas.paste(i, img)
        expected.paste(img, ((i % cols) * cell[0], (i // cols) * cell[1]))
    with Image.open(io.BytesIO(canvas.png())) as got:
        assert got.size == expected.size and got.convert("RGB").tobytes() == expected.tobytes()
    with pytest.raises(ValueError):
        canvas.paste(0, Image.new("RGB", (8, 5)))


def test_screen_rows_pasted_in_any_order_make_the_pasted_sheet() -> None:
    """Screen faces (PNG rows, `Rows`) pasted by Pillow's C paste one byte left of their cell, in any order and
    between cells pasted as images, leave every other byte as it was: the sheet is the cells composed by Pillow."""
    import io
    import random

    from cardc.backends.export.sheets import Rows, SheetCanvas

    cell, cols, rows = (5, 3), 4, 3
    rng = random.Random(7)
    images = [Image.frombytes("RGB", cell, rng.randbytes(3 * cell[0] * cell[1])) for _ in range(cols * rows)]
    for order in (list(range(cols * rows)), list(reversed(range(cols * rows))), rng.sample(range(cols * rows), 12)):
        canvas = SheetCanvas(cols, rows, cell)
        expected = Image.new("RGB", (cols * cell[0], rows * cell[1]), "#808080")
        for i in order:
            if i == 10:
                continue  # left blank
            img = images[i]
            pixels = img.tobytes()
            stride = 3 * cell[0]
            data = b"".join(b"\0" + pixels[y * stride:(y + 1) * stride] for y in range(cell[1]))
            canvas.paste(i, Rows(cell, data) if i % 3 else img)  # rows mostly, some as Pillow images
            expected.paste(img, ((i % cols) * cell[0], (i // cols) * cell[1]))
        with Image.open(io.BytesIO(canvas.png())) as got:
            assert got.convert("RGB").tobytes() == expected.tobytes(), order
        # every row's filter byte is still 0 (a Pillow reader would refuse the file otherwise, but check the bytes)
        assert canvas.rows_data[::canvas.stride].count(0) == canvas.height


def test_print_pngs_decode_as_pillow_reads_them() -> None:
    """The print backend's unfiltered PNGs take the one-inflate path with the same pixels and dpi as Pillow's
    decoder; a PNG with row filters is left to Pillow."""
    import struct
    import zlib

    from cardc.backends.print.png import encode_png

    img = Image.new("RGB", (31, 17), "white")
    for x in range(31):
        img.putpixel((x, x % 17), (x * 8, 255 - x * 8, 90))
    fast = faces._unfiltered_rgb(encode_png(img, 300))
    assert fast is not None and fast[0].tobytes() == img.tobytes() and round(fast[1]) == 300
    png = encode_png(img, 300)
    at = png.index(b"IDAT") - 4
    length = struct.unpack_from(">I", png, at)[0]
    rows = bytearray(zlib.decompress(png[at + 8:at + 8 + length]))
    rows[3 * 31 + 1] = 1  # the second row's filter byte: `Sub`
    body = zlib.compress(bytes(rows))
    chunk = struct.pack(">I", len(body)) + b"IDAT" + body + struct.pack(">I", zlib.crc32(b"IDAT" + body))
    assert faces._unfiltered_rgb(png[:at] + chunk + png[at + 12 + length:]) is None
    assert faces._unfiltered_rgb(b"not a png") is None


@pytest.fixture(scope="module")
def printed(tavern: Project, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture built with print and export, one after the other, at print's default 300 dpi."""
    from cardc.build import build

    out = tmp_path_factory.mktemp("printed") / "gen"
    build(tavern, out, BuildOptions(only=frozenset({"print", "export"})))
    return out


def _sheets(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((out / "export" / "tts" / "img").glob("*.png"))}


def _mean_diff(a: Image.Image, b: Image.Image) -> float:
    """The mean difference of two images' channel values (0-255)."""
    from PIL import ImageChops, ImageStat

    return sum(ImageStat.Stat(ImageChops.difference(a, b)).mean) / 3


def _screen_bytes(png: Path) -> bytes:
    """The screen face (PNG bytes) inside print's PNG `png`."""
    from cardc.backends.print.png import screen_of

    screen = screen_of(png.read_bytes())
    assert screen is not None, png
    return screen


def test_screen_faces_are_the_printed_faces_at_150_dpi(printed: Path) -> None:
    """Print rasterizes every face a second time without its bleed at 150 dpi, into the face's PNG (a private
    chunk; no file of its own): the same card as its 300 dpi PNG cut and halved (what the export made before), to
    within antialiasing."""
    import io

    from cardc.backends.print.png import SCREEN_DPI, screen_size

    pngs = sorted((printed / "print" / "png").rglob("*.png"))
    assert pngs and not (printed / "print" / "screen").exists()
    sizes = set()
    for png in pngs:
        screen = _screen_bytes(png)
        with Image.open(png) as big:  # 300 dpi with 3 mm of bleed: the card's size to 0.1 mm; the chunk is skipped
            w_mm, h_mm = (big.width / 300 * 25.4 - 6, big.height / 300 * 25.4 - 6)
            big.load()
        with Image.open(io.BytesIO(screen)) as small:
            cell = small.size
            assert round(small.info["dpi"][0]) == SCREEN_DPI
            got = small.convert("RGB")
        want = screen_size(w_mm, h_mm)
        assert abs(cell[0] - want[0]) <= 1 and abs(cell[1] - want[1]) <= 1, (png, cell, want)
        sizes.add(cell)
        halved = faces.printed_face(png, w_mm, h_mm, cell)
        assert halved is not None
        # the same picture: glyph and line edges differ a little (antialiased at 150 dpi, not averaged from 300),
        # and not at all once both are reduced to a quarter
        assert _mean_diff(got, halved) < 8 and _mean_diff(got.reduce(4), halved.reduce(4)) < 3, png
    assert len(sizes) > 1  # cards and tokens


def test_sheets_paste_the_screen_faces_as_they_are(printed: Path) -> None:
    import io

    save = _load(printed / "export" / "tts" / "tavern-en.json")
    checked = 0
    for obj in save["ObjectStates"]:
        for card in _cards(obj):
            if "CardID" not in card:
                continue
            deck = card["CustomDeck"][str(card["CardID"] // 100)]
            (png,) = (printed / "print" / "png").glob(f"*-en*/{card['GMNotes'].replace(':', '.')}.png")
            with Image.open(_file(deck["FaceURL"])) as sheet, Image.open(io.BytesIO(_screen_bytes(png))) as face:
                index = card["CardID"] % 100
                w, h = sheet.width // deck["NumWidth"], sheet.height // deck["NumHeight"]
                x, y = index % deck["NumWidth"] * w, index // deck["NumWidth"] * h
                assert face.size == (w, h)
                assert sheet.convert("RGB").crop((x, y, x + w, y + h)).tobytes() == face.convert("RGB").tobytes()
            checked += 1
    assert checked


def test_export_alone_parallel_and_cold_make_the_same_sheets(tavern: Project, printed: Path, tmp_path: Path) -> None:
    """The sheets do not depend on how the build ran: export alone after print (its files carried over) with a
    warm cache and with no cache, and print and export in parallel processes, all give the sheets of one
    serial build."""
    import shutil

    from cardc.build import build
    from cardc.buildcache import CACHE_DIR

    want = _sheets(printed)
    out = tmp_path / "gen"
    shutil.copytree(printed, out)
    only_export = BuildOptions(only=frozenset({"export"}))
    build(tavern, out, only_export)
    assert _sheets(out) == want
    shutil.rmtree(out / CACHE_DIR)
    shutil.rmtree(out / "export")
    build(tavern, out, only_export)
    assert _sheets(out) == want
    parallel = tmp_path / "parallel"
    build(tavern, parallel, BuildOptions(only=frozenset({"print", "export"}), jobs=2))
    assert _sheets(parallel) == want


def test_a_canvas_reusing_another_makes_the_same_sheet() -> None:
    """A sheet drawn in the memory of a finished one of the same size has exactly the pixels of a new one: every
    cell is pasted again or blank, no row filter byte is touched."""
    from cardc.backends.export.sheets import Rows, SheetCanvas

    cell = (4, 3)
    first = SheetCanvas(2, 2, cell)
    for i in range(4):
        first.paste(i, Image.new("RGB", cell, (255, 60 * i, 9)))
    first.png()
    rows = Rows(cell, b"".join(b"\0" + bytes((7, 8, 9)) * 4 for _ in range(3)))
    again, fresh = SheetCanvas(2, 2, cell, reuse=first), SheetCanvas(2, 2, cell)
    assert not first.rows_data  # taken
    for canvas in (again, fresh):
        canvas.paste(1, rows)
        canvas.paste(2, Image.new("RGB", cell, (1, 2, 3)))
    assert again.png() == fresh.png()
    other = SheetCanvas(1, 2, cell, reuse=again)  # another size: new memory
    assert again.rows_data and len(other.rows_data) == (3 * 4 + 1) * 6
