"""The card gallery: every printed face of a game in one language, as data for `gallery.html`.

The faces are drawn with HTML and CSS from the IR (name, kind, numbers, rules text, nested abilities),
at the trim size of the kind's card preset, so the gallery needs neither the print backend nor images.
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


def gallery_cards(ctx: RefContext) -> list[dict[str, Any]]:
    """Every physical entity with at least one copy (and those whose count is not known yet)."""
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
        lines = [ctx.rendered(r) for r in ctx.gen.entity(e, ctx.lang)]
        children = [{"name": ctx.name(c), "kind": ctx.kind_name(c.kind),
                     "lines": [ctx.rendered(r) for r in ctx.gen.entity(c, ctx.lang)]} for c in kids.get(e.id, [])]
        page, anchor = ctx.where[e.key]
        mod = modules.get(e.module)
        variant = ctx.ref(e.variant) if e.variant else None
        cards.append({
            "id": e.id, "anchor": anchor, "href": page, "name": ctx.name(e), "kind": e.kind,
            "kind_name": ctx.kind_name(e.kind), "kinds": " ".join(e.kinds), "module": e.module,
            "module_name": ctx.module_name(mod) if mod else e.module, "module_page": module_page(mod) if mod else "",
            "variant": e.variant or "-", "variant_name": ctx.name(variant) if variant else "",
            "copies": "?" if e.copies is None else str(e.copies), "stats": stats, "lines": lines,
            "children": children, "provisional": bool(e.provisional), "errata": e.errata,
            "w": f"{w:g}", "h": f"{h:g}", "shape": shape,
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
