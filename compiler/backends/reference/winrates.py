"""The balance page's win rates from whole games: a chart (SVG) and a table per player count.

Reads `balance/<game>-games.json` written by the balance backend; labels are in the page's language
(entity names from the content, the section's words from `winrates.yaml`). The charts are files beside
the page (`winrates-<n>p.svg`), so the HTML and the Markdown pages show the same picture.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml
from cardc.backends.reference.charts import Bar, Chart, bar_chart
from cardc.backends.reference.context import RefContext

STRINGS = Path(__file__).resolve().parent / "winrates.yaml"


@lru_cache(maxsize=1)
def _strings() -> dict[str, dict[str, str]]:
    return yaml.safe_load(STRINGS.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def word(lang: str, key: str, **values: Any) -> str:
    table = _strings()
    return (table.get(lang, {}).get(key) or table["en"][key]).format(**values)


def load(ctx: RefContext) -> dict[str, Any] | None:
    if ctx.build_dir is None:
        return None
    path = ctx.build_dir / "balance" / f"{ctx.game.id}-games.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("cells"), list) else None


def _name(ctx: RefContext, ident: str) -> str:
    e = ctx.ref(ident)
    return ctx.name(e) if e is not None else ident


def _setup_name(ctx: RefContext, setup: dict[str, Any]) -> str:
    """The base game, the expansion's name, or the variant's (the expansion it comes with goes unsaid)."""
    if setup["id"] == "base":
        return word(ctx.lang, "base_game")
    if setup["variants"]:
        return " + ".join(_name(ctx, v) for v in setup["variants"])
    names = {m.id: ctx.module_name(m) for m in ctx.modules()}
    return " + ".join(names.get(e, e) for e in setup["expansions"]) or setup["id"]


def sections(ctx: RefContext) -> list[dict[str, Any]]:
    """The win-rate sections of the balance page (none when the build has no win rates)."""
    data = load(ctx)
    if data is None:
        return []
    lang = ctx.lang

    def pct(share: float) -> str:
        return ctx.gen.lexicon.percent(share, lang, digits=0)

    out: list[dict[str, Any]] = [{"id": "winrates", "title": word(lang, "winrates"), "blocks": [
        {"type": "p", "rich": [{"t": word(lang, "winrates_intro", games=data["games_per_cell"], bot=data["bot"],
                                          seed=data["seed"])}]}]}]
    for n in data["players"]:
        cells = {c["setup"]: c for c in data["cells"] if c["players"] == n}
        setups = [s for s in data["setups"] if s["id"] in cells]
        if not setups:
            continue
        heroes = sorted({h["hero"] for c in cells.values() for h in c["heroes"]}, key=lambda h: _name(ctx, h))
        series = tuple(_setup_name(ctx, s) for s in setups)
        bars, rows = [], []
        for hero in heroes:
            row_bars: list[Bar | None] = []
            cells_text: list[list[dict[str, str]]] = [[{"t": _name(ctx, hero)}]]
            for s in setups:
                h = next((x for x in cells[s["id"]]["heroes"] if x["hero"] == hero), None)
                if h is None:
                    row_bars.append(None)
                    cells_text.append([{"t": "-"}])
                else:
                    row_bars.append(Bar(h["win_rate"], h["ci95"][0], h["ci95"][1]))
                    cells_text.append([{"t": f"{pct(h['win_rate'])} ({100 * h['ci95'][0]:.0f}–"
                                             f"{100 * h['ci95'][1]:.0f})"}])
            bars.append(tuple(row_bars))
            rows.append(cells_text)
        title = f"{word(lang, 'winrates')}{ctx.s('colon')} {word(lang, 'winrates_players', n=n)}"
        svg = bar_chart(Chart(title, word(lang, "win_rate_axis"), tuple(_name(ctx, h) for h in heroes), series,
                              tuple(bars), 1 / n, word(lang, "fair_share"),
                              percent=lambda x: ctx.gen.lexicon.percent(x, lang), colon=ctx.s("colon")))
        capped = ", ".join(f"{_setup_name(ctx, s)} {pct(cells[s['id']]['turn_cap']['share'])}"
                           for s in setups)
        out.append({"id": f"winrates-{n}p", "title": word(lang, "winrates_players", n=n), "blocks": [
            {"type": "figure", "src": f"winrates-{n}p.svg", "alt": title, "svg": svg},
            {"type": "table", "head": [word(lang, "winrates_table_hero"), *series], "rows": rows},
            {"type": "p", "rich": [{"t": word(lang, "turn_cap_hit", cells=capped)}]}]})
    return out


def figures(pages: list[dict[str, Any]]) -> dict[str, str]:
    """Every figure file the pages show: name -> SVG text."""
    found: dict[str, str] = {}
    for page in pages:
        for sec in page.get("sections", []):
            for block in sec.get("blocks", []):
                if block.get("type") == "figure":
                    found[block["src"]] = block["svg"]
    return found
