"""The PNG writer: `render_png` gives the pixels PDFium renders (RGB, not BGR), `encode_png` any image's pixels,
both readable by Pillow with their dpi, the same bytes for the same pixels."""

from __future__ import annotations

import io
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from cardc.backends.print.png import encode_png, render_png
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
    from cardc.backends.print.png import render_rows

    whole = render_png(_page("frame", "text"), 203)
    under = render_rows(_page("frame"), 203)
    kept = bytes(under)
    assert render_png(_page("text"), 203, under) == whole
    assert bytes(under) == kept  # drawn over a copy: the backdrop serves the next face too
    assert render_png(_page("text"), 203) != whole  # (the backdrop does show)
    with pytest.raises(ValueError):
        render_png(_page("text"), 150, under)


def test_printed_pngs_are_the_faces_rendered_whole(tmp_path: Path) -> None:
    """The print backend draws faces that share a frame over one rasterized backdrop: every PNG it writes has
    the bytes of its face rasterized whole."""
    from cardc.backends import BuildOptions
    from cardc.backends.print import sheets as print_sheets
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
            key = (size.w, size.h, repr(print_sheets.backdrop(b.parsed[text])[0]))
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
                assert png.read_bytes() == render_png(pdfium.PdfDocument(buf.getvalue())[0], 120), png
                checked += 1
                shared += groups[(size.w, size.h, repr(print_sheets.backdrop(b.parsed[text])[0]))] > 1
    assert checked > 5 and shared > 2 and made
