"""A page's blocks (`pages.py`: paragraphs, lists, tables, figures, errata pairs, entity entries) as HTML and as
Markdown, and the gallery's cards as HTML.

These were template code (the `block` macros of `macros.html` and `page.md`, the card loop of `gallery.html`).
Run once per entity and per nested block, a template's calls, attribute look-ups and Markup objects cost more
than the text it wrote: 40% of the reference backend at 10,000 cards. As functions they write the same bytes.
Every value is escaped as the templates did: `html_escape` (what autoescape does) or `md_escape` (Markdown);
rich text goes through `rich_html` / `rich_md`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from markupsafe import Markup

Block = dict[str, Any]
Rich = Callable[[list[dict[str, Any]]], Markup]


def html_escape(value: Any) -> str:
    """`str(markupsafe.escape(value))`, without making a Markup object: the text of a Markup (or anything with
    `__html__`) as it is, any other value's text with & < > ' " escaped."""
    if hasattr(value, "__html__"):
        return str(value.__html__())
    text = str(value)
    if not _SPECIAL.intersection(text):
        return text
    return (text.replace("&", "&amp;").replace(">", "&gt;").replace("<", "&lt;").replace("'", "&#39;")
            .replace('"', "&#34;"))


_SPECIAL = frozenset("&<>'\"")
_e = html_escape


def block_html(b: Block, s: dict[str, str], rich: Rich) -> Markup:
    """One block as HTML, each line ending in a newline."""
    out: list[str] = []
    _html(b, s, rich, out)
    return Markup("".join(out))


def _html(b: Block, s: dict[str, str], rich: Rich, out: list[str]) -> None:
    kind = b.get("type")
    if kind == "p":
        cls = f' class="{_e(b["cls"])}"' if b.get("cls") else ""
        out.append(f"<p{cls}>{rich(b['rich'])}</p>\n")
    elif kind == "list":
        out.append("<ul>\n")
        out.extend(f"<li>{rich(item)}</li>\n" for item in b["items"])
        out.append("</ul>\n")
    elif kind == "table":
        out.append('<div class="table"><table>\n<thead><tr>')
        out.extend(f'<th scope="col">{_e(h)}</th>' for h in b["head"])
        out.append("</tr></thead>\n<tbody>\n")
        for row in b["rows"]:
            out.append("<tr>" + "".join(f"<td>{rich(cell)}</td>" for cell in row) + "</tr>\n")
        out.append("</tbody>\n</table></div>\n")
    elif kind == "figure":
        out.append(f'<figure class="chart"><img src="{_e(b["src"])}" alt="{_e(b["alt"])}"></figure>\n')
    elif kind == "side":
        out.append(f'<div class="side">\n<div class="old"><p class="label">{_e(b["left_title"])}</p>')
        for x in b["left"]:
            _html(x, s, rich, out)
        out.append(f'</div>\n<div class="new"><p class="label">{_e(b["right_title"])}</p>')
        for x in b["right"]:
            _html(x, s, rich, out)
        out.append("</div>\n</div>\n")
    elif kind == "entry":
        ident, level = _e(b["id"]), _e(b["level"])
        badges = f" {rich(b['badges'])}" if b.get("badges") else ""
        out.append(f'<article class="entry" id="{ident}">\n<h{level}>{_e(b["title"])} <span class="kind">'
                   f'{_e(b["kind"])}</span>{badges} <a class="permalink" href="#{ident}" title="{ident}">#</a>'
                   f"</h{level}>\n")
        if b.get("attrs"):
            out.append('<dl class="attrs">\n')
            out.extend(f"<div><dt>{_e(label)}</dt><dd>{rich(value)}</dd></div>\n" for label, value in b["attrs"])
            out.append("</dl>\n")
        if b.get("hand"):
            out.append(f'<div class="hand"><p class="label">{_e(s.get("card_text", ""))}</p>\n')
            out.extend(f"<p>{rich(h)}</p>\n" for h in b["hand"])
            out.append("</div>\n")
        if b.get("effects"):
            out.append(f'<div class="effects"><p class="label">{_e(s.get("from_effects", ""))}</p>\n<ul>\n')
            out.extend(f"<li>{rich(fx)}</li>\n" for fx in b["effects"])
            out.append("</ul></div>\n")
        colon = _e(s.get("colon", ""))
        out.extend(f'<p class="meta"><span class="label">{_e(m[0])}{colon}</span> {rich(m[1])}</p>\n'
                   for m in b.get("meta", ()))
        for c in b.get("children", ()):
            _html(c, s, rich, out)
        out.append("</article>\n")


def block_md(b: Block, s: dict[str, str], rich: Rich, cell: Callable[[Any], Markup],
             md: Callable[[Any], str]) -> Markup:
    """One block as Markdown (`md` escapes a value, `cell` flattens rich text for a table cell)."""
    out: list[str] = []
    _md(b, s, rich, cell, md, out)
    return Markup("".join(out))


