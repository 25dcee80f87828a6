"""The PNG writer: `render_png` gives the pixels PDFium renders (RGB, not BGR), `encode_png` any image's pixels,
both readable by Pillow with their dpi, the same bytes for the same pixels."""

from __future__ import annotations

import io

import pypdfium2 as pdfium
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
