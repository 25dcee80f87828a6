"""The board's remembered searches against plain ones: `Play.passages`, `open_edges`, `open_sides`,
`search` and `steps_to` are kept incrementally as tiles are laid (by tile number, from the end of the
board); on random boards, after tiles are laid, each must give what a search from scratch over the board's
tuples gives."""

from __future__ import annotations

from collections.abc import Iterable

from cardc.backends.python.runtime.cardc_runtime.state import DELTA, Placed, Play, Pos
from hypothesis import given, settings
from hypothesis import strategies as st


def _links(board: dict[Pos, Placed]) -> dict[Pos, list[Pos]]:
    out: dict[Pos, list[Pos]] = {}
    for pos, placed in board.items():
        out[pos] = []
        for side in sorted(placed.exits):
            dx, dy = DELTA[side]
            there = board.get((pos[0] + dx, pos[1] + dy))
            if there is not None and (side + 2) % 4 in there.exits:
                out[pos].append(there.pos)
    return out


def _edges(board: dict[Pos, Placed]) -> set[Pos]:
    return {pos for pos, placed in board.items()
            if any((pos[0] + DELTA[s][0], pos[1] + DELTA[s][1]) not in board for s in placed.exits)}


def _bfs(board: dict[Pos, Placed], sources: Iterable[Pos], blocked: Iterable[Pos]) -> dict[Pos, int]:
    links = _links(board)
    dist = {p: 0 for p in sources}
    avoid = set(blocked) - set(dist)
    level = list(dist)
    while level:
        nxt = []
        for p in level:
            for q in links.get(p, []):
                if q not in dist and q not in avoid:
                    dist[q] = dist[p] + 1
                    nxt.append(q)
        level = nxt
    return dist


@st.composite
def boards(draw: st.DrawFn) -> list[tuple[Pos, frozenset[int]]]:
    """Tiles laid one at a time next to the board, each with a random set of exits."""
    laid: list[tuple[Pos, frozenset[int]]] = [((0, 0), frozenset({0, 1, 2, 3}))]
    taken = {(0, 0)}
    for _ in range(draw(st.integers(0, 30))):
        base = draw(st.sampled_from(sorted(taken)))
        dx, dy = DELTA[draw(st.integers(0, 3))]
        pos = (base[0] + dx, base[1] + dy)
        if pos in taken:
            continue
        exits = frozenset(draw(st.sets(st.integers(0, 3), min_size=1)))
        laid.append((pos, exits))
        taken.add(pos)
    return laid


@settings(max_examples=60, deadline=None)
@given(boards(), st.data())
def test_remembered_searches_match_plain_ones(laid: list[tuple[Pos, frozenset[int]]], data: st.DataObject) -> None:
    play = Play(order=["a"])
    if data.draw(st.booleans(), label="ask off the board first"):
        assert play.open_sides(laid[-1][0]) == []  # (no tile there yet: forgotten when one is laid)
    for n, (pos, exits) in enumerate(laid):
        play.board[pos] = Placed("tile", pos, exits, order=n)
        if not data.draw(st.booleans(), label="ask now"):  # (tiles laid between questions, too)
            continue
        board = play.board
        assert play.passages() == _links(board)
        assert play.open_edges() == _edges(board)
        for pos, placed in board.items():
            assert play.open_sides(pos) == [s for s in sorted(placed.exits)
                                            if (pos[0] + DELTA[s][0], pos[1] + DELTA[s][1]) not in board]
        assert play.open_sides((99, 99)) == []  # (asked before a tile lies there: forgotten when one does)
        tiles = sorted(board)
        off = (99, 99)  # a position no tile is on
        for _ in range(3):
            sources = data.draw(st.sets(st.sampled_from(tiles + [off]), min_size=1, max_size=3), label="sources")
            blocked = data.draw(st.sets(st.sampled_from(tiles), max_size=4), label="blocked")
            until = data.draw(st.sets(st.sampled_from(tiles + [off]), max_size=3), label="until")
            first = data.draw(st.booleans(), label="first")
            truth = _bfs(board, sources, blocked)
            found = play.search(sources, blocked, until, first)
            for p in [*tiles, off]:
                d = found.to(p)
                assert d == -1 or d == truth.get(p), (p, d, truth.get(p))
            reached = [p for p in until if p in truth]
            if not until:  # no stop: everything reachable
                assert all(found.to(p) == d for p, d in truth.items())
            elif reached:  # stopped only once what was asked for is known (with `first`, one of them)
                if first:
                    assert any(found.to(p) >= 0 for p in reached)
                else:
                    assert all(found.to(p) == truth[p] for p in reached)
            # the same question answered for the tiles wanted only (the same remembered search, asked again)
            answer = play.steps_to(sources, blocked, until, first)
            assert all(truth.get(p) == d for p, d in answer.items()), answer
            if first:
                assert bool(answer) == bool(reached)
            else:
                assert answer == {p: truth[p] for p in until if p in truth}
            # asked again without `until`, the same search goes on to the end
            full = play.distances(sources, blocked)
            assert full == truth


