"""Tabletop Simulator saved objects: `export/tts/<game>-<lang>.json` and sheets in `export/tts/img/`.

Copy the JSON into TTS's `Saves/Saved Objects` folder: by default its image URLs are absolute `file:///` URLs of
the build folder, which TTS loads as they are; `tts_base_url` rewrites them for images hosted elsewhere. Cards of
one module and kind form one deck (`DeckCustom`; a single card is a `CardCustom`); round tokens and square tiles
become `Custom_Tile` pieces of TTS's own shapes, gathered in a `Bag` per module and kind. Every piece is repeated
`copies` times, named in the file's language, with the full rules text of it and of its abilities as the
description and its entity key in `GMNotes`. GUIDs are hashes of the piece's place, not random.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from cardc import syntax as s
from cardc.backends import BuildOptions
from cardc.backends.export import faces as fc
from cardc.backends.export import sheets as sh
from cardc.backends.export.document import export_languages
from cardc.backends.export.values import Localizer
from cardc.backends.print.png import read_screen, write_file
from cardc.buildcache import BuildCache
from cardc.diagnostics import NO_SPAN, Diagnostic, Severity
from cardc.model import Entity, KindDef, Project
from PIL import Image

POKER_MM = (63.5, 88.9)  # the size of a TTS card at scale 1
TILE_MM = 25.4  # a Custom_Tile at scale 1 is one inch across

# Tabletop Simulator's documented shape numbers (custom deck "Type" and Custom_Tile "CustomTile.Type").
CARD_TYPES = {"rectangle_rounded": 0, "rectangle": 1, "hex_rounded": 2, "hex": 3, "circle": 4}
TILE_TYPES = {"box": 0, "hex": 1, "circle": 2, "rounded": 3}

# Where TTS looks for saved objects, printed after a build so a user knows where the file goes.
SAVED_OBJECTS = {
    "Windows": r"%USERPROFILE%\Documents\My Games\Tabletop Simulator\Saves\Saved Objects",
    "macOS": "~/Library/Tabletop Simulator/Saves/Saved Objects",
    "Linux": "~/.local/share/Tabletop Simulator/Saves/Saved Objects",
}
DECK_SPACING = 4.0
DECKS_PER_ROW = 8
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


@dataclass
class Sheet:
    """One CustomDeck entry: up to 69 distinct cards of one deck and the images behind them."""

    number: int
    cards: list[Entity]
    cols: int
    rows: int
    face_file: str
    back_file: str
    unique_back: bool = False


@dataclass
class Deck:
    module: str
    kind: KindDef
    entities: list[Entity]
    size_mm: tuple[float, float] = POKER_MM
    round_cut: bool = False
    sheets: list[Sheet] = field(default_factory=list)

    @property
    def as_tiles(self) -> bool:
        """Round tokens and square tiles are TTS tiles of that shape; everything else is a card deck."""
        w, h = self.size_mm
        return self.round_cut or abs(w - h) < 0.01

    @property
    def tile_type(self) -> int:
        return TILE_TYPES["circle"] if self.round_cut else TILE_TYPES["box"]


@dataclass(frozen=True)
class TtsSettings:
    base_url: str = ""  # empty: absolute file:/// URLs of the build's destination folder
    images: bool = True
    destination: Path | None = None  # where the build's output ends up (the build writes to a temp folder first)


def parse_settings(raw: dict[str, str]) -> tuple[TtsSettings, list[Diagnostic]]:
    diags = []
    images = True
    value = raw.get("tts_images")
    if value is not None:
        if value.strip().lower() in _TRUE | _FALSE:
            images = value.strip().lower() in _TRUE
        else:
            diags.append(Diagnostic(Severity.ERROR, "E600", f"export setting `tts_images`: `{value}` is not "
                                    "true or false", NO_SPAN))
    return TtsSettings(base_url=raw.get("tts_base_url", "").strip(), images=images), diags


def _size(kd: KindDef) -> tuple[tuple[float, float], bool]:
    try:
        from cardc.backends.print.presets import card_size
    except ImportError:  # pragma: no cover - the print backend is part of the compiler
        return POKER_MM, False
    size = card_size(kd.size or "poker") or card_size("poker")
    if size is None:  # pragma: no cover
        return POKER_MM, False
    return (size.w, size.h), size.shape == "round"


def plan_decks(project: Project, game: str) -> list[Deck]:
    """Decks in a fixed order: base game first, then expansions by id; kinds in order of first use."""
    groups: dict[tuple[str, str], list[Entity]] = {}
    for e in project.physical_entities(game):
        groups.setdefault((e.module, e.kind), []).append(e)
    keys = sorted(groups, key=lambda k: (k[0] != "base", k[0]))  # stable: keeps first-use order of kinds
    decks = []
    for module, kind in keys:
        kd = project.kinds[(game, kind)]
        size, round_cut = _size(kd)
        decks.append(Deck(module, kd, groups[(module, kind)], size, round_cut))
    return decks


def _guid(*parts: object) -> str:
    return hashlib.sha1("/".join(str(p) for p in parts).encode("utf-8")).hexdigest()[:6]


def _folder_uri(settings: TtsSettings) -> str:
    """`file:///.../export/tts` in the folder the build's output ends up in."""
    return ((settings.destination or Path.cwd()).resolve() / "export" / "tts").as_uri()


