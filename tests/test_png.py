"""The PNG writer: `render_png` gives the pixels PDFium renders (RGB, not BGR), `encode_png` any image's pixels,
both readable by Pillow with their dpi, the same bytes for the same pixels."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from cardc.backends.print.png import Frame, encode_png, render_png, screen_png
from cardc.backends.print.sheets import canvas
from PIL import Image


def _pdf() -> pdfium.PdfDocument:
    buf = io.BytesIO()
    c = canvas(buf, (61.0, 43.0))  # odd sizes: rows whose byte length is not a multiple of 4
    c.setFillColorRGB(1, 0, 0)
    c.rect(0, 0, 20, 43, fill=1, stroke=0)
    c.setFillColorRGB(0, 0, 1)
    c.rect(40, 0, 21, 20, fill=1, stroke=0)
    c.setFillColorRGB(0.2, 0.6, 0.1)
    c.drawString(5, 25, "Ag")
    c.save()
    return pdfium.PdfDocument(buf.getvalue())


def test_render_png_has_the_pixels_pdfium_draws() -> None:
    page = _pdf()[0]
    data = render_png(page, 97)
    with Image.open(io.BytesIO(data)) as img:
        img.load()
        assert img.mode == "RGB" and round(img.info["dpi"][0]) == 97
        expected = page.render(scale=97 / 72).to_pil().convert("RGB")
        assert img.size == expected.size and img.tobytes() == expected.tobytes()
        assert img.getpixel((2, 2))[0] > 200 and img.getpixel((img.width - 2, img.height - 2))[2] > 200
    assert render_png(page, 97) == data  # deterministic


def test_encode_png_keeps_every_pixel() -> None:
    img = Image.new("RGB", (7, 3), "white")
    for x in range(7):
        img.putpixel((x, x % 3), (x * 30, 255 - x * 30, 7))
    data = encode_png(img.convert("RGBA"), 150)
    with Image.open(io.BytesIO(data)) as back:
        back.load()
        assert back.mode == "RGB" and back.tobytes() == img.tobytes() and round(back.info["dpi"][0]) == 150


def _page(*parts: str) -> pdfium.PdfPage:
    """A page with some of: a frame (full-page fill and a rounded panel), text, a circle over the text."""
    buf = io.BytesIO()
    c = canvas(buf, (61.0, 43.0))
    if "frame" in parts:
        c.setFillColorRGB(0.48, 0.18, 0.18)
        c.rect(0, 0, 61, 43, fill=1, stroke=0)
        c.setFillColorRGB(0.98, 0.97, 0.94)
        c.roundRect(3.3, 2.7, 54.1, 37.4, 4.1, fill=1, stroke=0)
    if "text" in parts:
        c.setFillColorRGB(0.1, 0.1, 0.1)
        c.drawString(5.5, 25.2, "Ag Wq")
        c.setFillColorRGB(0.2, 0.6, 0.1)
        c.circle(45.3, 12.1, 9.7, fill=1, stroke=0)
    c.save()
    return pdfium.PdfDocument(buf.getvalue())[0]


def test_a_face_drawn_over_its_backdrop_is_the_face_drawn_at_once() -> None:
    from cardc.backends.print.png import pixel_size, render_rows

    whole = render_png(_page("frame", "text"), 203)
    rows = render_rows(_page("frame"), 203)
    kept = bytes(rows)
    w, h = pixel_size(_page("frame"), 203)
    under = Frame(rows, 3 * w + 1, h)
    assert render_png(_page("text"), 203, under) == whole
    assert bytes(rows) == kept  # drawn on the frame's canvas, a copy: the backdrop serves the next face too
    assert render_png(_page("frame"), 203, under) == render_png(_page("frame"), 203)  # no text left over
    assert render_png(_page("text"), 203, under) == whole
    assert render_png(_page("text"), 203) != whole  # (the backdrop does show)
    with pytest.raises(ValueError):
        render_png(_page("text"), 150, under)


def _card_page(text: str, frame: bool = True) -> pdfium.PdfPage:
    """A 63 x 88 mm page: a frame (a fill and a panel) and a line of `text` at the top, bottom or middle."""
    buf = io.BytesIO()
    c = canvas(buf, (178.6, 249.4))
    if frame:
        c.setFillColorRGB(0.3, 0.5, 0.7)
        c.rect(0, 0, 178.6, 249.4, fill=1, stroke=0)
        c.setFillColorRGB(0.98, 0.97, 0.94)
        c.roundRect(8, 8, 162.6, 233.4, 6, fill=1, stroke=0)
    c.setFillColorRGB(0.1, 0.1, 0.1)
    for word, y in (("top", 230.0), ("bottom", 12.0), ("middle", 120.0)):
        if word in text:
            c.drawString(20, y, text)
    c.save()
    return pdfium.PdfDocument(buf.getvalue())[0]


def test_faces_over_a_frame_are_deflated_in_bands_with_the_same_bytes() -> None:
    """A card PNG's rows are deflated band by band (each under zlib-ng's first window slide): a face drawn over
    a `Frame` takes the frame's deflated bands where its rows are still the frame's, and puts back only the bands
    it drew on before the next face. Every face has the bytes of the same face drawn whole, in any order."""
    import struct
    import zlib

    from cardc.backends.print.png import BAND_BYTES, band_size, card_png, pixel_size, render_rows

    frame_page = _card_page("", frame=True)
    w, h = pixel_size(frame_page, 300)
    stride = 3 * w + 1
    assert h * stride > 10 * BAND_BYTES and band_size(stride) <= BAND_BYTES and band_size(stride) % stride == 0
    frame = Frame(render_rows(frame_page, 300), stride, h)
    texts = ["top Ag", "bottom Wq", "middle Ǻj top", "top Ag", "bottom middle Ŷy"]
    for text in texts:  # each drawn over what the one before left, which `Frame.canvas` puts back
        drawn = render_png(_card_page(text, frame=False), 300, frame)
        whole_rows = render_rows(_card_page(text), 300)
        assert drawn == card_png(w, h, 300, whole_rows) == render_png(_card_page(text), 300)
        assert 0 < len(frame.dirty) < len(frame.bands) // 2  # a line of text: a band or two, not the card
        with Image.open(io.BytesIO(drawn)) as img:
            img.load()
            assert img.size == (w, h) and img.tobytes() == bytes(
                b for r in range(h) for b in whole_rows[r * stride + 1:(r + 1) * stride])
        idat_at = drawn.index(b"IDAT")
        (length,) = struct.unpack(">I", drawn[idat_at - 4:idat_at])
        assert zlib.decompress(drawn[idat_at + 4:idat_at + 4 + length]) == bytes(whole_rows[:h * stride])
    assert render_png(_card_page(texts[0], frame=False), 300, frame) == render_png(_card_page(texts[0]), 300)
    assert bytes(frame.canvas()) == bytes(frame.rows)  # the last face's bands put back: the frame's pixels
    with pytest.raises(ValueError):
        render_png(_card_page("top", frame=False), 150, frame)


def test_printed_pngs_are_the_faces_rendered_whole(tmp_path: Path) -> None:
    """The print backend draws faces that share a frame over one rasterized backdrop: every PNG it writes has
    the bytes of its face rasterized whole (and of its screen face, inside it)."""
    from cardc.backends import BuildOptions
    from cardc.backends.print import sheets as print_sheets
    from cardc.backends.print.png import render_screen
    from cardc.frontend import compile_paths

    from tests.conftest import ROOT

    result = compile_paths([ROOT / "tests" / "fixtures" / "export" / "tavern"])
    assert result.ok
    settings = {"print.png_dpi": "120"}
    diags, made = print_sheets.run(result.project, tmp_path, BuildOptions(settings=settings))
    assert not [d for d in diags if d.is_error]
    b = print_sheets.PrintBuild(result.project, print_sheets.parse_settings(settings)[0])
    checked = shared = 0
    for sheet in b.plan(tmp_path / "again"):
        groups: dict[tuple[float, float, str], int] = {}
        faces = {t: e for e in sheet.entities for t in sheet.faces.get(e.key, ()) if t is not None}
        for text, e in faces.items():
            size = b.size_of(e)
            key = (size.w, size.h, repr(b.backdrop_of(text, e, wide=True)[0]))
            groups[key] = groups.get(key, 0) + 1
        for e in sheet.entities:
            for text, suffix in zip(sheet.faces.get(e.key, ()), ("", "-back"), strict=False):
                if text is None:
                    continue
                buf = io.BytesIO()
                c = print_sheets.canvas(buf)
                size = b.size_of(e)
                c.setPageSize(print_sheets._cell_pt(size, b.s.bleed))
                print_sheets.draw_face(c, b.parsed[text], size.w, size.h, b.s.bleed, b.s, b._images(e))
                c.showPage()
                c.save()
                png = tmp_path / "print" / "png" / sheet.path.stem / f"{e.key.replace(':', '.')}{suffix}.png"
                page = pdfium.PdfDocument(buf.getvalue())[0]
                # its screen face (inside it) drawn whole too
                screen = screen_png(render_screen(page, b.s.bleed, size.w, size.h), size.w, size.h)
                assert png.read_bytes() == render_png(page, 120, screen=screen), png
                checked += 1
                shared += groups[(size.w, size.h, repr(b.backdrop_of(text, e, wide=True)[0]))] > 1
    assert checked > 5 and shared > 2 and made


def _rows(elements: str, w: float = 40.0, h: float = 50.0, dpi: int = 300) -> tuple[bytearray, int, int]:
    """A `w` x `h` mm face of template `elements` (no bleed) rasterized: its PNG rows, width and height in pixels."""
    from cardc.backends.print.png import render_rows
    from cardc.backends.print.render import draw_face
    from cardc.backends.print.settings import parse_settings
    from cardc.backends.print.sheets import _cell_pt
    from cardc.backends.print.templates import parse_elements

    s = parse_settings({"print.bleed": "0"})[0]
    buf = io.BytesIO()
    c = canvas(buf, compress=False)
    size = type("Size", (), {"w": w, "h": h})()
    c.setPageSize(_cell_pt(size, 0.0))  # type: ignore[arg-type]
    draw_face(c, parse_elements(elements, "test"), w, h, 0.0, s, lambda rel: None)
    c.showPage()
    c.save()
    page = pdfium.PdfDocument(buf.getvalue())[0]
    from cardc.backends.print.png import pixel_size

    return render_rows(page, dpi), *pixel_size(page, dpi)


ELEMENTS = [
    'text t x=3 y=4 w=30 h=8 font=bold size=12 align=center valign=middle text="ǺŲjy Wq ÅÇ"',
    'text t x=2 y=20 w=12 h=6 size=9 align=right valign=bottom text="Ŷg Ǿp ÿ žluťoučký kůň úpěl"',
    'text t x=5 y=30 w=30 h=10 size=8 text="A :sword: and :nosuch: icon :shield:"',
    'text t x=4 y=4 w=32 h=32 cx=20 cy=20 r=15 size=9 align=center valign=bottom text="Round Ǻ token text"',
    "rect x=4 y=10 w=20 h=15 fill=#aa3322 stroke=#112233 width=1.5",
    "rect x=4 y=10 w=20 h=15 fill=#aa3322 stroke=#112233 width=0.8 radius=2",
    "circle cx=20 cy=25 r=9 fill=none stroke=#112233 width=2",
    "line x1=3 y1=40 x2=37 y2=44 stroke=#112233 width=1.2",
    'art picture x=5 y=12 w=30 h=20 image="missing.png"',
    "icon x=10 y=30 size=6 name=sword color=#224466",
    "icon x=10 y=30 size=6 name=nosuch",
]


@pytest.mark.parametrize("element", ELEMENTS)
def test_an_elements_footprint_holds_every_pixel_it_paints(element: str) -> None:
    """`footprint` is what lets the print backend paint an art box before the text above it: every pixel the
    element changes lies inside it, at two resolutions."""
    from cardc.backends.print.render import footprint
    from cardc.backends.print.settings import parse_settings
    from cardc.backends.print.templates import parse_elements
    from PIL import ImageChops

    s = parse_settings({"print.bleed": "0"})[0]
    for dpi in (300, 96):
        ground = "fill color=#8899aa\n"
        before, w, h = _rows(ground, dpi=dpi)
        after, _w, _h = _rows(ground + element, dpi=dpi)
        as_image = [Image.frombytes("RGB", (w, h), bytes(r[1:]), "raw", "RGB", 3 * w + 1) for r in (before, after)]
        changed = ImageChops.difference(*as_image).getbbox()
        assert changed is not None, element  # it paints something
        spot = footprint(parse_elements(element, "test")[0], 40.0, 50.0, 0.0, s, lambda rel: None, 72 / dpi)
        assert spot is not None
        k, page_h = dpi / 72, 50 / 25.4 * 72  # pixels have y down
        left, top, right, bottom = spot[0] * k, (page_h - spot[3]) * k, spot[2] * k, (page_h - spot[1]) * k
        assert left <= changed[0] and top <= changed[1] and changed[2] <= right and changed[3] <= bottom, (
            element, dpi, changed, (left, top, right, bottom))


def test_an_art_box_apart_from_the_text_joins_the_frame() -> None:
    """A face's art placeholder and shapes below its name are drawn with its frame when nothing drawn before them
    can share a pixel with them (then every face of the template shares them); one that touches the text stays in
    its place. Either way, the face over its frame is the face drawn whole."""
    from cardc.backends.print.png import card_png
    from cardc.backends.print.render import draw_face, footprint
    from cardc.backends.print.settings import parse_settings
    from cardc.backends.print.sheets import backdrop
    from cardc.backends.print.templates import Element, parse_elements

    s = parse_settings({"print.bleed": "0"})[0]
    frame = "fill color=#8899aa\nrect x=2 y=2 w=36 h=46 fill=#fbf8f0 radius=1.5\n"
    apart = frame + ('text name x=3 y=3 w=34 h=5 font=bold size=10 align=center text="Ǻbjy Name"\n'
                     'art picture x=4 y=10 w=32 h=18 image="none.png"\n'
                     "line x1=4 y1=30 x2=36 y2=30 stroke=#112233 width=0.6\n"
                     'text rules x=4 y=32 w=32 h=14 size=8 text="Some rules ÿ text"\n')
    touching = apart.replace("w=34 h=5 font=bold size=10", "w=34 h=9 font=bold size=10 valign=bottom")

    def where(el: Element) -> tuple[float, float, float, float] | None:
        return footprint(el, 40.0, 50.0, 0.0, s, lambda rel: None, 72 / 300)

    def lines(elements: tuple[Element, ...]) -> str:
        return "\n".join(f"{e.kind} {e.name} " + " ".join(f"{k}={json.dumps(v) if isinstance(v, str) else v}"
                                                          for k, v in e.props.items()) for e in elements) + "\n"

    # (the line below the art is apart from the text and from the art: it moves either way)
    for source, moved, kept in ((apart, ["fill", "rect", "art", "line"], ["text", "text"]),
                                (touching, ["fill", "rect", "line"], ["text", "art", "text"])):
        under, over = backdrop(parse_elements(source, "test"), where, lambda el: True)
        assert [e.kind for e in under] == moved
        assert [e.kind for e in over] == kept
        whole, w, h = _rows(source)
        frame_rows = _rows(lines(under))[0]
        buf = io.BytesIO()
        c = canvas(buf, (40 / 25.4 * 72, 50 / 25.4 * 72), compress=False)
        draw_face(c, over, 40.0, 50.0, 0.0, s, lambda rel: None)
        c.showPage()
        c.save()
        drawn = render_png(pdfium.PdfDocument(buf.getvalue())[0], 300, Frame(frame_rows, 3 * w + 1, h))
        assert drawn == card_png(w, h, 300, whole)
    assert backdrop(parse_elements(apart, "test"))[0] == parse_elements(frame, "test")  # without `where`: leading
    # elements after the last shape are not measured: nothing after them could move before them
    measured: list[str] = []
    tail = apart + 'text more x=4 y=46 w=32 h=3 size=6 text="More"\n'
    under, over = backdrop(parse_elements(tail, "test"), lambda el: measured.append(el.name) or where(el),
                           lambda el: True)
    assert [e.kind for e in under] == ["fill", "rect", "art", "line"] and [e.name for e in over] == ["name", "rules",
                                                                                                    "more"]
    assert measured == ["name", "picture", ""]  # the name, then the art and the line checked against it


def test_faces_and_frames_shared_by_sheets_are_rasterized_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The tavern is published in three languages, with an expansion in a file of its own: a face printed by two
    sheets (a card that falls back to the same text, a back shared by the expansion) is rasterized once, and a
    frame is rasterized once for all the sheets whose faces start with it, so every face is drawn over a shared
    frame (each language's sheet has kinds with a single card, whose frame only the other languages share)."""
    import hashlib

    from cardc.backends import BuildOptions
    from cardc.backends.print import sheets as print_sheets
    from cardc.frontend import compile_paths

    from tests.conftest import ROOT

    result = compile_paths([ROOT / "tests" / "fixtures" / "export" / "tavern"])
    assert result.ok
    settings = {"print.png_dpi": "60", "print.rulebook": "no"}
    frames: list[str] = []
    faces: list[tuple[bool, str]] = []  # per face rasterized: drawn over a frame, its PNG
    real_rows, real_png = print_sheets.render_rows, print_sheets.render_png

    def rows(page: pdfium.PdfPage, dpi: int, swapped: bool = False) -> bytearray:
        made = real_rows(page, dpi, swapped)
        frames.append(hashlib.sha256(made).hexdigest())
        return made

    def png(page: pdfium.PdfPage, dpi: int, under: Frame | None = None, screen: bytes | None = None,
            swapped: bool = False) -> bytes:
        made = real_png(page, dpi, under, screen, swapped)
        faces.append((under is not None, hashlib.sha256(made).hexdigest()))
        return made

    monkeypatch.setattr(print_sheets, "render_rows", rows)
    monkeypatch.setattr(print_sheets, "render_png", png)
    diags, made = print_sheets.run(result.project, tmp_path, BuildOptions(settings=settings))
    assert not [d for d in diags if d.is_error] and {s.lang for s in made} == {"cs", "en", "de"}
    assert len({s.module for s in made}) == 2

    pngs = sorted((tmp_path / "print" / "png").rglob("*.png"))
    assert len(pngs) == sum(len([t for t in s.faces[e.key] if t is not None]) for s in made for e in s.entities
                            if e.key in s.faces)
    written = {hashlib.sha256(p.read_bytes()).hexdigest() for p in pngs}
    per_sheet = sum(len({t for e in s.entities for t in s.faces.get(e.key, ()) if t is not None}) for s in made)
    assert {h for _over, h in faces} == written
    assert len(faces) == len(written) < per_sheet  # no PNG rasterized twice, though sheets show the same faces
    assert all(over for over, _h in faces)  # none drawn whole: each shares its frame with another card's
    assert frames and len(set(frames)) == len(frames)  # no frame rasterized twice


