"""Backend `print`: `print/<game>-<lang>[-<expansion>].pdf` and per-card PNGs for every published language.

The base game and each expansion get their own file, so an expansion is printed on its own. Cards
of one size share pages; each card appears `copies` times; backs follow each front page.
"""

from __future__ import annotations

import io
import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import NamedTuple

from cardc.backends import BuildOptions
from cardc.backends.print.cards import CardTexts, image_path
from cardc.backends.print.imposition import Page, Placement, impose
from cardc.backends.print.names import sheet_name
from cardc.backends.print.png import (
    SCREEN_DPI,
    Frame,
    pixel_size,
    render_png,
    render_rows,
    render_screen,
    screen_png,
    screen_size,
    write_file,
)
from cardc.backends.print.presets import CardSize, card_size, known_sizes
from cardc.backends.print.render import (
    DrawReport,
    Extent,
    FaceRef,
    ImageResolver,
    apart,
    draw_calibration,
    draw_face,
    draw_pages,
    footprint,
    swap_red_blue,
    swappable,
)
from cardc.backends.print.rulebook import Faces
from cardc.backends.print.settings import PrintSettings, parse_settings
from cardc.backends.print.templates import Element, TemplateError, Templates, parse_elements
from cardc.buildcache import BuildCache
from cardc.collector import paused
from cardc.diagnostics import NO_SPAN, Diagnostic, Severity, Span
from cardc.model import Entity, Project
from reportlab import rl_config
from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas

DEFAULT_SIZE = "poker"
PNG_BATCH = 256  # faces drawn into one PDF and rasterized together (bounded memory)


class FaceKey(NamedTuple):
    """What a face's pixels depend on besides the settings: its template output, its size and the image files it
    draws (found next to the card's source file: the same text in another file may show other pictures)."""

    text: str
    w: float
    h: float
    images: tuple[str, ...]


@dataclass
class Sheet:
    """One PDF: the cards of one game module in one language, and where they went."""

    path: Path
    game: str
    lang: str
    module: str
    entities: list[Entity]
    pages: list[Page] = field(default_factory=list)
    slots: list[Entity] = field(default_factory=list)  # the entity printed in each imposition slot
    faces: dict[str, tuple[str, str | None]] = field(default_factory=dict)  # entity key -> (front, back) text
    marks: dict[str, dict[str, object]] = field(default_factory=dict)  # entity key -> provisional / fallbacks

    @property
    def sheets(self) -> int:
        """Sheets of paper: a front page and its back page are one sheet."""
        return sum(1 for p in self.pages if p.side in ("front", "fold"))


def canvas(target: str | io.BytesIO, size: tuple[float, float] = (595.0, 842.0), compress: bool = True) -> Canvas:
    """A reportlab canvas that writes byte-identical files for identical input; `compress=False` for a PDF that is
    only rasterized in memory (no deflate of its streams by reportlab, no inflate by PDFium: the same pages)."""
    rl_config.useA85 = 0  # plain binary streams: smaller files and faster than ASCII85
    c = Canvas(target, pagesize=size, invariant=1, pageCompression=int(compress))
    c.setCreator("cardc")
    c.setProducer("cardc")
    return c


