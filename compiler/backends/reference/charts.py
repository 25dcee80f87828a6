"""SVG charts for the reference, written at build time: no script, no external font or file.

Text is the page's language (labels come in already translated) and escaped; the font stack names common
fonts that carry every Latin letter with diacritics the published languages use (Czech, Polish, ...).
Numbers are formatted with fixed decimals, so the same data gives the same bytes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr

FONT = "'DejaVu Sans', 'Noto Sans', 'Segoe UI', Arial, Helvetica, sans-serif"
# Colour-blind-safe palette (Okabe & Ito), one colour per series.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")


@dataclass(frozen=True)
class Bar:
    value: float  # 0..1
    low: float  # 95% interval
    high: float


@dataclass(frozen=True)
class Chart:
    title: str
    axis: str  # the x-axis label, e.g. "win rate (%)"
    rows: tuple[str, ...]  # row labels (heroes)
    series: tuple[str, ...]  # legend entries (set-ups)
    bars: tuple[tuple[Bar | None, ...], ...]  # [row][series]
    reference: float | None = None  # a dashed line (e.g. the fair share 1/players)
    reference_label: str = ""
    percent: Callable[[float], str] = lambda share: f"{100 * share:.1f} %"  # in the page's language
    colon: str = ":"  # French puts a space before it


def _f(x: float) -> str:
    return f"{x:.1f}"


def _text_width(text: str, size: float) -> float:
    """A generous estimate of rendered width (no font metrics at build time)."""
    return len(text) * size * 0.6


def bar_chart(chart: Chart) -> str:
    """Horizontal grouped bars with 95% whiskers: rows down the side, one bar per series in each row."""
    size = 12.0
    bar_h, gap = 9.0, 8.0
    label_w = max([_text_width(r, size) for r in chart.rows] + [60.0]) + 10
    plot_w = 420.0
    legend_h = 18.0 * len(chart.series)
    top = 34.0 + legend_h + (16.0 if chart.reference_label else 0.0)  # room for the reference line's label
    group_h = bar_h * max(1, len(chart.series)) + gap
    plot_h = group_h * len(chart.rows)
    width = label_w + plot_w + 30
    height = top + plot_h + 44
    x0 = label_w

    def x(v: float) -> float:
        return x0 + max(0.0, min(1.0, v)) * plot_w

    top_value = max([b.high for row in chart.bars for b in row if b is not None] + [chart.reference or 0.0, 0.1])
    scale_max = min(1.0, (int(top_value * 10) + 1) / 10)

    def xs(v: float) -> float:
        return x(v / scale_max)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{_f(width)}" height="{_f(height)}" '
           f'viewBox="0 0 {_f(width)} {_f(height)}" role="img" aria-label={quoteattr(chart.title)} '
           f'font-family={quoteattr(FONT)} font-size="{_f(size)}">',
           f"<title>{escape(chart.title)}</title>",
           f'<rect width="{_f(width)}" height="{_f(height)}" fill="#ffffff"/>',
           f'<text x="{_f(8)}" y="{_f(18)}" font-size="{_f(size + 2)}" font-weight="bold">{escape(chart.title)}</text>']
    for i, name in enumerate(chart.series):
        ly = 30.0 + 18 * i
        out.append(f'<rect x="{_f(x0)}" y="{_f(ly)}" width="12" height="10" fill="{PALETTE[i % len(PALETTE)]}"/>')
        out.append(f'<text x="{_f(x0 + 18)}" y="{_f(ly + 9)}">{escape(name)}</text>')
    ticks = [t / 10 for t in range(0, int(round(scale_max * 10)) + 1)]
    for t in ticks:
        out.append(f'<line x1="{_f(xs(t))}" y1="{_f(top)}" x2="{_f(xs(t))}" y2="{_f(top + plot_h)}" '
                   f'stroke="#dddddd" stroke-width="1"/>')
        out.append(f'<text x="{_f(xs(t))}" y="{_f(top + plot_h + 16)}" text-anchor="middle">{round(t * 100)}</text>')
    out.append(f'<text x="{_f(x0 + plot_w / 2)}" y="{_f(top + plot_h + 34)}" text-anchor="middle">'
               f"{escape(chart.axis)}</text>")
    for r, label in enumerate(chart.rows):
        gy = top + r * group_h + gap / 2
        out.append(f'<text x="{_f(x0 - 8)}" y="{_f(gy + group_h / 2)}" text-anchor="end" '
                   f'dominant-baseline="middle">{escape(label)}</text>')
        for s, bar in enumerate(chart.bars[r]):
            if bar is None:
                continue
            y = gy + s * bar_h
            colour = PALETTE[s % len(PALETTE)]
            tip = (f"{label}, {chart.series[s]}{chart.colon} {chart.percent(bar.value)} "
                   f"({chart.percent(bar.low)}–{chart.percent(bar.high)})")
            out.append(f'<rect x="{_f(x0)}" y="{_f(y + 1)}" width="{_f(xs(bar.value) - x0)}" '
                       f'height="{_f(bar_h - 2)}" fill="{colour}"><title>{escape(tip)}</title></rect>')
            cy = y + bar_h / 2
            out.append(f'<line x1="{_f(xs(bar.low))}" y1="{_f(cy)}" x2="{_f(xs(bar.high))}" y2="{_f(cy)}" '
                       f'stroke="#333333" stroke-width="1"/>')
    if chart.reference is not None:
        rx = xs(chart.reference)
        out.append(f'<line x1="{_f(rx)}" y1="{_f(top - 4)}" x2="{_f(rx)}" y2="{_f(top + plot_h)}" stroke="#333333" '
                   f'stroke-width="1" stroke-dasharray="4 3"/>')
        if chart.reference_label:
            out.append(f'<text x="{_f(rx + 3)}" y="{_f(top - 6)}" font-size="{_f(size - 2)}">'
                       f"{escape(chart.reference_label)}</text>")
    out.append(f'<rect x="{_f(x0)}" y="{_f(top)}" width="{_f(plot_w)}" height="{_f(plot_h)}" fill="none" '
               f'stroke="#888888" stroke-width="1"/>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