def test_the_same_face_in_another_file_is_drawn_with_that_files_images(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A card in another source file whose template output equals a card's of the main file shares its PNG when it
    shows the same picture (a file in the same folder), and gets its own when its file's folder has its own
    picture of that name (image paths are relative to the file that names them)."""
    import shutil

    from cardc.backends import BuildOptions
    from cardc.backends.print import sheets as print_sheets
    from cardc.frontend import compile_paths

    from tests.conftest import ROOT

    drawn: list[bytes] = []
    real_png = print_sheets.render_png

    def png(page: pdfium.PdfPage, dpi: int, under: Frame | None = None, screen: bytes | None = None,
            swapped: bool = False) -> bytes:
        drawn.append(real_png(page, dpi, under, screen, swapped))
        return drawn[-1]

    monkeypatch.setattr(print_sheets, "render_png", png)
    settings = {"print.png_dpi": "40", "print.rulebook": "no", "print.allow_overflow": "yes"}
    for picture, folder_of_file in (("shared", "."), ("own", "more")):
        content = tmp_path / picture / "content" / "dungeon"
        shutil.copytree(ROOT / "tests" / "fixtures" / "print" / "dungeon", content)
        original = (content / "cards.cardc").read_text(encoding="utf-8")
        ambush = original[original.index("event ambush {"):]
        ambush = ambush[:ambush.index("\n}\n") + 3].replace("event ambush {", "event ambush_again {")
        up = "../" if folder_of_file != "." else ""
        (content / folder_of_file / "art").mkdir(parents=True, exist_ok=True)
        if picture == "own":  # a red picture of the same name next to the second file
            Image.new("RGB", (40, 30), (200, 30, 30)).save(content / folder_of_file / "art" / "ambush.png")
        (content / folder_of_file / "again.cardc").write_text(
            f'module dungeon\nimport "{up}game.cardc"\nimport "{up}cards.cardc"\n\n' + ambush, encoding="utf-8")
        result = compile_paths([content])
        assert result.ok, [d.render() for d in result.diagnostics if d.is_error]
        drawn.clear()
        out = tmp_path / picture / "out"
        diags, made = print_sheets.run(result.project, out, BuildOptions(settings=settings))
        assert not [d for d in diags if d.is_error] and made
        sheet = made[0]
        faces = {e.id: sheet.faces[e.key] for e in sheet.entities}
        assert faces["ambush"] == faces["ambush_again"]  # the same template output
        folder = out / "print" / "png" / sheet.path.stem
        first, again = ((folder / f"{name}.png").read_bytes() for name in ("ambush", "ambush_again"))
        assert len(drawn) == len(set(drawn))  # no PNG rasterized twice
        if picture == "shared":
            assert first == again
        else:
            assert first != again and first in drawn and again in drawn
            with Image.open(io.BytesIO(again)) as img:  # the red picture shows on the card
                colours = img.convert("RGB").getcolors(1 << 20) or []
                assert any(r > 150 and g < 80 and b < 80 for _n, (r, g, b) in colours)


def _card(*parts: str, bleed: float = 3.0) -> pdfium.PdfPage:
    """A 63.5 x 88.9 mm card page with `bleed` mm around it: red bleed, a blue trim box; "text" adds a word."""
    from reportlab.lib.units import mm

    buf = io.BytesIO()
    c = canvas(buf, ((63.5 + 2 * bleed) * mm, (88.9 + 2 * bleed) * mm))
    if "frame" in parts:
        c.setFillColorRGB(1, 0, 0)
        c.rect(0, 0, (63.5 + 2 * bleed) * mm, (88.9 + 2 * bleed) * mm, fill=1, stroke=0)
        c.setFillColorRGB(0, 0, 1)
        c.rect(bleed * mm, bleed * mm, 63.5 * mm, 88.9 * mm, fill=1, stroke=0)
    if "text" in parts:
        c.setFillColorRGB(1, 1, 1)
        c.drawString(10 * mm, 40 * mm, "Ag Wq")
    c.save()
    return pdfium.PdfDocument(buf.getvalue())[0]


def test_screen_face_is_the_trim_box_at_150_dpi() -> None:
    """`render_screen` draws the card without its bleed, at 150 dpi, into `screen_size` pixels: a poker card's trim
    is 375 x 525 pixels exactly, so not one pixel of the red bleed shows."""
    from cardc.backends.print.png import SCREEN_DPI, render_screen, screen_png, screen_size

    assert screen_size(63.5, 88.9) == (375, 525)
    data = screen_png(render_screen(_card("frame"), 3.0, 63.5, 88.9), 63.5, 88.9)
    with Image.open(io.BytesIO(data)) as img:
        img.load()
        assert img.size == (375, 525) and round(img.info["dpi"][0]) == SCREEN_DPI
        assert {c for _, c in img.getcolors(16) or []} == {(0, 0, 255)}
    # the same card with another bleed: the same pixels
    assert screen_png(render_screen(_card("frame", bleed=1.5), 1.5, 63.5, 88.9), 63.5, 88.9) == data


def test_a_screen_face_drawn_over_its_backdrop_is_the_face_drawn_at_once() -> None:
    from cardc.backends.print.png import render_screen, screen_size

    whole = render_screen(_card("frame", "text"), 3.0, 63.5, 88.9)
    rows = render_screen(_card("frame"), 3.0, 63.5, 88.9)
    kept = bytes(rows)
    w, h = screen_size(63.5, 88.9)
    under = Frame(rows, 3 * w + 1, h)
    drawn = render_screen(_card("text"), 3.0, 63.5, 88.9, under)
    assert drawn == whole
    # (deflated with the frame, which serves its own bands and learns which the face drew on: the same bytes)
    assert screen_png(drawn, 63.5, 88.9, under) == screen_png(whole, 63.5, 88.9)
    assert bytes(rows) == kept
    drawn = render_screen(_card("frame"), 3.0, 63.5, 88.9, under)
    assert drawn == rows  # no text left over
    assert screen_png(drawn, 63.5, 88.9, under) == screen_png(rows, 63.5, 88.9)
    assert render_screen(_card("text"), 3.0, 63.5, 88.9) != whole
    with pytest.raises(ValueError):
        render_screen(_card("text"), 3.0, 63.0, 88.9, under)


def test_every_chunk_carries_zlibs_crc() -> None:
    """The chunks' CRCs (ISA-L's CRC-32 where available) are zlib's CRC-32 of type and data, as PNG requires."""
    import struct
    import zlib

    data = render_png(_page("frame", "text"), 97)
    pos, tags = 8, []
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos:pos + 4])
        tag, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        assert data[pos + 8 + n:pos + 12 + n] == struct.pack(">I", zlib.crc32(tag + body)), tag
        tags.append(tag)
        pos += 12 + n
    assert tags == [b"IHDR", b"pHYs", b"IDAT", b"IEND"]


