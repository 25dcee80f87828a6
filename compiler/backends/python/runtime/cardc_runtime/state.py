"""The table of a game in play: a board of square tiles with exits, zones (stack, bag, discard), where each
character stands, whose turn it is and how many steps are left. It knows no game: the content's
procedures decide what is placed, drawn and moved, through the verbs in `play_verbs.py`."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any, Final

# A board position (x, y). Typed as a tuple of any length on purpose: compiled, a `tuple[int, int]` is unpacked
# into two integers wherever it is held and a new tuple is made at each use as a key (allocations, and a dict or
# set look-up that compares two equal tuples instead of finding the same one); this way a position stays the
# object it is, as in CPython.
Pos = tuple[int, ...]

# Sides of a square tile, clockwise from the top, and the neighbour each side leads to.
SIDES: Final = ("north", "east", "south", "west")
DELTA: Final[dict[int, Pos]] = {0: (0, -1), 1: (1, 0), 2: (0, 1), 3: (-1, 0)}
# Which sides of a square tile open, before it is turned (standard shape names of tile-laying games).
SHAPES: Final[dict[str, frozenset[int]]] = {
    "crossing": frozenset({0, 1, 2, 3}),
    "t_junction": frozenset({1, 2, 3}),
    "straight": frozenset({0, 2}),
    "corner": frozenset({0, 1}),
}


def opposite(side: int) -> int:
    return (side + 2) % 4


def turned(exits: frozenset[int], quarter_turns: int) -> frozenset[int]:
    return frozenset((s + quarter_turns) % 4 for s in exits)


def step(pos: Pos, side: int) -> Pos:
    dx, dy = DELTA[side]
    return (pos[0] + dx, pos[1] + dy)


@dataclass(init=False)
class Placed:
    """One tile on the board: which entity, how it is turned, and what lies on it."""

    tile: str
    pos: Pos
    exits: frozenset[int]
    tokens: list[str] = field(default_factory=list)  # drawn from the bag and not yet turned over
    items: list[str] = field(default_factory=list)  # lying here to be taken
    defeated: list[str] = field(default_factory=list)  # monsters turned over here
    staked: list[str] = field(default_factory=list)  # items put under the monster here
    entered: bool = False
    face_down: bool = False
    corridor: bool = False  # works as an ordinary corridor from now on (its effects stop)
    order: int = 0  # the how-many-th tile placed

    def __init__(self, tile: str, pos: Pos, exits: frozenset[int], tokens: list[str] | None = None,
                 items: list[str] | None = None, defeated: list[str] | None = None, staked: list[str] | None = None,
                 entered: bool = False, face_down: bool = False, corridor: bool = False, order: int = 0) -> None:
        # (written out, not made by @dataclass, like `Side.__init__`: the same fields, order and defaults)
        self.tile = tile
        self.pos = pos
        self.exits = exits
        self.tokens = [] if tokens is None else tokens
        self.items = [] if items is None else items
        self.defeated = [] if defeated is None else defeated
        self.staked = [] if staked is None else staked
        self.entered = entered
        self.face_down = face_down
        self.corridor = corridor
        self.order = order


class _Search:
    """A breadth-first search over the passages, kept between questions (see `Play.distances`)."""

    __slots__ = ("dist", "seen", "frontier", "d")

    def __init__(self, start: frozenset[Pos], avoid: frozenset[Pos]) -> None:
        self.dist: dict[Pos, int] = dict.fromkeys(start, 0)
        # the tiles reached or avoided; with none avoided, the tiles reached are the keys of `dist` (no set kept)
        self.seen: set[Pos] | None = set(start) | avoid if avoid else None
        self.frontier: list[Pos] = list(start)
        self.d = 0


def _enough(dist: dict[Pos, int], wanted: AbstractSet[Pos], first: bool) -> bool:
    """Whether a search has reached every tile wanted (with `first`: one of them)."""
    return not dist.keys().isdisjoint(wanted) if first else dist.keys() >= wanted


@dataclass
class Play:
    """Everything that changes while a game is played, besides the characters themselves."""

    order: list[str]  # the players (character ids) in turn order
    current: str = ""
    board: dict[Pos, Placed] = field(default_factory=dict)
    zones: dict[str, list[str]] = field(default_factory=dict)  # stack, bag, discard, removed, ...
    position: dict[str, Pos] = field(default_factory=dict)
    came_from: dict[str, Pos] = field(default_factory=dict)
    steps_left: int = 0
    steps_taken: int = 0
    turn_over: bool = False
    game_over: bool = False
    end_reason: str = ""
    winners: list[str] = field(default_factory=list)
    winner_reason: str = ""
    revealed: Counter[str] = field(default_factory=Counter)  # tiles revealed per kind
    last_revealed: Placed | None = None
    turns: int = 0
    skip: set[str] = field(default_factory=set)  # players who miss their next turn
    # statistics for simulations
    lives_lost: dict[str, Counter[str]] = field(default_factory=dict)  # hero -> cause -> lives
    deaths: Counter[str] = field(default_factory=Counter)
    deaths_by: dict[str, Counter[str]] = field(default_factory=dict)  # hero -> cause -> times
    picked_up: dict[str, Counter[str]] = field(default_factory=dict)
    used: dict[str, Counter[str]] = field(default_factory=dict)

    # passages between laid tiles, by the board size they were found for (tiles are only ever added and a
    # laid tile never turns, so the size says whether they still hold)
    _passages: tuple[int, dict[Pos, list[Pos]]] = field(default_factory=lambda: (0, {}), init=False,
                                                         repr=False, compare=False)

    def passages(self) -> dict[Pos, list[Pos]]:
        """For every tile, the tiles one step away joined to it by a passage (both open towards each
        other), in side order (north, east, south, west)."""
        board = self.board
        size, found = self._passages
        if size == len(board):
            return found
        new = list(board)[size:]  # tiles laid since (the board is only added to, in order)
        stale = []  # tiles laid before that a new one joins (only their passages change)
        for x, y in new:
            exits = board[x, y].exits
            for side, (dx, dy) in DELTA.items():
                q = (x + dx, y + dy)
                if q in found and side in exits and (side + 2) % 4 in board[q].exits:
                    stale.append(q)
        for pos in (*new, *stale):
            x, y = pos
            out: list[Pos] = []
            for side in sorted(board[pos].exits):
                dx, dy = DELTA[side]
                there = board.get((x + dx, y + dy))
                if there is not None and (side + 2) % 4 in there.exits:
                    out.append(there.pos)  # (the board's own key: later look-ups find the same tuple)
            found[pos] = out
        self._passages = (len(board), found)
        return found

    _edges: tuple[int, set[Pos]] = field(default_factory=lambda: (0, set()), init=False, repr=False, compare=False)

    def open_edges(self) -> set[Pos]:
        """The tiles with an exit towards a square where no tile lies yet (where the board can grow). The
        caller must not change the set."""
        board = self.board
        size, found = self._edges
        if size != len(board):
            # only the tiles laid since and their neighbours can have changed
            for x, y in list(board)[size:]:
                for pos in ((x, y), (x, y - 1), (x + 1, y), (x, y + 1), (x - 1, y)):
                    placed = board.get(pos)
                    if placed is None:
                        continue
                    px, py = pos
                    for side in placed.exits:
                        dx, dy = DELTA[side]
                        if (px + dx, py + dy) not in board:
                            found.add(placed.pos)  # (the board's own key)
                            break
                    else:
                        found.discard(pos)
            self._edges = (len(board), found)
        return found

    _board_memo: tuple[int, dict[Any, Any]] = field(default_factory=lambda: (0, {}), init=False, repr=False,
                                                     compare=False)

    def board_memo(self) -> dict[Any, Any]:
        """Answers that depend on the laid tiles only (distances, neighbours, labels): kept until a tile is
        laid (tiles are only ever added, a laid tile never turns or changes)."""
        size, memo = self._board_memo
        if size != len(self.board):
            memo = {}
            self._board_memo = (len(self.board), memo)
        return memo

    token_moves: int = 0  # tokens put on or taken off laid tiles so far (see `token_memo`)
    _token_memo: tuple[tuple[int, int], dict[Any, Any]] = field(default_factory=lambda: ((0, 0), {}), init=False,
                                                                repr=False, compare=False)

    def token_memo(self) -> dict[Any, Any]:
        """Answers that depend on the laid tiles and the tokens on them only (where the monsters are): kept
        until a tile is laid or a verb puts a token on a tile or takes one off (`tokens_moved`)."""
        stamp = (len(self.board), self.token_moves)
        if self._token_memo[0] != stamp:
            self._token_memo = (stamp, {})
        return self._token_memo[1]

    def tokens_moved(self) -> None:
        """Say that a token was put on a laid tile or taken off one (every verb that does calls this)."""
        self.token_moves += 1

    def distances(self, sources: Iterable[Pos], blocked: Iterable[Pos] = (), until: Iterable[Pos] = (),
                  first: bool = False) -> dict[Pos, int]:
        """Steps along passages from the nearest of `sources` to every tile reached, never entering a tile
        of `blocked` (a source is always in). One breadth-first search per board and question, remembered
        until a tile is laid. With `until`, the search may stop once every tile of `until` has its distance
        (with `first`: once one has), a level at a time: the answer then holds every tile up to that
        distance, each with its true distance, and the search goes on from there when asked for more. The
        caller must not change the answer."""
        known = self.board_memo()
        key = ("distances", frozenset(sources), frozenset(blocked))
        search: _Search | None = known.get(key)
        if search is None:
            search = known[key] = _Search(key[1], key[2])
        frontier = search.frontier
        dist = search.dist
        if not frontier:
            return dist
        wanted: AbstractSet[Pos] = until if isinstance(until, (set, frozenset)) else frozenset(until)
        if wanted and _enough(dist, wanted, first):
            return dist
        # the tiles wanted and not reached yet (with `first`: all wanted, the search stops at any of them)
        left = set(wanted) if first else wanted - dist.keys()
        # (positions typed Any here: compiled code would unpack a `Pos` into two integers and make a new tuple
        # at each use of it; as Any they stay the tuples they are)
        graph: dict[Any, list[Any]] = self.passages()
        seen: set[Any] | None = search.seen
        reached: dict[Any, int] = dist
        level: list[Any] = frontier
        d = search.d
        # a level at a time, tile by tile: a board's levels hold a few tiles each (corridors), where a loop
        # costs about half of what the set operations of a level (six C calls and three new objects) cost
        while level:
            d += 1
            nxt: list[Any] = []
            for p in level:
                nbrs = graph.get(p)  # (a list, walked by index when compiled)
                if nbrs is None:
                    continue
                for q in nbrs:
                    if seen is None:
                        if q in reached:
                            continue
                    elif q in seen:
                        continue
                    else:
                        seen.add(q)
                    nxt.append(q)
                    reached[q] = d
            level = nxt
            if left:  # (tile by tile: compiled, a set's methods by name cost more than a few look-ups)
                if first:
                    if any(q in left for q in nxt):
                        break
                else:
                    for q in nxt:
                        left.discard(q)
                    if not left:
                        break
        search.frontier, search.d = level, d
        return dist

    def here(self, who: str) -> Placed | None:
        return self.board.get(self.position.get(who))  # type: ignore[arg-type]  # (None: not on the board)

    def others_at(self, who: str) -> list[str]:
        pos = self.position.get(who)
        return [c for c in self.order if c != who and self.position.get(c) == pos]

    def connected(self, a: Pos, side: int) -> bool:
        """A passage through `side` of the tile at `a`: both tiles open towards each other."""
        here, there = self.board.get(a), self.board.get(step(a, side))
        return here is not None and there is not None and side in here.exits and opposite(side) in there.exits

    # (each tally's Counter made when it is first needed, not one made and dropped per call by `setdefault`,
    # and counted up without its `__missing__`: a Counter's methods are Python code)
    def lost(self, who: str, cause: str, lives: int) -> None:
        found = _tally(self.lives_lost, who)
        found[cause] = found.get(cause, 0) + lives

    def knocked_out(self, who: str, cause: str = "") -> None:
        self.deaths[who] += 1
        found = _tally(self.deaths_by, who)
        key = cause or "effect"
        found[key] = found.get(key, 0) + 1

    def count(self, what: str, who: str, item: str) -> None:
        found = _tally(self.picked_up if what == "picked_up" else self.used, who)
        found[item] = found.get(item, 0) + 1


def _tally(table: dict[str, Counter[str]], who: str) -> Counter[str]:
    found = table.get(who)
    if found is None:
        found = table[who] = Counter()
    return found