def _md(b: Block, s: dict[str, str], rich: Rich, cell: Callable[[Any], Markup], md: Callable[[Any], str],
        out: list[str]) -> None:
    kind = b.get("type")
    if kind == "p":
        out.append(f"{rich(b['rich'])}\n\n")
    elif kind == "list":
        out.extend(f"- {rich(item)}\n" for item in b["items"])
        out.append("\n")
    elif kind == "table":
        out.append("|" + "".join(f" {md(h)} |" for h in b["head"]) + "\n")
        out.append("|" + " --- |" * len(b["head"]) + "\n")
        for row in b["rows"]:
            out.append("|" + "".join(f" {cell(rich(c))} |" for c in row) + "\n")
        out.append("\n")
    elif kind == "figure":
        out.append(f"![{md(b['alt'])}]({b['src']})\n\n")
    elif kind == "side":
        out.append(f"**{md(b['left_title'])}**\n\n")
        for x in b["left"]:
            _md(x, s, rich, cell, md, out)
        out.append(f"**{md(b['right_title'])}**\n\n")
        for x in b["right"]:
            _md(x, s, rich, cell, md, out)
    elif kind == "entry":
        badges = str(rich(b["badges"])) if b.get("badges") else ""
        out.append(f'<a id="{b["id"]}"></a>\n\n{"#" * b["level"]} {md(b["title"])} ({md(b["kind"])}){badges}\n\n')
        colon = md(s.get("colon", ""))
        out.extend(f"- **{md(label)}{colon}** {rich(value)}\n" for label, value in b.get("attrs", ()))
        out.append("\n\n")
        if b.get("hand"):
            out.append(f"*{md(s.get('card_text', ''))}{colon}* " + "".join(str(rich(h)) for h in b["hand"]) + "\n\n")
        if b.get("effects"):
            out.append(f"*{md(s.get('from_effects', ''))}{colon}*\n\n\n")
            out.extend(f"- {rich(fx)}\n" for fx in b["effects"])
            out.append("\n\n")
        out.extend(f"*{md(m[0])}{colon}* {rich(m[1])}\n\n\n" for m in b.get("meta", ()))
        for c in b.get("children", ()):
            _md(c, s, rich, cell, md, out)
        out.append("\n\n")


def gallery_card_html(c: dict[str, Any], s: dict[str, str], rich: Rich) -> Markup:
    """One card of the gallery (`gallery.gallery_cards`): its printed faces, or an HTML drawing of it."""
    head = (f'id="card-{_e(c["anchor"])}" data-kinds="{_e(c["kinds"])}" data-kind="{_e(c["kind"])}" '
            f'data-module="{_e(c["module"])}" data-variant="{_e(c["variant"])}" data-search="{_e(c["search"])}"')
    name, copies = _e(c["name"]), _e(c["copies"])
    link = f'<a href="{_e(c["href"])}.html#{_e(c["anchor"])}">{name}</a>'
    tail = f" · {_e(c['variant_name'])}" if c.get("variant_name") else ""
    badges = ((f' <span class="badge errata">{_e(s.get("errata_badge", ""))}</span>' if c.get("errata") else "")
              + (f' <span class="badge provisional">{_e(s.get("provisional_badge", ""))}</span>'
                 if c.get("provisional") else ""))
    out: list[str] = []
    if c.get("front"):
        out.append(f'<article class="card printed {_e(c["shape"])}" {head} style="--w: {_e(c["w"])}; '
                   f'--h: {_e(c["h"])}; --b: {_e(c["bleed"])}">\n<div class="faces">\n<figure class="face front">'
                   f'<div class="trim"><img src="{_e(c["front"])}" alt="{name}" loading="lazy" decoding="async">'
                   "</div></figure>\n")
        if c.get("back"):
            out.append(f'<figure class="face back"><div class="trim"><img src="{_e(c["back"])}" alt="{name} '
                       f'({_e(s.get("back_side", ""))})" loading="lazy" decoding="async"></div></figure>')
        out.append(f'</div>\n<p class="caption">{link} · {_e(c["kind_name"])} · ×{copies}{tail}{badges}</p>\n'
                   "</article>\n")
    else:
        palette = c["palette"]
        out.append(f'<article class="card drawn {_e(c["shape"])}" {head} style="--w: {_e(c["w"])}; '
                   f'--h: {_e(c["h"])}; --frame: {_e(palette["frame"])}; --accent: {_e(palette["accent"])}; '
                   f'--panel: {_e(palette["panel"])}; --ink: {_e(palette["ink"])}">\n<header><h2>{link}</h2>'
                   f'<p class="kind">{_e(c["kind_name"])}</p></header>\n')
        if c.get("stats"):
            stats = (f"<li><span>{_e(st['label'])}</span> <b>{rich(st['value'])}</b></li>" for st in c["stats"])
            out.append(f'<ul class="stats">{"".join(stats)}</ul>\n')
        out.append('<div class="text">\n')
        out.extend(f"<p>{rich(line)}</p>\n" for line in c["lines"])
        for ch in c["children"]:
            out.append(f'<div class="child"><h3>{_e(ch["name"])} <span>{_e(ch["kind"])}</span></h3>'
                       + "".join(f"<p>{rich(line)}</p>" for line in ch["lines"]) + "</div>\n")
        out.append(f'</div>\n<footer>{_e(c["module_name"])}{tail} · ×{copies}{badges}</footer>\n</article>\n')
    return Markup("".join(out))