def test_png_bytes_are_the_same_in_fresh_processes(tmp_path: Path) -> None:
    """A face's PNG bytes are a function of its pixels: a fresh process with another hash seed and another heap
    (glibc's MALLOC_PERTURB_ fills every block it hands out and takes back) writes the same bytes. ISA-L's deflate,
    used before, wrote other bytes (a valid stream, the same pixels) for a few faces in about one fresh process in
    a hundred; five processes catch that rarely, but they catch any deflate whose bytes follow the process."""
    import subprocess
    import sys

    rows, w, h = _rows("fill color=#8899aa\n" + "\n".join(ELEMENTS[:8]), w=63.0, h=88.0)
    image = Image.frombytes("RGB", (w, h), bytes(rows[1:]), "raw", "RGB", 3 * w + 1)
    (tmp_path / "face.rgb").write_bytes(image.tobytes())
    here = encode_png(image, 300)
    script = ("import sys\nfrom PIL import Image\nfrom cardc.backends.print.png import encode_png\n"
              f"img = Image.frombytes('RGB', ({w}, {h}), open(sys.argv[1], 'rb').read())\n"
              "sys.stdout.buffer.write(encode_png(img, 300))\n")
    for seed, perturb in (("0", "165"), ("1", "42"), ("2", "255"), ("3", "1"), ("random", "")):
        env = {**os.environ, "PYTHONHASHSEED": seed, "MALLOC_PERTURB_": perturb}
        out = subprocess.run([sys.executable, "-c", script, str(tmp_path / "face.rgb")], env=env,
                             capture_output=True, check=True).stdout
        assert out == here, (seed, perturb)