class TtsExport:
    """The saved-object file of one game in one language, and the images it points to."""

    def __init__(self, project: Project, game: str, lang: str, settings: TtsSettings,
                 rules: Callable[[Entity, str], list[str]]) -> None:
        self.project = project
        self.game = project.games[game]
        self.lang = lang
        self.settings = settings
        self.rules = rules
        self.printed = fc.PrintedFaces()  # print's PNGs, decoded and scaled once per distinct image
        self._plain: dict[tuple[str, str, tuple[int, int], str], Image.Image] = {}
        self._canvas: sh.SheetCanvas | None = None  # the last sheet written: the next of its size reuses its memory
        self._folder = "" if settings.base_url else _folder_uri(settings)  # resolved once, not for every card
        self.loc = Localizer(export_languages(self.game), self.game.fallback)
        self.stem = f"{game}-{lang}"
        self.decks = plan_decks(project, game)
        self.children: dict[str, list[Entity]] = {}
        for e in project.entities_of(game):
            if e.parent is not None and not e.errata:
                self.children.setdefault(e.parent, []).append(e)
        number = 0
        for deck in self.decks:
            if deck.as_tiles:
                continue
            for part in sh.chunks(deck.entities):
                number += 1
                cols, rows = sh.grid(len(part))
                deck.sheets.append(Sheet(number, part, cols, rows, f"img/{self.stem}-{number}.png",
                                         f"img/{self.stem}-{number}-back.png"))

    # ---- texts -------------------------------------------------------------

    def text(self, v: s.LocalizedV | None) -> str:
        got = self.loc.pick(v, self.lang) if v is not None else None
        return got[0] if got else ""

    def name(self, e: Entity) -> str:
        return self.text(e.name) or e.id

    def kind_name(self, kd: KindDef) -> str:
        return self.text(kd.name) or kd.id.replace("_", " ")

    def deck_name(self, deck: Deck) -> str:
        mod = self.project.modules.get(self.game.id if deck.module == "base" else f"{self.game.id}.{deck.module}")
        module_name = self.text(mod.name) if mod is not None and mod.name is not None else deck.module
        return self.kind_name(deck.kind) if deck.module == "base" else f"{self.kind_name(deck.kind)} ({module_name})"

    def word(self, ident: str) -> str:
        from cardc.lexicon import default_lexicon

        lex = default_lexicon()
        for lang in (self.lang, self.game.fallback):
            found = lex.form(ident, lang, None)
            if found:
                return found
        return ident.replace("_", " ")

    def stat(self, v: s.Value) -> str:
        match v:
            case s.ProvisionalV(value=inner):
                return self.stat(inner) + "?"
            case s.UnknownV():
                return "?"
            case s.IntV(value=n):
                return str(n)
            case s.SignedV(value=n):
                return f"{n:+d}"
            case s.DiceV(count=c, sides=d):
                return f"{c if c != 1 else ''}d{d}"
            case s.RangeV(lo=lo, hi=hi):
                return f"{lo}–{hi}"
        return "?"

    def description(self, e: Entity) -> str:
        """The piece's full rules text, then each of its abilities' (named), so a player can read what it does."""
        lines = list(self.rules(e, self.lang))
        for child in self.children.get(e.id, ()):
            text = " ".join(self.rules(child, self.lang))
            if text:
                lines.append(f"{self.name(child)}: {text}")
        return "\n".join(lines)

    def face_text(self, e: Entity, kd: KindDef) -> fc.FaceText:
        stats = tuple(f"{self.word(k)} {self.stat(v)}" for k, v in fc.stat_items(e))
        return fc.FaceText(self.name(e), self.kind_name(kd), stats, tuple(self.rules(e, self.lang)),
                           bool(e.provisional))

    # ---- objects -----------------------------------------------------------

    def url(self, rel: str) -> str:
        """A URL TTS can load: under `base_url` if set, else the file's absolute file:/// URL in the final folder."""
        if self.settings.base_url:
            return f"{self.settings.base_url.rstrip('/')}/{rel}"
        return f"{self._folder}/{quote(rel)}"

    def custom_deck(self, sheet: Sheet, round_cut: bool) -> dict[str, Any]:
        return {
            "FaceURL": self.url(sheet.face_file),
            "BackURL": self.url(sheet.back_file),
            "NumWidth": sheet.cols,
            "NumHeight": sheet.rows,
            "BackIsHidden": False,  # the sheet's last cell is the hidden face
            "UniqueBack": sheet.unique_back,
            "Type": CARD_TYPES["circle" if round_cut else "rectangle_rounded"],
        }

    def transform(self, deck: Deck, i: int) -> dict[str, float]:
        w, h = deck.size_mm
        return {"posX": round((i % DECKS_PER_ROW) * DECK_SPACING, 4), "posY": 1.0,
                "posZ": round(-(i // DECKS_PER_ROW) * DECK_SPACING * 1.5, 4),
                "rotX": 0.0, "rotY": 180.0, "rotZ": 180.0,
                "scaleX": round(w / POKER_MM[0], 4), "scaleY": 1.0, "scaleZ": round(h / POKER_MM[1], 4)}

    def card(self, deck: Deck, i: int, sheet: Sheet, index: int, e: Entity, copy: int, name: str) -> dict[str, Any]:
        return {
            "Name": name,
            "Nickname": self.name(e),
            "Description": self.description(e),
            "GMNotes": e.key,
            "CardID": sheet.number * 100 + index,
            "CustomDeck": {str(sheet.number): self.custom_deck(sheet, deck.round_cut)},
            "Transform": self.transform(deck, i),
            "GUID": _guid(self.stem, sheet.number, index, copy),
            "Locked": False, "Grid": True, "Snap": True, "Autoraise": True, "Sticky": True, "Tooltip": True,
            "HideWhenFaceDown": True, "Hands": True, "SidewaysCard": False,
            "ColorDiffuse": {"r": 0.713, "g": 0.713, "b": 0.713},
        }

    def tile_files(self, e: Entity) -> tuple[str, str]:
        stem = f"img/{self.stem}-{e.key.replace(':', '.')}"
        return f"{stem}.png", f"{stem}-back.png"

    def tile(self, deck: Deck, i: int, e: Entity, copy: int) -> dict[str, Any]:
        face, back = self.tile_files(e)
        w, h = deck.size_mm
        return {
            "Name": "Custom_Tile",
            "Nickname": self.name(e),
            "Description": self.description(e),
            "GMNotes": e.key,
            "CustomImage": {"ImageURL": self.url(face), "ImageSecondaryURL": self.url(back),
                            "ImageScalar": 1.0, "WidthScale": 0.0,
                            "CustomTile": {"Type": deck.tile_type, "Thickness": 0.1, "Stackable": True,
                                           "Stretch": True}},
            "Transform": {**self.transform(deck, i), "rotZ": 0.0,
                          "scaleX": round(w / TILE_MM, 4), "scaleZ": round(h / TILE_MM, 4)},
            "GUID": _guid(self.stem, "tile", e.key, copy),
            "Locked": False, "Grid": True, "Snap": True, "Autoraise": True, "Sticky": True, "Tooltip": True,
            "HideWhenFaceDown": False, "Hands": False,
            "ColorDiffuse": {"r": 1.0, "g": 1.0, "b": 1.0},
        }

    def bag_object(self, deck: Deck, i: int) -> dict[str, Any]:
        """Tokens and tiles of one module and kind in a bag, as they are drawn in play; one piece stands alone."""
        pieces = [self.tile(deck, i, e, copy) for e in deck.entities for copy in range(e.copies or 0)]
        if len(pieces) == 1:
            return pieces[0]
        return {
            "Name": "Bag",
            "Nickname": self.deck_name(deck),
            "Description": "",
            "GMNotes": f"{self.game.id}/{deck.module}/{deck.kind.id}",
            "ContainedObjects": pieces,
            "Transform": {**self.transform(deck, i), "rotZ": 0.0, "scaleX": 1.0, "scaleZ": 1.0},
            "GUID": _guid(self.stem, "bag", deck.module, deck.kind.id),
            "Locked": False, "Grid": True, "Snap": True, "Autoraise": True, "Sticky": True, "Tooltip": True,
            "HideWhenFaceDown": False, "Hands": False, "MaterialIndex": 1,
            "ColorDiffuse": {"r": 0.45, "g": 0.3, "b": 0.2},
        }

    def deck_object(self, deck: Deck, i: int) -> dict[str, Any]:
        if deck.as_tiles:
            return self.bag_object(deck, i)
        cards = [(sheet, index, e, copy) for sheet in deck.sheets for index, e in enumerate(sheet.cards)
                 for copy in range(e.copies or 0)]
        if len(cards) == 1:
            sheet, index, e, copy = cards[0]
            return self.card(deck, i, sheet, index, e, copy, "CardCustom")
        return {
            "Name": "DeckCustom",
            "Nickname": self.deck_name(deck),
            "Description": "",
            "GMNotes": f"{self.game.id}/{deck.module}/{deck.kind.id}",
            "DeckIDs": [sheet.number * 100 + index for sheet, index, _, _ in cards],
            "CustomDeck": {str(sh_.number): self.custom_deck(sh_, deck.round_cut) for sh_ in deck.sheets},
            "ContainedObjects": [self.card(deck, i, *c, "Card") for c in cards],
            "Transform": self.transform(deck, i),
            "GUID": _guid(self.stem, "deck", deck.module, deck.kind.id),
            "Locked": False, "Grid": True, "Snap": True, "Autoraise": True, "Sticky": True, "Tooltip": True,
            "HideWhenFaceDown": True, "Hands": False, "SidewaysCard": False,
            "ColorDiffuse": {"r": 0.713, "g": 0.713, "b": 0.713},
        }

    def save(self) -> dict[str, Any]:
        return {
            "SaveName": f"{self.text(self.game.name) or self.game.id} ({self.lang})",
            "GameMode": "", "Date": "", "VersionNumber": "", "Gravity": 0.5, "PlayArea": 0.5,
            "Table": "", "Sky": "", "Note": "", "Rules": "", "XmlUI": "", "LuaScript": "", "LuaScriptState": "",
            "TabStates": {},
            "ObjectStates": [self.deck_object(deck, i) for i, deck in enumerate(self.decks)],
        }

    # ---- images ------------------------------------------------------------

    def write_images(self, folder: Path, print_png: Path | None, cache: BuildCache | None = None) -> None:
        """Face and back sheets of every deck into `folder` (the `img/` folder of the saved objects).

        With the build's cache, an image whose inputs (the print backend's PNGs of its cards, or what a
        drawn face says) are those of the previous build is reused rather than composed again."""
        folder.mkdir(parents=True, exist_ok=True)
        title = self.text(self.game.name) or self.game.id
        for deck in self.decks:
            color = fc.color_of(deck.kind.id)
            if deck.as_tiles:
                self._write_tile_images(folder, print_png, deck, title, color, cache)
            for sheet in deck.sheets:
                self._write_sheet_images(folder, print_png, deck, sheet, title, color, cache)

    def _write_sheet_images(self, folder: Path, print_png: Path | None, deck: Deck, sheet: Sheet, title: str,
                            color: str, cache: BuildCache | None) -> None:
        """A sheet's faces, and its backs: a sheet of them when the print backend's backs differ (UniqueBack), else
        one image (the printed back they share, or a drawn one when the print backend drew none)."""
        cell = sh.cell_size(*deck.size_mm, sheet.cols, sheet.rows)
        kind_name = self.kind_name(deck.kind)
        srcs = [self._print_png(print_png, deck, e) for e in sheet.cards]
        faces = [_face_png(src, cell) for src in srcs]
        layout = repr((title, kind_name, color, cell, sheet.cols, sheet.rows, deck.size_mm, deck.round_cut))
        face_file = folder / Path(sheet.face_file).name
        face_key = cache.key("tts-faces", layout, *(
            png.digest if png is not None else repr(self.face_text(e, deck.kind))
            for e, png in zip(sheet.cards, faces, strict=True))) if cache is not None else ""
        if cache is None or not cache.fetch(face_key, face_file):
            canvas = self._canvas = sh.SheetCanvas(sheet.cols, sheet.rows, cell, reuse=self._canvas)
            for i, (e, png) in enumerate(zip(sheet.cards, faces, strict=True)):
                face = self.printed(png, *deck.size_mm, cell) if png is not None else None
                canvas.paste(i, face or fc.draw_face(self.face_text(e, deck.kind), *cell, color, deck.round_cut))
            canvas.paste(sh.hidden_index(sheet.cols, sheet.rows), self.plain(title, "", cell, color))
            write_file(face_file, canvas.png())
            if cache is not None:
                cache.store(face_key, face_file)
        del faces
        backs = [_face_png(src.with_name(src.stem + "-back.png"), cell) if src is not None else None for src in srcs]
        printed = [b for b in backs if b is not None]
        shared = printed[0] if len(printed) == len(backs) and len({b.digest for b in printed}) == 1 else None
        sheet.unique_back = len(printed) == len(backs) and shared is None
        back_file = folder / Path(sheet.back_file).name
        back_key = cache.key("tts-backs", layout, *(b.digest if b is not None else "" for b in backs)) \
            if cache is not None else ""
        if cache is not None and cache.fetch(back_key, back_file):
            return
        if sheet.unique_back:
            canvas = self._canvas = sh.SheetCanvas(sheet.cols, sheet.rows, cell, reuse=self._canvas)
            for i, png in enumerate(printed):
                canvas.paste(i, self.printed(png, *deck.size_mm, cell) or self.plain(title, kind_name, cell, color))
            canvas.paste(sh.hidden_index(sheet.cols, sheet.rows), self.plain(title, kind_name, cell, color))
            write_file(back_file, canvas.png())
        else:
            back = self.printed(shared, *deck.size_mm, cell) if shared is not None else None
            write_file(back_file, sh.png_bytes(back or self.plain(title, kind_name, cell, color)))
        if cache is not None:
            cache.store(back_key, back_file)

    def plain(self, title: str, subtitle: str, cell: tuple[int, int], color: str) -> Image.Image:
        """`faces.draw_plain`, drawn once per export (every sheet of a deck pastes the same hidden face)."""
        key = (title, subtitle, cell, color)
        img = self._plain.get(key)
        if img is None:
            img = self._plain[key] = fc.draw_plain(title, subtitle, *cell, color)
        return img

    def _write_tile_images(self, folder: Path, print_png: Path | None, deck: Deck, title: str, color: str,
                           cache: BuildCache | None = None) -> None:
        """One image per tile or token and side (TTS tiles take single images, not sheets)."""
        cell = sh.cell_size(*deck.size_mm, 1, 1)
        kind_name = self.kind_name(deck.kind)
        for e in deck.entities:
            face_name, back_name = self.tile_files(e)
            face_file, back_file = folder / Path(face_name).name, folder / Path(back_name).name
            src = self._print_png(print_png, deck, e)
            png = _face_png(src, cell)
            back_png = _face_png(src.with_name(src.stem + "-back.png"), cell) if src is not None else None
            layout = repr((title, kind_name, color, cell, deck.size_mm, deck.round_cut))
            face_key = cache.key("tts-tile", layout, png.digest if png is not None else
                                 repr(self.face_text(e, deck.kind))) if cache is not None else ""
            if cache is None or not cache.fetch(face_key, face_file):
                face = self.printed(png, *deck.size_mm, cell) if png is not None else None
                face = face or fc.draw_face(self.face_text(e, deck.kind), *cell, color, deck.round_cut)
                write_file(face_file, sh.png_bytes(face))
                if cache is not None:
                    cache.store(face_key, face_file)
            back_key = cache.key("tts-tile-back", layout, back_png.digest if back_png is not None else "") \
                if cache is not None else ""
            if cache is None or not cache.fetch(back_key, back_file):
                back = self.printed(back_png, *deck.size_mm, cell) if back_png is not None else None
                back = back or fc.draw_plain(title, kind_name, *cell, color)
                write_file(back_file, sh.png_bytes(back))
                if cache is not None:
                    cache.store(back_key, back_file)

    def _print_png(self, root: Path | None, deck: Deck, e: Entity) -> Path | None:
        if root is None:
            return None
        try:
            from cardc.backends.print.names import sheet_name
        except ImportError:  # pragma: no cover
            return None
        stem = Path(sheet_name(self.game.id, self.lang, deck.module)).stem
        return root / stem / f"{e.key.replace(':', '.')}.png"


def _face_png(path: Path | None, cell: tuple[int, int]) -> fc.PrintPng | None:
    """The print backend's image of a face for a `cell`, from its PNG at `path` (`print/png/<sheet>/<card>.png`):
    the screen face that PNG holds (the face without bleed at 150 dpi, `png.screen_of`; pasted as it is when it
    has the cell's size, scaled down for the smaller cells of large cards), else the PNG itself, cut and scaled.
    A sheet's cache key is made of the digests of these."""
    if path is None:
        return None
    try:
        screen = read_screen(path)  # (the screen face alone: the PNG's 300 dpi pixels are not read)
    except OSError:
        return None
    if screen is not None:
        small = fc.PrintPng.of(screen)
        size = small.size
        if size is not None and size[0] >= cell[0] and size[1] >= cell[1]:
            return small
    try:
        data = path.read_bytes()
    except OSError:
        return None
    return fc.PrintPng.of(data)


class RulesCache:
    """Rules text per entity and language, computed once for every file of the build."""

    def __init__(self, project: Project) -> None:
        from cardc.backends.export.document import _rules_text_function

        self.project = project
        self.fn = _rules_text_function()
        self.cache: dict[tuple[str, str], list[str]] = {}

    def __call__(self, e: Entity, lang: str) -> list[str]:
        key = (f"{e.game}/{e.key}", lang)
        if key not in self.cache:
            self.cache[key] = [t for t in self.fn(self.project, e, lang) if t] if self.fn is not None else []
        return self.cache[key]


def write_tts(project: Project, out: Path, options: BuildOptions, rules: RulesCache | None = None) -> list[Diagnostic]:
    from cardc.backends.export import write_json

    settings, diags = parse_settings(options.settings)
    if any(d.is_error for d in diags):
        return diags
    # TTS URLs name where the files end up: the build's destination, or the folder written outside a build.
    settings = TtsSettings(settings.base_url, settings.images, options.destination or out)
    rules = rules or RulesCache(project)
    cache = options.cache if isinstance(options.cache, BuildCache) else None
    folder = out / "export" / "tts"
    print_png = out / "print" / "png"
    for game in sorted(project.games):
        for lang in export_languages(project.games[game]):
            tts = TtsExport(project, game, lang, settings, rules)
            if not tts.decks:
                continue
            if settings.images:
                tts.write_images(folder / "img", print_png if print_png.is_dir() else None, cache)
            folder.mkdir(parents=True, exist_ok=True)
            write_json(folder / f"{tts.stem}.json", tts.save())
    return diags


def copy_instructions(out: Path) -> list[str]:
    """Where to put the saved objects a build wrote, for the build's closing lines."""
    files = sorted((out / "export" / "tts").glob("*.json"))
    if not files:
        return []
    lines = [f"Tabletop Simulator: copy {len(files)} saved object file{'s' if len(files) != 1 else ''} from "
             f"{out / 'export' / 'tts'} into TTS's Saved Objects folder:"]
    lines += [f"  {system}: {path}" for system, path in SAVED_OBJECTS.items()]
    return lines


__all__ = ["Deck", "Sheet", "TtsExport", "TtsSettings", "copy_instructions", "parse_settings", "plan_decks",
           "write_tts"]