class PrintBuild:
    """State of one run of the backend: settings, templates per game, diagnostics, sheets made."""

    def __init__(self, project: Project, settings: PrintSettings) -> None:
        self.project = project
        self.s = settings
        self.diags: dict[tuple[str, str, str], Diagnostic] = {}
        self.templates: dict[str, Templates] = {}
        self.parsed: dict[str, tuple[Element, ...]] = {}  # template output -> its elements
        self.size_cache: dict[tuple[str, str], CardSize] = {}
        self.fallbacks: dict[tuple[str, str], list[tuple[Entity, str, str]]] = {}  # (game, lang) -> (card, what, lang)
        self._reports: dict[str, DrawReport] = {}
        self.cache: BuildCache | None = None  # the build's cache of drawn faces, if any

    # ---- lookups -----------------------------------------------------------

    def _diag(self, sev: Severity, code: str, message: str, span: Span, hint: str | None = None) -> None:
        d = Diagnostic(sev, code, message, span, hint)
        self.diags.setdefault((code, message, str(d.span)), d)

    def size_of(self, e: Entity) -> CardSize:
        key = (e.game, e.kind)
        size = self.size_cache.get(key)
        if size is None:
            kd = self.project.kinds[key]
            name = kd.size or DEFAULT_SIZE
            size = self.s.sizes.get(name) or card_size(name)
            if size is None:
                self._diag(Severity.WARNING, "W603", f"kind `{kd.id}` has size `{name}`, which names no card size;"
                           f" printed as {DEFAULT_SIZE}", kd.span,
                           f"use one of {', '.join(known_sizes())} or set print.size.{name}=WxH (mm)")
                size = card_size(DEFAULT_SIZE)
                assert size is not None
            self.size_cache[key] = size
        return size

    def templates_of(self, game: str) -> Templates:
        t = self.templates.get(game)
        if t is None:
            g = self.project.games[game]
            user = None
            for base in ((self.project.root / self.project.source_name(g.span.file)).parent, self.project.root / game):
                if (base / "templates").is_dir():
                    user = base / "templates"
                    break
            t = self.templates[game] = Templates(user)
        return t

    # ---- faces -------------------------------------------------------------

    def face_texts(self, texts: CardTexts, e: Entity, sheet: Sheet) -> tuple[str, str | None] | None:
        size = self.size_of(e)
        ctx = texts.context(e, size.w, size.h, self.s.bleed, size.shape)
        marks = ctx["marks"]
        assert isinstance(marks, dict)
        sheet.marks[e.key] = marks
        found = self.fallbacks.setdefault((e.game, texts.lang), [])
        for what, lang in marks["fallbacks"]:
            found.append((e, what, lang))
        tpl = self.templates_of(e.game)
        try:
            front, front_name = tpl.render(e.kinds, "front", ctx)
            self.parsed[front] = parse_elements(front, front_name)
            back = None
            if self.s.duplex != "none":
                back, back_name = tpl.render(e.kinds, "back", ctx)
                self.parsed[back] = parse_elements(back, back_name)
        except TemplateError as err:
            self._diag(Severity.ERROR, "E601", f"card template for {e.kind} `{e.id}` ({texts.lang}): {err}", e.span)
            return None
        return front, back

    def report(self, e: Entity, lang: str, r: DrawReport, side: str = "front") -> None:
        where = " on the back" if side == "back" else ""
        for box, min_size in r.overflow:
            if self.s.allow_overflow:
                self._diag(Severity.WARNING, "W602", f"text box `{box}`{where} of {e.kind} `{e.id}` does not fit in "
                           f"language `{lang}` even at {min_size:g} pt; printed cut off (--allow-overflow)", e.span)
            else:
                self._diag(Severity.ERROR, "E602", f"text box `{box}`{where} of {e.kind} `{e.id}` does not fit in "
                           f"language `{lang}`, even at {min_size:g} pt", e.span,
                           "shorten the text, give the box more room in the kind's template, lower --min-text, "
                           "or print it cut off with --allow-overflow")
        for icon in sorted(r.unknown_icons):
            self._diag(Severity.WARNING, "W604", f"unknown icon `:{icon}:` on {e.kind} `{e.id}` ({lang})", e.span,
                       "see compiler/backends/print/icons.py for the icons the sheets know")
        for rel in sorted(r.missing_images):
            self._diag(Severity.WARNING, "W604", f"image `{rel}` of {e.kind} `{e.id}` not found; a placeholder "
                       "is printed", e.span)

    # ---- sheets ------------------------------------------------------------

    def plan(self, out: Path) -> list[Sheet]:
        """Every sheet to write, with its faces rendered from the templates (not drawn yet)."""
        sheets = []
        for game in sorted(self.project.games):
            g = self.project.games[game]
            entities = self.project.physical_entities(game)
            modules = sorted({e.module for e in entities}, key=lambda m: (m != "base", m))
            for lang in g.publish or g.languages:
                texts = CardTexts(self.project, game, lang)
                for module in modules:
                    mine = [e for e in entities if e.module == module]
                    sheet = Sheet(out / sheet_name(game, lang, module), game, lang, module, mine)
                    for e in mine:
                        faces = self.face_texts(texts, e, sheet)
                        if faces is not None:
                            sheet.faces[e.key] = faces
                    sheets.append(sheet)
        return sheets

    def write_sheet(self, sheet: Sheet) -> None:
        c = canvas(str(sheet.path))
        c.setTitle(sheet.path.stem)
        forms: dict[str, str] = {}
        by_size: dict[CardSize, list[Entity]] = {}
        for e in sheet.entities:
            if e.key in sheet.faces:
                by_size.setdefault(self.size_of(e), []).append(e)
        for size, group in by_size.items():
            slots = [e for e in group for _ in range(e.copies or 0)]
            try:
                pages = impose(len(slots), size.w, size.h, self.s, size.shape == "round")
            except ValueError:
                self._diag(Severity.ERROR, "E600", f"{size.name} cards ({size.w:g}x{size.h:g} mm) with "
                           f"{self.s.bleed:g} mm bleed do not fit on {self.s.paper} paper", NO_SPAN,
                           "use bigger paper, less bleed or a smaller print.margin / print.mark_length")
                continue
            uses = Counter(t for e in slots for t in sheet.faces[e.key] if t is not None)
            slot_forms: list[tuple[FaceRef, FaceRef]] = []
            for e in slots:
                front, back = sheet.faces[e.key]
                slot_forms.append((self._face(c, forms, uses, front, e, sheet, size, "front"),
                                   self._face(c, forms, uses, back, e, sheet, size, "back") if back is not None
                                   else None))
            legends = [self.legend(sheet, [slots[p.slot] for p in page.placements]) for page in pages]
            draw_pages(c, pages, slot_forms, self.s, legends)
            offset = len(sheet.slots)
            sheet.slots.extend(slots)
            for page in pages:
                page.placements = [_shift(p, offset) for p in page.placements]
            sheet.pages.extend(pages)
        if sheet.pages:
            sheet.path.parent.mkdir(parents=True, exist_ok=True)
            c.save()

    def _face(self, c: Canvas, forms: dict[str, str], uses: Counter[str], text: str, e: Entity, sheet: Sheet,
              size: CardSize, side: str) -> FaceRef:
        """A face printed once is drawn in place (a form would only add its own object); a face printed
        more often (copies, shared backs) becomes a form, stored once and placed by reference."""
        if uses[text] > 1 or text in forms:
            return self._form(c, forms, text, e, sheet, size, side)
        elements, images = self.parsed[text], self._images(e)

        def draw(canvas: Canvas) -> None:
            r = draw_face(canvas, elements, size.w, size.h, self.s.bleed, self.s, images)
            self._reports[text] = r
            self.report(e, sheet.lang, r, side)

        return draw

    def _form(self, c: Canvas, forms: dict[str, str], text: str, e: Entity, sheet: Sheet, size: CardSize,
              side: str) -> str:
        name = forms.get(text)
        if name is None:
            name = forms[text] = f"card{len(forms)}"
            c.beginForm(name, 0, 0, *_cell_pt(size, self.s.bleed))
            r = draw_face(c, self.parsed[text], size.w, size.h, self.s.bleed, self.s, self._images(e))
            c.endForm()
            self._reports[text] = r
        self.report(e, sheet.lang, self._reports[text], side)
        return name

    def legend(self, sheet: Sheet, entities: list[Entity]) -> str:
        """The key to the marks printed on one page: provisional values and untranslated texts."""
        from cardc.backends.print.cards import fallback_mark
        from cardc.backends.reference.context import all_strings

        strings = all_strings()
        mine = {**strings["en"], **strings.get(sheet.lang, {})}
        parts = []
        marks = [sheet.marks.get(e.key, {}) for e in entities]
        if any(m.get("provisional") for m in marks):
            parts.append(mine["legend_provisional"])
        langs = sorted({lang for m in marks for _what, lang in m.get("fallbacks", ())})  # type: ignore[attr-defined]
        parts.extend(mine["legend_fallback"].format(mark=fallback_mark(lang)) for lang in langs)
        return "   ·   ".join(parts)

    def languages_report(self, folder: Path, notes: list[str]) -> None:
        """`<game>-languages.md`: every text printed in a fallback language, per language; E605 if strict."""
        by_game: dict[str, list[str]] = {}
        for (game, lang), found in sorted(self.fallbacks.items()):
            lines = by_game.setdefault(game, [f"# {game}: texts printed in a fallback language", "",
                                              "Each is marked on the card with the language it is printed in.",
                                              ""])
            lines += [f"## {lang}", ""]
            seen = sorted({(e.id, what, fb) for e, what, fb in found})
            lines += [f"- `{ident}` {what}: {fb}" for ident, what, fb in seen] or ["none"]
            lines.append("")
            if seen:
                notes.append(f"print: {game} {lang}: {len(seen)} text{'s' if len(seen) != 1 else ''} in a fallback "
                             f"language ({', '.join(sorted({fb for *_x, fb in seen}))}), listed in "
                             f"print/{game}-languages.md")
                if self.s.strict_languages:
                    first: dict[str, tuple[Entity, str, str]] = {}
                    for e, what, fb in found:
                        first.setdefault(e.key, (e, what, fb))
                    for e, what, fb in first.values():
                        self._diag(Severity.ERROR, "E605", f"{e.kind} `{e.id}` prints its {what} in `{fb}` in the "
                                   f"`{lang}` sheets (--strict-languages)", e.span,
                                   f"add a `{lang}` text or leave `{lang}` out of the game's `publish` list")
        folder.mkdir(parents=True, exist_ok=True)
        for game, lines in by_game.items():
            (folder / f"{game}-languages.md").write_text("\n".join(lines).rstrip() + "\n", encoding="utf-8")

    def faces_of(self, sheets: list[Sheet]) -> Callable[[str, str], Faces]:
        """For the rulebook: the drawn elements of every entity's faces in one game and language."""

        def faces(game: str, lang: str) -> Faces:
            out: Faces = {}
            for sheet in sheets:
                if sheet.game != game or sheet.lang != lang:
                    continue
                for e in sheet.entities:
                    pair = sheet.faces.get(e.key)
                    if pair is None:
                        continue
                    size = self.size_of(e)
                    back = self.parsed[pair[1]] if pair[1] is not None else None
                    out[e.key] = (self.parsed[pair[0]], back, size.w, size.h, size.shape == "round", self._images(e))
            return out

        return faces

    def _images(self, e: Entity) -> ImageResolver:
        return lambda rel: image_path(self.project, e, rel)

    def write_pngs(self, sheet: Sheet, folder: Path, screens: bool = False) -> None:
        """The PNGs of one sheet into `folder`: `write_all_pngs` of that sheet alone."""
        self.write_all_pngs([(sheet, folder)], screens)

    def write_all_pngs(self, jobs: list[tuple[Sheet, Path]], screens: bool = False) -> None:
        """One PNG per card front and back (`<card>.png`, `<card>-back.png`) at the configured dpi, for every
        (sheet, folder) of `jobs` at once; with `screens`, each PNG also holds its face without the bleed at
        SCREEN_DPI (150), rasterized from the same page, as a private chunk (`png.screen_of` reads it): the
        Tabletop Simulator export pastes those into its sprite sheets as they are, where reading and halving the
        300 dpi pixels cost more than the export's whole JSON. (They were files of their own, `print/screen/`:
        creating a file cost as much as compressing the face in it.)

        A face is drawn once per build whatever the number of sheets, files and copies showing it, and faces that
        start with the same frame share its pixels across sheets: a tile's map, a card's frame, a shared back is
        rasterized once for all the languages, and each language only draws its texts over it.

        With the build's cache, a face drawn by the previous build from the same template output, size,
        settings and images is reused, so changing one card redraws only that card's faces. Faces are drawn
        and rasterized PNG_BATCH at a time and each PNG is written as soon as it is made: memory stays flat
        however many cards the sheets hold (all of a 10,000-card sheet's PNGs held at once took 1.2 GiB)."""
        import pypdfium2 as pdfium

        cache = self.cache
        keys: dict[FaceKey, str] = {}
        order: list[tuple[FaceKey, Entity]] = []  # faces to draw, each once
        dests: dict[FaceKey, list[Path]] = {}  # face -> its files, in sheet and card order
        folders: set[Path] = set()
        for sheet, folder in jobs:
            for e in sheet.entities:
                faces = sheet.faces.get(e.key)
                if faces is None:
                    continue
                stem = e.key.replace(":", ".")
                size = self.size_of(e)
                for text, suffix in ((faces[0], ""), (faces[1], "-back")):
                    if text is None:
                        continue
                    face = FaceKey(text, size.w, size.h, self._drawn_images(text, e))
                    dests.setdefault(face, []).append(folder / f"{stem}{suffix}.png")
                    folders.add(folder)
                    if face in keys:
                        continue
                    keys[face] = cache.key("print-png", repr(self.s), f"{size.w}x{size.h}", e.span.file, text,
                                           "screen" if screens else "") if cache is not None else ""
                    order.append((face, e))
        order = [(face, e) for face, e in order if cache is None or not cache.has(keys[face])]
        for folder in sorted(folders):
            folder.mkdir(parents=True, exist_ok=True)

        def put(face: FaceKey, png: bytes | None) -> None:
            key = keys[face]
            written: Path | None = None  # this face's first file in this output: the others are its second names
            for dest in dests[face]:
                if written is not None and _linked(written, dest):
                    if cache is not None:
                        cache.hits += 1  # an image not drawn again, counted as the reused ones it once was
                    continue  # a shared back on every card: one file under many names, not 20,000 copies
                if cache is not None and cache.fetch(key, dest):
                    written = dest  # drawn before, in this build or the previous one: copied once
                    continue
                assert png is not None, "a face not drawn must be in the cache"
                write_file(dest, png)
                written = dest
                if cache is not None:
                    cache.store(key, dest)

        # Faces that start with the same frame (a template's fill, panel, lines, an art placeholder: `backdrop`) at
        # the same size share a background: it is rasterized once, and each face draws only its other elements over
        # a copy of it (the same pixels, `render_png`). Faces are drawn grouped by it: one background is kept.
        split = {face: self.backdrop_of(face.text, e, wide=True) for face, e in order}
        group = {face: (face.w, face.h, repr(split[face][0])) for face, _e in order}
        count = Counter(group.values())
        for face, e in order:  # a face with a frame of its own still shares its leading shapes, if others have them
            if count[group[face]] == 1:
                split[face] = self.backdrop_of(face.text, e, wide=False)
                group[face] = (face.w, face.h, repr(split[face][0]))
        count = Counter(group.values())
        # A group whose faces draw no image and only RGB colours is drawn with red and blue exchanged and rasterized
        # in PDFium's own byte order: the same pixels (`swap_red_blue`), a third less of PDFium's time
        swapped: dict[tuple[float, float, str], bool] = {}
        for face, _e in order:
            g = group[face]
            swapped[g] = swapped.get(g, True) and not any(face.images) and swappable(self.parsed[face.text])
        rank = {g: i for i, g in enumerate(count)}
        order.sort(key=lambda item: rank[group[item[0]]])  # stable: sheet and card order within a group
        under: dict[tuple[float, float, str], Frame] = {}  # the background of the group being drawn
        small_under: dict[tuple[float, float, str], Frame] = {}  # the same at SCREEN_DPI
        for start in range(0, len(order), PNG_BATCH):
            batch = order[start:start + PNG_BATCH]
            buf = io.BytesIO()
            c = canvas(buf, compress=False)
            pages: list[tuple[FaceKey | None, tuple[float, float, str]]] = []  # each page: a face, or a background
            planned = set(under)
            for face, e in batch:
                size = self.size_of(e)
                g = group[face]
                shared = count[g] > 1
                c.setPageSize(_cell_pt(size, self.s.bleed))
                c._enforceColorSpace = swap_red_blue if swapped[g] else None
                if shared and g not in planned:
                    planned.add(g)
                    draw_face(c, split[face][0], size.w, size.h, self.s.bleed, self.s, self._images(e))
                    c.showPage()
                    pages.append((None, g))
                elements = split[face][1] if shared else self.parsed[face.text]
                draw_face(c, elements, size.w, size.h, self.s.bleed, self.s, self._images(e))
                c.showPage()
                pages.append((face, g))
            c.save()
            pdf = pdfium.PdfDocument(buf.getvalue())
            for i, (drawn_face, g) in enumerate(pages):
                # a face over a frame is drawn by PDFium's own calls on the raw page (pypdfium2's page object, with
                # its finalizer and bookkeeping, cost more Python than the calls); a frame or a whole face is
                # rasterized by `page.render`, which needs that object
                page = pdf[i] if drawn_face is None or count[g] == 1 else pdfium.raw.FPDF_LoadPage(pdf, i)
                swap = swapped[g]
                if drawn_face is None:
                    # the group before it is done: its frames go; each face of this one is drawn over a copy of
                    # this frame, and its bands still the frame's take the frame's deflated bytes (`Frame`)
                    w, h = pixel_size(page, self.s.png_dpi)
                    under = {g: Frame(render_rows(page, self.s.png_dpi, swap), 3 * w + 1, h)}
                    if screens:
                        w, h = screen_size(g[0], g[1])
                        small_under = {g: Frame(render_screen(page, self.s.bleed, g[0], g[1], swapped=swap),
                                                3 * w + 1, h)}
                else:
                    small = None
                    frame = under[g] if count[g] > 1 else None
                    if screens:
                        small_frame = small_under[g] if count[g] > 1 else None
                        rows = render_screen(page, self.s.bleed, g[0], g[1], small_frame, swapped=swap)
                        small = screen_png(rows, g[0], g[1], small_frame)
                    put(drawn_face, render_png(page, self.s.png_dpi, frame, small, swap))
                if isinstance(page, pdfium.PdfPage):
                    page.close()
                else:
                    pdfium.raw.FPDF_ClosePage(page)
            pdf.close()
        drawn = {face for face, _e in order}
        for face in dests:
            if face not in drawn:
                put(face, None)

    def _drawn_images(self, text: str, e: Entity) -> tuple[str, ...]:
        """The image files face `text` of `e` draws, in order ("" for a missing one, drawn as a placeholder)."""
        images = self._images(e)
        return tuple(str(images(rel) or "") for el in self.parsed[text]
                     if el.kind == "art" and (rel := el.str("image")))

    def backdrop_of(self, text: str, e: Entity, wide: bool) -> tuple[tuple[Element, ...], tuple[Element, ...]]:
        """`backdrop` of one face: with `wide`, also the shapes and art placeholders after its first text that share
        no pixel with what comes before them at the PNGs' resolution."""
        if not wide:
            return backdrop(self.parsed[text])
        size, images = self.size_of(e), self._images(e)
        px = 72.0 / min(self.s.png_dpi, SCREEN_DPI)  # apart at both resolutions the faces are rasterized at

        def where(el: Element) -> Extent | None:
            return footprint(el, size.w, size.h, self.s.bleed, self.s, images, px)

        def blank(el: Element) -> bool:
            rel = el.str("image")
            return not rel or images(rel) is None

        return backdrop(self.parsed[text], where, blank)