def _swapped_rows(elements: str, swap: bool, dpi: int = 300, blue_first: bool | None = None) -> bytes:
    """`_rows` of `elements` (40 x 50 mm), the page drawn with red and blue exchanged if `swap` and rasterized in
    PDFium's own byte order, blue first (as the print backend draws faces with only RGB colours), else as `_rows`
    does; `blue_first` chooses the byte order alone."""
    from cardc.backends.print.png import render_rows
    from cardc.backends.print.render import draw_face, swap_red_blue
    from cardc.backends.print.settings import parse_settings
    from cardc.backends.print.sheets import _cell_pt
    from cardc.backends.print.templates import parse_elements

    s = parse_settings({"print.bleed": "0"})[0]
    buf = io.BytesIO()
    c = canvas(buf, compress=False)
    c._enforceColorSpace = swap_red_blue if swap else None
    c.setPageSize(_cell_pt(type("Size", (), {"w": 40.0, "h": 50.0})(), 0.0))  # type: ignore[arg-type]
    draw_face(c, parse_elements(elements, "test"), 40.0, 50.0, 0.0, s, lambda rel: None)
    c.showPage()
    c.save()
    return bytes(render_rows(pdfium.PdfDocument(buf.getvalue())[0], dpi, swap if blue_first is None else blue_first))


