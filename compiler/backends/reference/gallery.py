"""The card gallery: every printed face of a game in one language, as data for `gallery.html`.

When the print backend draws PNGs (the default), the gallery shows those very images, front and back,
cropped to the trim as the cards will be cut: the gallery is the print. Built without PNGs
(`--png false`, or without the print backend), it falls back to an HTML drawing from the IR (name,
kind, numbers, rules text, nested abilities) at the trim size of the kind's card size.
"""

from __future__ import annotations

import zlib
from typing import Any

from cardc import syntax as s
from cardc.backends.reference.context import RefContext, module_page
from cardc.backends.reference.pages import children_of, physical

# The same palettes as the print sheets, chosen by the root kind, so a kind keeps its colours.
PALETTES = [
    {"frame": "#7a2e2e", "accent": "#d9a441", "panel": "#fbf6ec", "ink": "#1d1a16"},
    {"frame": "#2e4a7a", "accent": "#9fc1e8", "panel": "#f3f6fb", "ink": "#14181f"},
    {"frame": "#2f6b3a", "accent": "#b8d98c", "panel": "#f3f8ef", "ink": "#141c15"},
    {"frame": "#5b3a7a", "accent": "#cfb3ea", "panel": "#f7f2fb", "ink": "#1a1420"},
    {"frame": "#6b5a2f", "accent": "#e6d59a", "panel": "#faf7ec", "ink": "#1c1a12"},
    {"frame": "#2f6b6b", "accent": "#9fdcdc", "panel": "#eff8f8", "ink": "#121c1c"},
]
DEFAULT_SIZE = (63.0, 88.0, "rect")


def print_images(settings: dict[str, str]) -> tuple[bool, bool, float]:
    """Whether the print backend writes PNGs and backs, and its bleed (mm), from the build's settings."""
    png = settings.get("print.png", "true").strip().lower() not in ("0", "false", "no", "off")
    backs = settings.get("print.duplex", "long").strip().lower() != "none"
    try:
        bleed = float(settings.get("print.bleed", "3"))
    except ValueError:
        bleed = 3.0
    return png, backs, bleed


def _png_stem(game: str, lang: str, module: str) -> str:
    """The print backend's PNG folder of a sheet: `<game>-<lang>[-<expansion>]` (see `print.sheets`)."""
    return f"{game}-{lang}" if module == "base" else f"{game}-{lang}-{module}"


def _size(ctx: RefContext, kind: str) -> tuple[float, float, str]:
    kd = ctx.project.kinds.get((ctx.game.id, kind))
    if kd is None or not kd.size:
        return DEFAULT_SIZE
    try:
        from cardc.backends.print.presets import card_size
    except ImportError:  # the print backend is optional here
        return DEFAULT_SIZE
    size = card_size(kd.size)
    return (size.w, size.h, size.shape) if size is not None else DEFAULT_SIZE


def gallery_cards(ctx: RefContext, images: tuple[bool, bool, float] = (False, False, 0.0),
                  with_print: bool = False) -> list[dict[str, Any]]:
    """Every physical entity with at least one copy (and those whose count is not known yet).

    With `with_print` and PNGs on, each card links its print images (front, and back unless duplex is
    none); an entity the print backend skips (no copies yet) keeps the HTML drawing."""
    png, backs, bleed = images
    kids = children_of(ctx)
    modules = {m.id: m for m in ctx.project.modules_of(ctx.game.id)}
    cards = []
    for e in ctx.entities:
        if not physical(ctx, e) or (e.copies is not None and e.copies <= 0):
            continue
        w, h, shape = _size(ctx, e.kind)
        root = e.kinds[-1] if e.kinds else e.kind
        stats = []
        for key in sorted(e.attrs):
            raw = e.attrs[key]
            inner = raw.value if isinstance(raw, s.ProvisionalV) else raw
            if isinstance(inner, s.IntV | s.SignedV | s.DiceV | s.RangeV | s.UnknownV):
                stats.append({"label": ctx.attr_label(e.kind, key), "value": ctx.value(raw)})
        text = ctx.entity_text(e)
        lines = [ctx.rendered(r) for r in text]
        children = [{"name": ctx.name(c), "kind": ctx.kind_name(c.kind),
                     "lines": [ctx.rendered(r) for r in ctx.entity_text(c)]} for c in kids.get(e.id, [])]
        page, anchor = ctx.where[e.key]
        front = back = ""
        if with_print and png and (e.copies or 0) > 0:
            folder = f"../../../print/png/{_png_stem(ctx.game.id, ctx.lang, e.module)}/{e.key.replace(':', '.')}"
            front, back = f"{folder}.png", (f"{folder}-back.png" if backs else "")
        search = " ".join([ctx.name(e), ctx.kind_name(e.kind), *(r.plain for r in text),
                           *(ctx.name(c) for c in kids.get(e.id, []))]).lower()
        mod = modules.get(e.module)
        variant = ctx.ref(e.variant) if e.variant else None
        cards.append({
            "id": e.id, "anchor": anchor, "href": page, "name": ctx.name(e), "kind": e.kind,
            "kind_name": ctx.kind_name(e.kind), "kinds": " ".join(e.kinds), "module": e.module,
            "module_name": ctx.module_name(mod) if mod else e.module, "module_page": module_page(mod) if mod else "",
            "variant": e.variant or "-", "variant_name": ctx.name(variant) if variant else "",
            "copies": "?" if e.copies is None else str(e.copies), "stats": stats, "lines": lines,
            "children": children, "provisional": bool(e.provisional), "errata": e.errata,
            "w": f"{w:g}", "h": f"{h:g}", "shape": shape, "front": front, "back": back, "bleed": f"{bleed:g}",
            "search": " ".join(search.split()),
            "palette": PALETTES[zlib.crc32(root.encode()) % len(PALETTES)],
        })
    return cards


def gallery_filters(ctx: RefContext, cards: list[dict[str, Any]]) -> dict[str, list[dict[str, str]]]:
    """The options of the three filters: kinds (with their ancestors), expansions, variants."""
    order = {k.id: i for i, k in enumerate(ctx.project.kinds_of(ctx.game.id))}
    kinds = sorted({k for c in cards for k in c["kinds"].split()}, key=lambda k: (order.get(k, 999), k))
    mods = [m for m in ctx.modules() if any(c["module"] == m.id for c in cards)]
    variants = sorted({c["variant"] for c in cards if c["variant"] != "-"})
    return {
        "kind": [{"value": k, "label": ctx.kind_name(k)} for k in kinds],
        "module": [{"value": m.id, "label": ctx.module_name(m)} for m in mods],
        "variant": [{"value": "-", "label": ctx.s("no_variant")}]
        + [{"value": v, "label": _variant_label(ctx, v)} for v in variants],
    }


def _variant_label(ctx: RefContext, ident: str) -> str:
    e = ctx.ref(ident)
    return ctx.name(e) if e is not None else ident