@settings(max_examples=60, deadline=None)
@given(boards(), st.data())
def test_nearest_is_the_least_of_the_nearest_goals_from_each_tile(laid: list[tuple[Pos, frozenset[int]]],
                                                                  data: st.DataObject) -> None:
    """`Play.nearest` (one search from the goals, for every tile) gives what a search from the tile itself does:
    the steps to the nearest goal and the least goal at those steps (by position), None when none is reached,
    as the greedy bot chooses its target; with tiles laid between questions, and blocked tiles besides."""
    play = Play(order=["a"])
    for n, (pos, exits) in enumerate(laid):
        play.board[pos] = Placed("tile", pos, exits, order=n)
        if not data.draw(st.booleans(), label="ask now"):
            continue
        board = play.board
        tiles = sorted(board)
        for _ in range(3):
            goals = frozenset(data.draw(st.sets(st.sampled_from(tiles), min_size=1, max_size=4), label="goals"))
            blocked = frozenset(data.draw(st.sets(st.sampled_from(tiles), max_size=4), label="blocked")) - goals
            for here in tiles:
                if here in goals or here in blocked:
                    continue
                truth = _bfs(board, [here], blocked)
                reached = {g: truth[g] for g in goals if g in truth}
                expected = None
                if reached:
                    least = min(reached, key=lambda g: (reached[g], g))
                    expected = (reached[least], least)
                assert play.nearest(goals, blocked, here) == expected, (here, goals, blocked)
            assert play.nearest(goals, blocked, (99, 99)) is None  # (off the board)


@settings(max_examples=60, deadline=None)
@given(boards(), st.data())
def test_nearest_search_asked_in_any_order_answers_as_a_search_from_each_tile(
        laid: list[tuple[Pos, frozenset[int]]], data: st.DataObject) -> None:
    """The search from the goals goes on only as far as the tiles asked about (`Nearest.reach`): asked in any
    order, each tile's answer is the one a search from the tile itself gives."""
    play = Play(order=["a"])
    for n, (pos, exits) in enumerate(laid):
        play.board[pos] = Placed("tile", pos, exits, order=n)
    board = play.board
    tiles = sorted(board)
    goals = frozenset(data.draw(st.sets(st.sampled_from(tiles), min_size=1, max_size=4), label="goals"))
    blocked = frozenset(data.draw(st.sets(st.sampled_from(tiles), max_size=4), label="blocked")) - goals
    found = play.nearest_search(goals, blocked)
    for here in data.draw(st.permutations(tiles), label="asked in this order"):
        d, rank = play.nearest_at(found, here)
        if here in blocked:
            assert (d, rank) == (-1, -1)
            continue
        truth = _bfs(board, [here], blocked - {here})
        reached = {g: truth[g] for g in goals if g in truth}
        if not reached:
            assert (d, rank) == (-1, -1), here
            continue
        least = min(reached, key=lambda g: (reached[g], g))
        assert (d, found.order[rank]) == (reached[least], least), (here, goals, blocked)


def test_nearest_search_goes_on_only_as_far_as_asked() -> None:
    """Ten tiles in a row, the goal at one end: a question about the second tile leaves the far end unsearched;
    one about the far end searches on to it."""
    play = Play(order=["a"])
    for x in range(10):
        play.board[(x, 0)] = Placed("tile", (x, 0), frozenset({1, 3}), order=x)
    found = play.nearest_search(frozenset({(0, 0)}), frozenset())
    assert play.nearest_at(found, (1, 0)) == (1, 0)
    assert found.steps.count(-1) >= 7  # (not reached yet)
    assert play.nearest_at(found, (6, 0), limit=3) == (-1, -1)  # (more than 3 steps: not searched beyond 3)
    assert found.steps[4] == -1 and found.steps[3] == 3
    assert play.nearest_at(found, (2, 0), limit=3) == (2, 0)  # (within the limit: its steps)
    assert play.nearest_at(found, (9, 0)) == (9, 0)
    assert -1 not in found.steps
    assert play.nearest_at(found, (6, 0), limit=3) == (6, 0)  # (known already: its steps, past the limit too)


def test_token_tiles_since_lists_the_tiles_each_reader_has_not_seen() -> None:
    """`Play.token_tiles_since`: None at a reader's first question and after a change on a tile not said (the
    reader must then look at every tile); else the tiles said since that reader last asked, in order."""
    play = Play(order=["a"])
    a = Placed("t", (0, 0), frozenset({0}))
    b = Placed("t", (0, 1), frozenset({2}))
    assert play.token_tiles_since("r") is None
    play.tokens_moved(a)
    play.tokens_moved(b)
    play.tokens_moved(a)
    assert play.token_tiles_since("r") == [a, b, a]
    assert play.token_tiles_since("r") == []
    assert play.token_tiles_since("other") is None  # (each reader keeps its own place)
    play.tokens_moved(b)
    assert play.token_tiles_since("other") == [b]
    play.tokens_moved()  # (no tile said)
    play.tokens_moved(a)
    assert play.token_tiles_since("r") is None
    assert play.token_tiles_since("r") == []
    assert play.token_moves == 6