@pytest.mark.parametrize("elements", [*ELEMENTS, "\n".join(["fill color=#f4e9d0", *ELEMENTS])])
def test_a_face_drawn_with_red_and_blue_exchanged_has_the_same_pixels(elements: str) -> None:
    """The PNGs' faces are drawn with red and blue exchanged and rasterized in PDFium's byte order (blue first,
    a third cheaper than asking PDFium for red first): every pixel comes out the same, antialiased edges, glyphs
    and placeholders included."""
    from cardc.backends.print.render import swappable
    from cardc.backends.print.templates import parse_elements

    assert swappable(parse_elements(elements, "test"))
    for dpi in (300, 150, 97):
        assert _swapped_rows(elements, True, dpi) == _swapped_rows(elements, False, dpi), dpi


def test_red_and_blue_are_exchanged_only_where_they_can_be() -> None:
    """A CMYK colour has no red and blue to exchange: such a face is drawn as it is (and the exchange does change
    the page, so the test above compares two different drawings)."""
    from cardc.backends.print.render import swap_red_blue, swappable
    from cardc.backends.print.templates import parse_elements
    from reportlab.lib import colors

    assert not swappable(parse_elements('rect x=1 y=1 w=5 h=5 fill="cmyk(0,0.5,1,0)"', "test"))
    assert not swappable(parse_elements('text t x=1 y=1 w=9 h=5 color="pcmyk(0,50,100,0)" text="A"', "test"))
    assert swappable(parse_elements('rect x=1 y=1 w=5 h=5 fill=#aa3322 stroke=red', "test"))
    assert swap_red_blue(colors.Color(0.1, 0.2, 0.3, 0.5)) == colors.Color(0.3, 0.2, 0.1, 0.5)
    assert swap_red_blue((0.1, 0.2, 0.3)) == (0.3, 0.2, 0.1) and swap_red_blue(0.4) == 0.4
    with pytest.raises(TypeError):
        swap_red_blue(colors.CMYKColor(0, 0.5, 1, 0))
    face = "rect x=4 y=10 w=20 h=15 fill=#aa3322"
    assert _swapped_rows(face, True) == _swapped_rows(face, False)
    assert _swapped_rows(face, True, blue_first=False) != _swapped_rows(face, False)  # the page did change
    assert _swapped_rows(face, False, blue_first=True) != _swapped_rows(face, False)  # and so does the order