# the elements that read nothing of the card but themselves
BACKDROP = frozenset({"fill", "rect", "circle", "line", "icon"})


def _linked(existing: Path, dest: Path) -> bool:
    """Whether `dest` was made a second name of `existing` (a hard link): creating a file costs the kernel
    0.15-0.25 ms here, a link about 13 us (20,000 copies of a shared back at 10,000 cards: 3.2-5.4 s against
    0.26 s of system time). False where links are not possible (the caller writes a copy)."""
    try:
        os.link(existing, dest)
    except OSError:
        return False
    return True


def backdrop(elements: tuple[Element, ...], where: Callable[[Element], Extent | None] | None = None,
             blank_art: Callable[[Element], bool] | None = None) -> tuple[tuple[Element, ...], tuple[Element, ...]]:
    """A face's frame and the rest, to be drawn in that order with the same pixels as the face drawn at once.

    The frame is the face's leading plain shapes (fills, panels, lines, icons: nothing of the card's text or art).
    With `where` (the rectangle outside which an element leaves no pixel, or None if unknown), it also takes each
    later shape, and each art placeholder (`blank_art`: an art element whose image is missing, drawn without it),
    whose rectangle meets no element of the rest drawn before it: PDFium paints one object after another, each
    changing only the pixels under it, so two objects that touch no common pixel can be painted in either order
    (on a card template: the art box below the name and kind)."""
    under: list[Element] = []
    over: list[Element] = []
    taken: list[Extent] = []  # where the elements of the rest so far can have painted
    arts = [el.kind == "art" and where is not None and blank_art is not None and blank_art(el) for el in elements]
    last = max((i for i, el in enumerate(elements) if el.kind in BACKDROP or arts[i]), default=-1)
    for i, el in enumerate(elements):
        if i > last:  # no shape after it to move before it: the rest as it is (a card's rules text is not measured)
            over.extend(elements[i:])
            break
        art = arts[i]
        plain = el.kind in BACKDROP or art
        if plain and art:
            el = Element(el.kind, el.name, {k: v for k, v in el.props.items() if k != "image"})  # as it is drawn
        if plain and not over:
            under.append(el)
            continue
        if where is None:
            return tuple(under), elements[i:]
        spot = where(el)
        if plain and spot is not None and all(apart(spot, t) for t in taken):
            under.append(el)
            continue
        if spot is None:  # nothing after it can be moved before it
            over.extend(elements[i:])
            break
        over.append(elements[i])
        taken.append(spot)
    return tuple(under), tuple(over)


