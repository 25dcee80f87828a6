"""Backend `reference`: `generated/reference/<game>/<lang>/`, the rules reference and the card gallery.

Per game and published language: static HTML (an index, a page per base game and expansion, and pages
for components, variants, errata, glossary, balance tables and provisional values) and the same pages
as Markdown, plus `gallery.html`. One shared stylesheet and one small script (the gallery filters)
sit in `generated/reference/`. Everything works offline; reading needs no JavaScript.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from cardc.backends import BuildOptions
from cardc.backends.reference.blocks import block_html, block_md, gallery_card_html, html_escape
from cardc.backends.reference.context import RefContext, all_strings
from cardc.backends.reference.gallery import gallery_cards, gallery_filters, print_images
from cardc.backends.reference.pages import all_pages, page
from cardc.backends.reference.winrates import figures
from cardc.collector import paused
from cardc.diagnostics import Diagnostic
from cardc.jinjacache import CompiledTemplates
from cardc.model import Project
from jinja2 import Environment, FileSystemLoader
from markupsafe import Markup

TEMPLATES = Path(__file__).resolve().parent / "templates"
STATIC = ("style.css", "gallery.js")
# CommonMark lets a backslash escape any ASCII punctuation; these are the characters that could start
# emphasis, code, links, tables, headings, raw HTML (<) or an entity (&). Quotes and apostrophes need nothing.
# (a translation table: a regular expression's substitution parses its template on every call)
_MD_SPECIAL = str.maketrans({c: "\\" + c for c in "\\`*_[]|#~<>&"})
_MD_LIST_START = re.compile(r"^(\d+)([.)])", re.M)  # "1. " at the start of a line would begin a numbered list


def _list_start(m: re.Match[str]) -> str:
    return f"{m[1]}\\{m[2]}"


def md_escape(value: Any) -> str:
    """Markdown text (CommonMark): punctuation that Markdown would read as syntax, backslash-escaped."""
    if isinstance(value, Markup):
        return str(value)
    if value is None:
        return ""
    text = str(value).translate(_MD_SPECIAL)
    if text[:1].isdigit() or "\n" in text:  # (a numbered list can only start at a line's start)
        return _MD_LIST_START.sub(_list_start, text)
    return text


def _raw(value: Any) -> Markup:
    return Markup(str(value))


def _cell(value: Any) -> Markup:
    """Rendered rich text inside a Markdown table cell: no line breaks."""
    return Markup(" ".join(str(value).split()))


def _html(part: dict[str, Any], key: str) -> str:
    """`{{ p.key }}` of the templates: the escaped value, nothing for a missing key."""
    return html_escape(part[key]) if key in part else ""


def rich_html(parts: list[dict[str, Any]]) -> Markup:
    """Rich text as HTML: a link, a badge, text in another language, or plain text per part (every value
    escaped). It was a template macro; as a function it costs a tenth (the gallery and the pages call it
    for every line of every entity: a sixth of the reference's time at 1,000 cards)."""
    out: list[str] = []
    for p in parts:
        if "href" in p:
            anchor = f"#{_html(p, 'anchor')}" if p.get("anchor") else ""
            out.append(f'<a href="{_html(p, "href")}.html{anchor}">{_html(p, "t")}</a>')
        elif "badge" in p:
            title = f' title="{_html(p, "title")}"' if p.get("title") else ""
            out.append(f'<span class="badge {_html(p, "badge")}"{title}>{_html(p, "t")}</span>')
        elif "lang" in p:
            out.append(f'<span lang="{_html(p, "lang")}">{_html(p, "t")}</span>')
        else:
            out.append(_html(p, "t"))
    return Markup("".join(out))


@lru_cache(maxsize=1)
def html_env() -> Environment:
    env = Environment(loader=FileSystemLoader(str(TEMPLATES)), autoescape=True, trim_blocks=True,
                      lstrip_blocks=True, keep_trailing_newline=True,
                      bytecode_cache=CompiledTemplates("reference-html"))  # (compiled once per machine)
    env.globals["rich"] = rich_html
    env.globals["block"] = lambda b, s: block_html(b, s, rich_html)
    env.globals["card"] = lambda c, s: gallery_card_html(c, s, rich_html)
    return env


def rich_md(parts: list[dict[str, Any]]) -> Markup:
    """Rich text as Markdown (values escaped with `md_escape`), the twin of `rich_html`."""
    out: list[str] = []
    for p in parts:
        text = md_escape(p["t"]) if "t" in p else ""
        if "href" in p:
            href = p["href"]
            anchor = f"#{p['anchor']}" if p.get("anchor") else ""
            out.append(f"[{text}]({href}.{'html' if href == 'gallery' else 'md'}{anchor})")
        elif "badge" in p:
            out.append(f" *({text})*")
        else:
            out.append(text)
    return Markup("".join(out))


@lru_cache(maxsize=1)
def md_env() -> Environment:
    env = Environment(loader=FileSystemLoader(str(TEMPLATES)), autoescape=False, trim_blocks=True,
                      lstrip_blocks=True, keep_trailing_newline=True, finalize=md_escape,
                      bytecode_cache=CompiledTemplates("reference-md"))
    env.globals["rich"] = rich_md
    env.globals["block"] = lambda b, s: block_md(b, s, rich_md, _cell, md_escape)
    env.filters["raw"] = _raw
    env.filters["cell"] = _cell
    return env


def _strings(lang: str) -> dict[str, str]:
    strings = all_strings()
    return {**strings["en"], **strings.get(lang, {})}


def _tidy(text: str) -> str:
    """Markdown without runs of blank lines or trailing spaces."""
    lines = [line.rstrip() for line in text.splitlines()]
    out = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
    return out + "\n"


def render_language(project: Project, game: str, lang: str, folder: Path, build_dir: Path | None,
                    options: BuildOptions | None = None) -> None:
    """Write every page of one game's reference in one language into `folder`.

    The gallery shows the print backend's PNGs when that backend runs in the same build with PNGs on."""
    ctx = RefContext(project, project.games[game], lang, build_dir, options.designer if options else False)
    s = _strings(lang)
    folder.mkdir(parents=True, exist_ok=True)
    html_page, md_page = html_env().get_template("page.html"), md_env().get_template("page.md")
    pages = all_pages(ctx)
    for p in pages:
        (folder / f"{p['stem']}.html").write_text(html_page.render(page=p, s=s), encoding="utf-8")
        (folder / f"{p['stem']}.md").write_text(_tidy(md_page.render(page=p, s=s)), encoding="utf-8")
    with_print = (options is not None and options.wants("print") and build_dir is not None
                  and (build_dir / "print" / "png").is_dir())  # only images the print backend really wrote
    cards = gallery_cards(ctx, print_images(options.settings if options else {}), with_print=with_print)
    for name, svg in figures(pages).items():  # charts drawn at build time, in this language
        (folder / name).write_text(svg, encoding="utf-8")
    gallery = page(ctx, "gallery", s["gallery"], [])
    (folder / "gallery.html").write_text(
        html_env().get_template("gallery.html").render(page=gallery, s=s, cards=cards,
                                                       filters=gallery_filters(ctx, cards)),
        encoding="utf-8")


def write_reference(project: Project, out: Path, options: BuildOptions) -> list[Diagnostic]:
    folder = out / "reference"
    folder.mkdir(parents=True, exist_ok=True)
    games = []
    for game_id in sorted(project.games):
        game = project.games[game_id]
        langs = []
        for lang in game.publish:
            with paused():  # no cyclic collections: see `collector`
                render_language(project, game_id, lang, folder / game_id / lang, out, options)
            s = _strings(lang)
            name = (game.name.get(lang) or game.name.get(game.fallback) or game_id) if game.name else game_id
            langs.append({"code": lang, "title": f"{name} — {s['reference']}", "gallery": s["gallery"]})
        games.append({"id": game_id, "name": (game.name.get("en") if game.name else None) or game_id,
                      "langs": langs})
    (folder / "index.html").write_text(html_env().get_template("home.html").render(games=games), encoding="utf-8")
    (folder / "index.md").write_text(_tidy(md_env().get_template("home.md").render(games=games)), encoding="utf-8")
    for name in STATIC:
        (folder / name).write_text((TEMPLATES / name).read_text(encoding="utf-8"), encoding="utf-8")
    return []