def test_a_shape_drawn_again_appends_the_operators_it_drew_first() -> None:
    """`draw_face` keeps the operators of plain shapes (fill, rectangle, circle, line, art placeholder) and appends
    them again for the same element at the same size, bleed and colour setting: the same page as drawing it anew,
    and not the operators of another setting (red and blue exchanged) or size."""
    from cardc.backends.print import render
    from cardc.backends.print.settings import parse_settings
    from cardc.backends.print.templates import parse_elements

    s = parse_settings({})[0]
    elements = parse_elements("\n".join(["fill color=#f4e9d0", *ELEMENTS]), "test")

    def ops(swap: bool = False, w: float = 40.0, bleed: float = 3.0) -> list[str]:
        c = canvas(io.BytesIO(), compress=False)
        c._enforceColorSpace = render.swap_red_blue if swap else None
        start = len(c._code)
        render.draw_face(c, elements, w, 50.0, bleed, s, lambda rel: None)
        return list(c._code[start:])

    render._SHAPES.clear()
    first = ops()
    assert render._SHAPES  # kept
    assert ops() == first
    swapped, wider, no_bleed = ops(True), ops(w=41.0), ops(bleed=0.0)
    render._SHAPES.clear()
    assert ops(True) == swapped != first and ops(w=41.0) == wider != first and ops(bleed=0.0) == no_bleed != first
    cmyk = parse_elements('rect x=1 y=1 w=5 h=5 fill="cmyk(0,0.5,1,0)"', "test")
    render._SHAPES.clear()
    render.draw_face(canvas(io.BytesIO()), cmyk, 40.0, 50.0, 3.0, s, lambda rel: None)
    assert not render._SHAPES  # (a CMYK colour may be a separation, which the page itself must list)


