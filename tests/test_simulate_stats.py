"""The statistics, seeds, sweeps and charts of `cardc simulate`, checked against hand-computed values."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from cardc.backends.reference.charts import Bar, Chart, bar_chart
from cardc.simulation.seeds import batch_size, batches, game_seed
from cardc.simulation.stats import GameRecord, median, percentile, summarize, wilson
from cardc.simulation.sweep import SweepError, cells, parse_axis, switched


def test_wilson_interval_matches_the_textbook_values() -> None:
    lo, hi = wilson(5, 10)
    assert (round(lo, 4), round(hi, 4)) == (0.2366, 0.7634)
    lo, hi = wilson(0, 10)
    assert lo == 0.0 and round(hi, 4) == 0.2775
    lo, hi = wilson(10, 10)
    assert round(lo, 4) == 0.7225 and hi == 1.0
    assert wilson(0, 0) == (0.0, 1.0)


def test_median_and_nearest_rank_percentile() -> None:
    values = sorted([3, 1, 4, 1, 5, 9, 2, 6, 5, 3])
    assert median(values) == 3.5
    assert percentile(values, 0.9) == 6.0
    assert percentile([7], 0.9) == 7.0
    assert median([]) == 0.0


def _record(i: int, heroes: tuple[str, ...], winners: tuple[str, ...], turns: int, capped: bool = False
            ) -> GameRecord:
    return GameRecord(i, game_seed(1, i), heroes, winners, turns, capped, "",
                      lives_lost=((heroes[0], "fight:rat", 2),), deaths=((heroes[0], "knocked out", 1),),
                      picked=(("sword", 1),), used=(("portal", i % 2),))


def test_summary_counts_and_ignores_arrival_order() -> None:
    games = [_record(0, ("a", "b"), ("a",), 10), _record(1, ("a", "c"), ("c",), 20),
             _record(2, ("b", "c"), (), 400, capped=True), _record(3, ("a", "b"), ("a", "b"), 30)]
    one = summarize(games)
    assert one == summarize(list(reversed(games)))
    heroes = {h["hero"]: h for h in one["heroes"]}
    assert (heroes["a"]["games"], heroes["a"]["wins"], heroes["a"]["shared_wins"]) == (3, 2, 1)
    assert heroes["b"]["wins"] == 1 and heroes["c"]["wins"] == 1
    assert one["no_winner"] == 1 and one["turn_cap"] == {"games": 1, "share": 0.25}
    assert one["length"]["median"] == 25.0 and one["length"]["p90"] == 400.0
    assert one["lives_lost"][0]["total"] == 8 and one["deaths"][0]["cause"] == "knocked out"
    assert one["items"][0] == {"item": "sword", "picked_up": 4, "used": 0, "picked_per_game": 1.0,
                               "used_per_game": 0.0}


def test_game_seeds_are_stable_and_batches_cover_every_game_once() -> None:
    assert game_seed(7, 3) == game_seed(7, 3)
    assert len({game_seed(7, i) for i in range(1000)}) == 1000
    assert game_seed(7, 3) != game_seed(8, 3)
    for games, workers in ((1, 1), (10, 2), (1003, 8)):
        parts = batches(range(games), batch_size(games, workers))
        assert sorted(i for b in parts for i in b) == list(range(games))


def test_sweep_axes_and_grid() -> None:
    assert parse_axis("players=2..5").values == ("2", "3", "4", "5")
    assert parse_axis("players=2,4").values == ("2", "4")
    grid = cells([parse_axis("players=2..3"), parse_axis("variant=none,critical_hits")])
    assert grid == [{"players": "2", "variant": "none"}, {"players": "2", "variant": "critical_hits"},
                    {"players": "3", "variant": "none"}, {"players": "3", "variant": "critical_hits"}]
    assert switched("none") == () and switched("a+b") == ("a", "b")
    for bad in ("players", "colour=red", "players=two", "variant=a,a"):
        with pytest.raises(SweepError):
            parse_axis(bad)
    with pytest.raises(SweepError):
        cells([parse_axis("players=2"), parse_axis("players=3")])


def test_chart_is_valid_svg_with_escaped_labels_in_any_language() -> None:
    chart = Chart("Podíl výher: 4 hráči <&>", "podíl výher (%)", ("Władca Łodzi", "Žofie & spol."),
                  ("základní hra", "Kritický zásah"),
                  ((Bar(0.25, 0.1, 0.4), None), (Bar(0.5, 0.3, 0.7), Bar(0.0, 0.0, 0.2))), 0.25, "rovný podíl")
    svg = bar_chart(chart)
    root = ET.fromstring(svg)
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert "Władca Łodzi" in texts and "Žofie & spol." in texts and "Podíl výher: 4 hráči <&>" in texts
    assert len(list(root.iter("{http://www.w3.org/2000/svg}rect"))) == 2 + 2 + 3  # background, frame, legend, bars
    assert bar_chart(chart) == svg