def _grids(b: PrintBuild, sheet: Sheet) -> str:
    """`9 poker cards (3x3) a page, ...`: what each size of the sheet puts on a page."""
    from cardc.backends.print.imposition import fit

    parts = []
    for size in dict.fromkeys(b.size_of(e) for e in sheet.entities if e.key in sheet.faces):
        grid = fit(size.w, size.h, b.s, size.shape == "round")
        if grid is not None:
            shape = " round" if size.shape == "round" else ""
            named = "" if size.name.split()[0] == f"{size.w:g}x{size.h:g}" else f"{size.name} "
            parts.append(f"{named}{size.w:g}x{size.h:g} mm{shape}: {grid.cols}x{grid.rows} a page")
    return ", ".join(parts)


def _shift(p: Placement, offset: int) -> Placement:
    return replace(p, slot=p.slot + offset)


def _cell_pt(size: CardSize, bleed: float) -> tuple[float, float]:
    return ((size.w + 2 * bleed) * mm, (size.h + 2 * bleed) * mm)


def run(project: Project, out: Path, options: BuildOptions, png: bool | None = None) -> tuple[list[Diagnostic],
                                                                                                 list[Sheet]]:
    """Build every sheet into `out/print`; also returns the sheets with their imposed pages (for tests)."""
    settings, diags = parse_settings(options.settings)
    if any(d.is_error for d in diags):
        return diags, []
    b = PrintBuild(project, settings)
    b.cache = options.cache
    folder = out / "print"
    with paused():  # no cyclic collections: see `collector`
        sheets = b.plan(folder)
        for sheet in sheets:
            b.write_sheet(sheet)
        if settings.png if png is None else png:  # all at once: faces and frames shared by sheets are drawn once
            b.write_all_pngs([(sheet, folder / "png" / sheet.path.stem) for sheet in sheets if sheet.pages],
                             screens=True)
    for sheet in sheets:
        if sheet.pages:
            options.notes.append(f"print: {sheet.path.name}: {len(sheet.pages)} pages on {sheet.sheets} "
                                 f"sheet{'s' if sheet.sheets != 1 else ''} ({_grids(b, sheet)})")
    b.languages_report(folder, options.notes)
    if sheets and settings.rulebook:
        from cardc.backends.print.rulebook import write_rulebooks

        write_rulebooks(project, folder, settings, b.faces_of(sheets), options.notes)
    if sheets:
        folder.mkdir(parents=True, exist_ok=True)
        c = canvas(str(folder / f"calibration-{settings.paper}.pdf"))
        draw_calibration(c, settings)
        c.save()
    return diags + sorted(b.diags.values(), key=Diagnostic.sort_key), [s for s in sheets if s.pages]


def write_print(project: Project, out: Path, options: BuildOptions) -> list[Diagnostic]:
    return run(project, out, options)[0]