@pytest.mark.parametrize("head, tail", [(4096, 65536), (8, 8), (40, 100), (1 << 20, 1 << 20)])
def test_read_screen_reads_the_screen_face_screen_of_finds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           head: int, tail: int) -> None:
    """The export reads a card PNG's screen face by the chunk headers alone (`read_screen`): the bytes `screen_of`
    finds in the whole file, or None, whatever the sizes read at once (the face's chunk longer than one read too)."""
    from cardc.backends.print import png

    monkeypatch.setattr(png, "_HEAD_READ", head)
    monkeypatch.setattr(png, "_TAIL_READ", tail)
    rows = bytes(range(256)) * 40  # not all alike: the pixels' chunk is a few KB
    screen = png._png(9, 7, 150, bytes(7 * 28))
    files = {
        "card": png._png(30, 40, 300, rows[:(3 * 30 + 1) * 40], screen),
        "no screen": png._png(30, 40, 300, rows[:(3 * 30 + 1) * 40]),
        "empty screen": png._png(30, 40, 300, rows[:(3 * 30 + 1) * 40], b""),
        "not a png": b"GIF89a" + rows,
        "cut in the screen face": png._png(30, 40, 300, rows[:(3 * 30 + 1) * 40], screen)[:-30],
        "cut in a header": png._png(30, 40, 300, rows[:(3 * 30 + 1) * 40], screen)[:-len(screen) - 18],
        "nothing": b"",
    }
    for name, data in files.items():
        path = tmp_path / f"{name}.png"
        path.write_bytes(data)
        assert png.read_screen(path) == png.screen_of(data), name
    assert png.read_screen(tmp_path / "card.png") == screen
    with pytest.raises(OSError):
        png.read_screen(tmp_path / "missing.png")
