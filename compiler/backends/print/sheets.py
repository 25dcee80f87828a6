"""Backend `print`: `print/<game>-<lang>[-<expansion>].pdf` and per-card PNGs for every published language.

The base game and each expansion get their own file, so an expansion is printed on its own. Cards
of one size share pages; each card appears `copies` times; backs follow each front page.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field, replace
from pathlib import Path

from cardc.backends import BuildOptions
from cardc.backends.print.cards import CardTexts, image_path
from cardc.backends.print.imposition import Page, Placement, impose
from cardc.backends.print.png import encode_png
from cardc.backends.print.presets import CardSize, card_size, known_sizes
from cardc.backends.print.render import DrawReport, ImageResolver, draw_calibration, draw_face, draw_pages
from cardc.backends.print.settings import PrintSettings, parse_settings
from cardc.backends.print.templates import Element, TemplateError, Templates, parse_elements
from cardc.diagnostics import NO_SPAN, Diagnostic, Severity, Span
from cardc.model import Entity, Project
from reportlab import rl_config
from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas

DEFAULT_SIZE = "poker"


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


def canvas(target: str | io.BytesIO, size: tuple[float, float] = (595.0, 842.0)) -> Canvas:
    """A reportlab canvas that writes byte-identical files for identical input."""
    rl_config.useA85 = 0  # plain binary streams: smaller files and faster than ASCII85
    c = Canvas(target, pagesize=size, invariant=1, pageCompression=1)
    c.setCreator("cardc")
    c.setProducer("cardc")
    return c


def sheet_name(game: str, lang: str, module: str) -> str:
    return f"{game}-{lang}.pdf" if module == "base" else f"{game}-{lang}-{module}.pdf"


def printed_entities(project: Project, game: str) -> list[Entity]:
    """Physical entities with at least one copy, in declaration order."""
    out = []
    for e in project.entities_of(game):
        kd = project.kinds.get((game, e.kind))
        if kd is not None and kd.physical and (e.copies or 0) > 0:
            out.append(e)
    return out


class PrintBuild:
    """State of one run of the backend: settings, templates per game, diagnostics, sheets made."""

    def __init__(self, project: Project, settings: PrintSettings) -> None:
        self.project = project
        self.s = settings
        self.diags: dict[tuple[str, str, str], Diagnostic] = {}
        self.templates: dict[str, Templates] = {}
        self.parsed: dict[str, tuple[Element, ...]] = {}  # template output -> its elements
        self.size_cache: dict[tuple[str, str], CardSize] = {}
        self._reports: dict[str, DrawReport] = {}

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

    def face_texts(self, texts: CardTexts, e: Entity) -> tuple[str, str | None] | None:
        size = self.size_of(e)
        ctx = texts.context(e, size.w, size.h, self.s.bleed, size.shape)
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

    def report(self, e: Entity, lang: str, r: DrawReport) -> None:
        for box, min_size in r.overflow:
            self._diag(Severity.WARNING, "W602", f"text box `{box}` of {e.kind} `{e.id}` does not fit in language "
                       f"`{lang}`, even at {min_size:g} pt", e.span,
                       "shorten the text, give the box more room in the kind's template, or lower print.min_text")
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
            entities = printed_entities(self.project, game)
            modules = sorted({e.module for e in entities}, key=lambda m: (m != "base", m))
            for lang in g.publish or g.languages:
                texts = CardTexts(self.project, game, lang)
                for module in modules:
                    mine = [e for e in entities if e.module == module]
                    sheet = Sheet(out / sheet_name(game, lang, module), game, lang, module, mine)
                    for e in mine:
                        faces = self.face_texts(texts, e)
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
                pages = impose(len(slots), size.w, size.h, self.s)
            except ValueError:
                self._diag(Severity.ERROR, "E600", f"{size.name} cards ({size.w:g}x{size.h:g} mm) with "
                           f"{self.s.bleed:g} mm bleed do not fit on {self.s.paper} paper", NO_SPAN,
                           "use bigger paper, less bleed or a smaller print.margin / print.mark_length")
                continue
            slot_forms = []
            for e in slots:
                front, back = sheet.faces[e.key]
                slot_forms.append((self._form(c, forms, front, e, sheet, size),
                                   self._form(c, forms, back, e, sheet, size) if back is not None else None))
            draw_pages(c, pages, slot_forms, self.s)
            offset = len(sheet.slots)
            sheet.slots.extend(slots)
            for page in pages:
                page.placements = [_shift(p, offset) for p in page.placements]
            sheet.pages.extend(pages)
        if sheet.pages:
            sheet.path.parent.mkdir(parents=True, exist_ok=True)
            c.save()

    def _form(self, c: Canvas, forms: dict[str, str], text: str, e: Entity, sheet: Sheet, size: CardSize) -> str:
        name = forms.get(text)
        if name is None:
            name = forms[text] = f"card{len(forms)}"
            c.beginForm(name, 0, 0, *_cell_pt(size, self.s.bleed))
            r = draw_face(c, self.parsed[text], size.w, size.h, self.s.bleed, self.s, self._images(e))
            c.endForm()
            self._reports[text] = r
        self.report(e, sheet.lang, self._reports[text])
        return name

    def _images(self, e: Entity) -> ImageResolver:
        return lambda rel: image_path(self.project, e, rel)

    def write_pngs(self, sheet: Sheet, folder: Path) -> None:
        """One PNG per card front and back (`<card>.png`, `<card>-back.png`) at the configured dpi."""
        import pypdfium2 as pdfium

        distinct: dict[str, int] = {}
        order: list[tuple[str, Entity]] = []
        for e in sheet.entities:
            faces = sheet.faces.get(e.key)
            if faces is None:
                continue
            for text in faces:
                if text is not None and text not in distinct:
                    distinct[text] = len(order)
                    order.append((text, e))
        if not order:
            return
        buf = io.BytesIO()
        c = canvas(buf)
        for text, e in order:
            size = self.size_of(e)
            c.setPageSize(_cell_pt(size, self.s.bleed))
            draw_face(c, self.parsed[text], size.w, size.h, self.s.bleed, self.s, self._images(e))
            c.showPage()
        c.save()
        pdf = pdfium.PdfDocument(buf.getvalue())
        pngs: list[bytes] = []
        scale = self.s.png_dpi / 72.0
        for i in range(len(order)):
            pngs.append(encode_png(pdf[i].render(scale=scale).to_pil(), self.s.png_dpi))
        pdf.close()
        folder.mkdir(parents=True, exist_ok=True)
        for e in sheet.entities:
            faces = sheet.faces.get(e.key)
            if faces is None:
                continue
            stem = e.key.replace(":", ".")
            (folder / f"{stem}.png").write_bytes(pngs[distinct[faces[0]]])
            if faces[1] is not None:
                (folder / f"{stem}-back.png").write_bytes(pngs[distinct[faces[1]]])


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
    folder = out / "print"
    sheets = b.plan(folder)
    for sheet in sheets:
        b.write_sheet(sheet)
        if (settings.png if png is None else png) and sheet.pages:
            b.write_pngs(sheet, folder / "png" / sheet.path.stem)
    if sheets:
        folder.mkdir(parents=True, exist_ok=True)
        c = canvas(str(folder / f"calibration-{settings.paper}.pdf"))
        draw_calibration(c, settings)
        c.save()
    return diags + sorted(b.diags.values(), key=Diagnostic.sort_key), [s for s in sheets if s.pages]


def write_print(project: Project, out: Path, options: BuildOptions) -> list[Diagnostic]:
    return run(project, out, options)[0]
