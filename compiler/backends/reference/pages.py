"""The pages of one game's reference in one language, as plain data for the HTML and Markdown templates.

A page is `{"stem", "title", "sections": [{"id", "title", "blocks"}]}`; a block is a paragraph (`p`),
a list, a table, an entity `entry` or a side-by-side pair (`side`, for errata).
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from cardc import syntax as s
from cardc.backends.reference.context import RefContext, Rich, module_page
from cardc.irvisit import ValueVisitor
from cardc.model import Entity
from cardc.textcheck import effect_invocations

Page = dict[str, Any]
Block = dict[str, Any]
SKIP_ATTRS = {"image", "note", "gender"}  # gender only steers the generated grammar


def _t(text: str) -> Rich:
    return [{"t": text}]


def _p(text: str, cls: str = "") -> Block:
    return {"type": "p", "rich": _t(text), "cls": cls}


# ---- entries --------------------------------------------------------------------


def children_of(ctx: RefContext) -> dict[str, list[Entity]]:
    out: dict[str, list[Entity]] = {}
    for e in ctx.entities:
        if e.parent and not e.errata:
            out.setdefault(e.parent, []).append(e)
    return out


def entry(ctx: RefContext, e: Entity, kids: dict[str, list[Entity]], level: int = 3) -> Block:
    """One entity: name, kind, attributes, hand-written text, effects in words, nested entities."""
    page, anchor = ctx.where[e.key]
    badges: Rich = []
    if e.errata:
        badges.append({"t": ctx.s("errata_badge"), "badge": "errata"})
    if e.provisional:  # the notes say why, for designers; players see what is provisional
        title = ("; ".join(f"{a}: {n}" for a, n in e.provisional) if ctx.designer
                 else ", ".join(dict.fromkeys(ctx.provisional_label(e, a) for a, _ in e.provisional)))
        badges.append({"t": ctx.s("provisional_badge"), "badge": "provisional", "title": title})
    attrs: list[tuple[str, Rich]] = []
    if e.copies is not None and ctx.project.kinds.get((e.game, e.kind)) is not None \
            and ctx.project.kinds[(e.game, e.kind)].physical:
        attrs.append((ctx.s("count"), _t(str(e.copies))))
    for key in sorted(e.attrs):
        if key not in SKIP_ATTRS:
            attrs.append((ctx.attr_label(e.kind, key), ctx.value(e.attrs[key], key)))
    for a, _ in e.provisional:
        if a == "copies" and not any(lbl == ctx.s("count") for lbl, _ in attrs):
            attrs.append((ctx.s("count"), [{"t": "?"}]))
    if e.tags:
        attrs.append((ctx.s("tags"), _t(", ".join(ctx.tag_name(x) for x in e.tags))))
    if e.variant:
        v = ctx.ref(e.variant)
        attrs.append((ctx.s("variant_only"), [ctx.link(v)] if v else _t(e.variant)))
    meta: list[tuple[str, Rich]] = []
    note = e.attrs.get("note")
    if ctx.designer and isinstance(note, s.StrV | s.LocalizedV):  # notes and sources are for designers
        meta.append((ctx.s("note"), ctx.value(note)))
    if ctx.designer and e.source:
        meta.append((ctx.s("source"), _t(e.source)))
    hand = [ctx.linked(ctx.loc(e.text))] if e.text is not None and ctx.loc(e.text) else []
    effects = [ctx.rendered(r) for r in ctx.effect_text(e)]
    return {
        "type": "entry", "id": anchor, "level": level, "title": ctx.name(e), "kind": ctx.kind_name(e.kind),
        "badges": badges, "attrs": attrs, "hand": hand, "effects": effects, "meta": meta,
        "children": [entry(ctx, c, kids, min(level + 1, 6)) for c in kids.get(e.id, [])],
    }


def _kind_order(ctx: RefContext) -> dict[str, int]:
    return {k.id: i for i, k in enumerate(ctx.project.kinds_of(ctx.game.id))}


def _nav(ctx: RefContext) -> list[dict[str, str]]:
    items = [{"href": "index", "t": ctx.s("contents")}]
    items += [{"href": module_page(m), "t": ctx.module_name(m)} for m in ctx.modules()]
    for stem in ("components", "variants", "errata", "glossary", "balance", "provisional", "gallery"):
        items.append({"href": stem, "t": ctx.s(stem)})
    return items


def page(ctx: RefContext, stem: str, title: str, sections: list[dict[str, Any]]) -> Page:
    return {"stem": stem, "title": title, "sections": sections, "nav": _nav(ctx), "lang": ctx.lang,
            "langs": list(ctx.game.publish), "game": ctx.game.id, "game_name": ctx.game_name(),
            "reference": ctx.s("reference"), "languages_label": ctx.s("languages"),
            "all_games": ctx.s("all_games")}


# ---- pages ----------------------------------------------------------------------


def module_pages(ctx: RefContext) -> list[Page]:
    kids = children_of(ctx)
    order = _kind_order(ctx)
    out = []
    for mod in ctx.modules():
        top = [e for e in ctx.entities if e.module == mod.id and (not e.parent or e.errata)]
        by_kind: dict[str, list[Entity]] = {}
        for e in top:
            by_kind.setdefault(e.kind, []).append(e)
        sections = []
        if mod.text is not None:
            sections.append({"id": "about", "title": "", "blocks": [
                {"type": "p", "rich": ctx.linked(ctx.loc(mod.text)), "cls": ""}]})
        for kind in sorted(by_kind, key=lambda k: (order.get(k, 999), k)):
            blocks = [entry(ctx, e, kids) for e in by_kind[kind]]
            sections.append({"id": f"kind-{kind}", "title": ctx.kind_name(kind), "blocks": blocks})
        if not sections:
            sections.append({"id": "empty", "title": "", "blocks": [_p(ctx.s("nothing"))]})
        out.append(page(ctx, module_page(mod), ctx.module_name(mod), sections))
    return out


def physical(ctx: RefContext, e: Entity) -> bool:
    kd = ctx.project.kinds.get((e.game, e.kind))
    return kd is not None and kd.physical


def components_page(ctx: RefContext) -> Page:
    order = _kind_order(ctx)
    sections = [{"id": "intro", "title": "", "blocks": [_p(ctx.s("components_intro"))]}]
    for mod in ctx.modules():
        items = [e for e in ctx.entities if e.module == mod.id and physical(ctx, e) and not e.errata]
        if not items:
            continue
        items.sort(key=lambda e: (order.get(e.kind, 999), ctx.project.source_name(e.span.file), e.span.line))
        rows = []
        totals: Counter[str] = Counter()
        unknown: set[str] = set()
        for e in items:
            count = e.copies
            prov = any(a == "copies" for a, _ in e.provisional)
            cell: Rich = _t("?" if count is None else str(count))
            if prov:
                cell.append({"t": ctx.s("provisional_badge"), "badge": "provisional"})
            if count is None:
                unknown.add(e.kind)
            else:
                totals[e.kind] += count
            rows.append([_t(ctx.kind_name(e.kind)), [ctx.link(e)], cell])
        summary = [[_t(ctx.kind_name(k)), _t(ctx.s("total")),
                    _t(f"{totals[k]}{'+?' if k in unknown else ''}")]
                   for k in sorted({e.kind for e in items}, key=lambda k: (order.get(k, 999), k))]
        sections.append({"id": f"components-{mod.id}", "title": ctx.module_name(mod), "blocks": [
            {"type": "table", "head": [ctx.s("kind"), ctx.s("name"), ctx.s("count")], "rows": rows + summary}]})
    return page(ctx, "components", ctx.s("components"), sections)


class _Named(ValueVisitor[frozenset[str]]):
    """The ids a value names (itself, in a list, or as a provisional value; not in a call's arguments)."""

    def visit_call(self, v: s.CallV) -> frozenset[str]:
        return frozenset((v.name,))

    def visit_list(self, v: s.ListV) -> frozenset[str]:
        return frozenset().union(*(self.value(i) for i in v.items))

    def visit_provisional(self, v: s.ProvisionalV) -> frozenset[str]:
        return self.value(v.value)

    def other(self, v: s.Value) -> frozenset[str]:
        return frozenset()


def _named(e: Entity) -> set[str]:
    """The ids the arguments of an entity's effects name (its triggers, conditions and actions)."""
    named = _Named()
    return {ident for fx in e.effects for inv in effect_invocations(fx) for _, v in inv.args
            for ident in named.value(v)}


def variants_page(ctx: RefContext) -> Page:
    kids = children_of(ctx)
    variants = [e for e in ctx.entities if e.is_a("variant") and not e.errata]
    named = [(e, _named(e)) for e in ctx.entities] if variants else []  # (once, not once per variant)
    sections = []
    for v in variants:
        members = [e for e in ctx.entities if e.variant == v.id]
        depends = [e for e, ids in named if e.id != v.id and v.id in ids]
        blocks: list[Block] = [entry(ctx, v, kids, 3)]
        blocks.append({"type": "p", "rich": _t(ctx.s("variant_members") + ":"), "cls": "label"})
        blocks.append({"type": "list", "items": [[ctx.link(e), {"t": f" ({ctx.kind_name(e.kind)})"}]
                                                 for e in members] or [_t(ctx.s("nothing"))]})
        blocks.append({"type": "p", "rich": _t(ctx.s("variant_depends") + ":"), "cls": "label"})
        blocks.append({"type": "list", "items": [[ctx.link(e), {"t": f" ({ctx.kind_name(e.kind)})"}]
                                                 for e in depends] or [_t(ctx.s("nothing"))]})
        sections.append({"id": f"variant-{v.id}", "title": ctx.name(v), "blocks": blocks})
    if not sections:
        sections.append({"id": "none", "title": "", "blocks": [_p(ctx.s("nothing"))]})
    return page(ctx, "variants", ctx.s("variants"), sections)


def errata_page(ctx: RefContext) -> Page:
    kids = children_of(ctx)
    modules = {m.id: m for m in ctx.project.modules_of(ctx.game.id)}
    sections: list[dict[str, Any]] = [{"id": "intro", "title": "", "blocks": [_p(ctx.s("errata_intro"))]}]
    for e in (x for x in ctx.entities if x.errata):
        original = ctx.ref(e.id)
        mod = modules.get(e.module)
        left = entry(ctx, original, kids, 4) if original else _p("?")
        right = entry(ctx, e, {}, 4)
        left_title = ctx.s("original")
        right_title = f"{ctx.s('corrected')} {ctx.module_name(mod) if mod else e.module}"
        sections.append({"id": f"erratum-{e.module}-{e.id}", "title": ctx.name(e), "blocks": [
            {"type": "side", "left_title": left_title, "right_title": right_title, "left": [left], "right": [right]}]})
    if len(sections) == 1:
        sections[0]["blocks"].append(_p(ctx.s("nothing")))
    return page(ctx, "errata", ctx.s("errata"), sections)


def glossary_page(ctx: RefContext) -> Page:
    counts = Counter(e.kind for e in ctx.entities if not e.errata)
    rows = []
    for k in ctx.project.kinds_of(ctx.game.id):
        parent = _t(ctx.kind_name(k.parent)) if k.parent else _t("")
        rows.append([_t(ctx.kind_name(k.id)), parent, _t(str(counts.get(k.id, 0)))])
    # a trigger phrase and the entries whose effects it starts; the catalogue's (English) explanation of the
    # verb speaks of the language's parameters, so it is shown to designers only
    users: dict[tuple[str, str], list[Entity]] = {}
    for e in ctx.entities:
        for fx in e.effects:
            phrase = ctx.gen.invocation(e, fx.trigger, ctx.lang).plain
            found = users.setdefault((fx.trigger.verb, phrase), [])
            if not found or found[-1] is not e:  # entities come in order: a repeat is the one just added
                found.append(e)
    trig_rows = []
    for (verb_id, phrase), entries in users.items():
        used: Rich = []
        for i, e in enumerate(entries):
            used += [{"t": ", "}] if i else []
            used.append(ctx.link(e))
        row: list[Rich] = [_t(phrase), used]
        if ctx.designer:
            verb = ctx.gen.catalogue.verbs.get(verb_id)
            row.append([{"t": verb.doc if verb else "", "lang": "en"}])
        trig_rows.append((phrase, row))
    trig_rows.sort(key=lambda r: r[0].lower())
    tags: dict[str, list[Entity]] = {}
    for e in ctx.entities:
        for tag in e.tags:
            tags.setdefault(tag, []).append(e)
    tag_rows = []
    for tag in sorted(tags):
        word = ctx.tag_name(tag)
        links: Rich = []
        for i, e in enumerate(tags[tag]):
            if i:
                links.append({"t": ", "})
            links.append(ctx.link(e))
        tag_rows.append([_t(word), links])
    sections = [
        {"id": "kinds", "title": ctx.s("glossary_kinds"), "blocks": [
            {"type": "table", "head": [ctx.s("kind"), ctx.s("part_of"), ctx.s("entries")], "rows": rows}]},
        {"id": "triggers", "title": ctx.s("glossary_triggers"), "blocks": [
            {"type": "table", "rows": [r for _, r in trig_rows],
             "head": [ctx.s("trigger"), ctx.s("used_by"), *([ctx.s("meaning")] if ctx.designer else [])]}]},
    ]
    if tag_rows:
        sections.append({"id": "tags", "title": ctx.s("glossary_tags"), "blocks": [
            {"type": "table", "head": [ctx.s("tags"), ""], "rows": tag_rows}]})
    return page(ctx, "glossary", ctx.s("glossary"), sections)


def provisional_page(ctx: RefContext) -> Page:
    # the notes (why a value is not confirmed, which source it was taken from) are English designer notes
    rows = []
    for e in ctx.entities:
        for attr, note in e.provisional:
            row = [[ctx.link(e)], _t(ctx.kind_name(e.kind)), _t(ctx.provisional_label(e, attr))]
            rows.append(row + [_t(f"{attr}: {note}")] if ctx.designer else row)
    if not ctx.designer:  # one row per entity and label
        rows = [r for i, r in enumerate(rows) if r not in rows[:i]]
    blocks: list[Block] = [_p(ctx.s("provisional_intro"))]
    if rows:
        head = [ctx.s("name"), ctx.s("kind"), ctx.s("what_provisional"), *([ctx.s("note")] if ctx.designer else [])]
        blocks.append({"type": "table", "head": head, "rows": rows})
    else:
        blocks.append(_p(ctx.s("nothing")))
    return page(ctx, "provisional", ctx.s("provisional"), [{"id": "all", "title": "", "blocks": blocks},
                                                          not_simulated_section(ctx)])


def not_simulated_section(ctx: RefContext) -> dict[str, Any]:
    """Every use of a verb the catalogue marks `descriptive`: described on the cards, not played by the rules."""
    verbs = ctx.gen.catalogue.verbs
    rows = []
    for e in ctx.entities:
        for fx in e.effects:
            for inv in effect_invocations(fx):
                verb = verbs.get(inv.verb)
                if verb is not None and verb.descriptive:
                    rows.append([[ctx.link(e)], _t(ctx.gen.invocation(e, inv, ctx.lang).plain),
                                 [{"t": verb.descriptive, "lang": "en"}]])
    blocks: list[Block] = [_p(ctx.s("not_simulated_intro"))]
    if rows:
        blocks.append({"type": "table", "head": [ctx.s("name"), ctx.s("not_simulated_rule"),
                                                 ctx.s("not_simulated_reason")], "rows": rows})
    else:
        blocks.append(_p(ctx.s("nothing")))
    return {"id": "not-simulated", "title": ctx.s("not_simulated"), "blocks": blocks}


def index_page(ctx: RefContext) -> Page:
    items = []
    for m in ctx.modules():
        n = sum(1 for e in ctx.entities if e.module == m.id)
        items.append([{"t": ctx.module_name(m), "href": module_page(m), "anchor": ""},
                      {"t": f" — {n} {ctx.gen.lexicon.counted('entry', ctx.lang, n) or ctx.s('entries')}"}])
    for stem in ("components", "variants", "errata", "glossary", "balance", "provisional", "gallery"):
        items.append([{"t": ctx.s(stem), "href": stem, "anchor": ""}])
    about = [_p(ctx.loc(m.text)) for m in ctx.modules() if m.id == "base" and m.text is not None]
    return page(ctx, "index", f"{ctx.game_name()} — {ctx.s('reference')}",
                [{"id": "contents", "title": ctx.s("contents"), "blocks": [*about, {"type": "list", "items": items}]}])


# ---- balance ----------------------------------------------------------------------


def balance_page(ctx: RefContext) -> Page:
    data: Any = None
    if ctx.build_dir is not None:
        path = ctx.build_dir / "balance" / f"{ctx.game.id}.json"
        if path.is_file():
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except ValueError:
                data = None
    sections: list[dict[str, Any]]
    if data is None:
        sections = [{"id": "missing", "title": "", "blocks": [_p(ctx.s("balance_missing"), "missing")]}]
    else:
        try:
            sections = [{"id": "intro", "title": "", "blocks": [_p(ctx.s("balance_intro"))]}]
            sections += [_fight_table(ctx, i, table) for i, table in enumerate(data.get("tables", []))]
            sections += [_duel_table(ctx, i, table) for i, table in enumerate(data.get("duels", []))]
            sections += [_sheet_table(ctx, i, table) for i, table in enumerate(data.get("sheets", []))]
            if len(sections) == 1:
                raise ValueError("no table this page knows")
        except (AttributeError, KeyError, TypeError, ValueError):  # a format this page does not know
            sections = [{"id": "missing", "title": "", "blocks": [_p(ctx.s("balance_missing"), "missing")]}]
    from cardc.backends.reference.winrates import sections as winrate_sections

    return page(ctx, "balance", ctx.s("balance"), [*sections, *winrate_sections(ctx)])


def _name_link(ctx: RefContext, ident: str | None, fallback: str = "") -> Rich:
    e = ctx.ref(ident) if ident else None
    return [ctx.link(e)] if e is not None else _t(fallback or (ident or "-"))


def _percent(ctx: RefContext, cell: dict[str, Any] | None) -> Rich:
    win = (cell or {}).get("win", {}).get("decimal")
    return _t("?" if win is None else ctx.gen.lexicon.percent(float(win), ctx.lang))


def _provisional_list(ctx: RefContext, notes: list[str] | None) -> list[Block]:
    """Under a table: its provisional assumptions (English designer notes) for designers, one line for players."""
    if not notes:
        return []
    badge = ctx.s("provisional_badge")
    if not ctx.designer:
        return [{"type": "p", "cls": "", "rich": [{"t": badge, "badge": "provisional"},
                                                  {"t": " " + ctx.s("balance_provisional") + " "},
                                                  {"t": ctx.s("provisional"), "href": "provisional", "anchor": ""},
                                                  {"t": "."}]}]
    return [{"type": "list", "items": [[{"t": badge, "badge": "provisional"}, {"t": " " + str(n)}] for n in notes]}]


def _fight_table(ctx: RefContext, i: int, table: dict[str, Any]) -> dict[str, Any]:
    shown = table.get("show", [])
    opponents = table["opponents"]

    def head(o: dict[str, Any]) -> str:
        values = [str(o[a]) for a in shown if o.get(a) is not None]
        name = _label(ctx, o.get("id"), o.get("name", ""))
        return f"{name} ({', '.join(values)})" if values else name

    rows = [[_name_link(ctx, row.get("fighter"), row.get("name", "")),
             *(_percent(ctx, row["cells"].get(o["id"])) for o in opponents)] for row in table["rows"]]
    variants = ", ".join(_label(ctx, v, v) for v in table.get("variants", [])) or ctx.s("none")
    loadout = ", ".join(_label(ctx, x, x) for x in table.get("items", [])) or ctx.s("none")
    colon = ctx.s("colon")
    title = f"{ctx.s('loadout')}{colon} {loadout}; {ctx.s('variants')}{colon} {variants}"
    blocks: list[Block] = [{"type": "table", "head": [ctx.s("name"), *map(head, opponents)], "rows": rows}]
    return {"id": f"table-{i + 1}", "title": title, "blocks": blocks + _provisional_list(ctx, table.get("provisional"))}


def _duel_table(ctx: RefContext, i: int, table: dict[str, Any]) -> dict[str, Any]:
    fighters = table.get("fighters", [])
    rows = [[_name_link(ctx, row.get("fighter"), row.get("name", "")),
             *(_percent(ctx, row["cells"][f.get("id")]) if f.get("id") in row.get("cells", {}) else _t("-")
               for f in fighters)] for row in table.get("rows", [])]
    head = [ctx.s("name"), *(_label(ctx, f.get("id"), f.get("name", "")) for f in fighters)]
    by = ", ".join(_label(ctx, b, b) for b in [table.get("by"), *table.get("also_by", [])] if b)
    loadout = ", ".join(_label(ctx, x, x) for x in table.get("items", [])) or ctx.s("none")
    title = f"{by}; {ctx.s('loadout')}{ctx.s('colon')} {loadout}"
    blocks: list[Block] = [{"type": "table", "head": head, "rows": rows}]
    return {"id": f"duel-{i + 1}", "title": title, "blocks": blocks + _provisional_list(ctx, table.get("provisional"))}


def _label(ctx: RefContext, ident: str | None, fallback: str) -> str:
    e = ctx.ref(ident) if ident else None
    return ctx.name(e) if e is not None else fallback


def _sheet_table(ctx: RefContext, i: int, data: dict[str, Any]) -> dict[str, Any]:
    """Stats at the start and at most, and the slot limits in each declared setting, per fighter (and card)."""
    def n(x: Any) -> str:
        return "?" if x is None else str(x)

    stats, limits, settings = data.get("stats", []), data.get("limits", []), data.get("settings", [])
    combine = data.get("combine")
    rows = []
    for r in data.get("rows", []):
        star = [{"t": ctx.s("provisional_badge"), "badge": "provisional"}] if r.get("provisional") else []
        start, most = r.get("start", {}), r.get("maximum", {})
        cells: list[Rich] = [_name_link(ctx, r.get("fighter"))]
        if combine:
            cells.append(_name_link(ctx, r.get("card"), "-") if r.get("card") else _t("-"))
        if stats:
            cells.append(_t(" / ".join(n(start.get(x)) for x in stats)) + star)
            cells.append(_t(" / ".join(n(most.get(x)) for x in stats)) + star)
        for s_ in settings if limits else []:
            got = r.get("limits", {}).get(s_.get("id"))
            cells.append(_t("-" if not got else " / ".join(n(got.get(x)) for x in limits)))
        rows.append(cells)
    head = [ctx.kind_name(data.get("fighter", ""))]
    if combine:
        head.append(ctx.kind_name(combine))
    if stats:
        head += [ctx.s("start"), ctx.s("maximum")]
    if limits:
        slots = " / ".join(ctx.kind_name(x) for x in limits)
        head += [f"{_label(ctx, s_.get('id'), s_.get('name', ''))}: {slots}" for s_ in settings]
    title = _label(ctx, data.get("odds"), data.get("title", ""))
    return {"id": f"sheet-{i + 1}", "title": title, "blocks": [{"type": "table", "head": head, "rows": rows}]}


def all_pages(ctx: RefContext) -> list[Page]:
    return [index_page(ctx), *module_pages(ctx), components_page(ctx), variants_page(ctx), errata_page(ctx),
            glossary_page(ctx), balance_page(ctx), provisional_page(ctx)]
