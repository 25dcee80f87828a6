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
# the tiles one step away by tile number for some walker, and the key that names it in the searches kept
# (`Play.graph`)
Graph = tuple[Any, list[list[int]]]

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


_OPEN_SIDES: Final = "open sides"  # `Play.near_memo` entry


# A square's code: one integer for (x, y), so that the board's own look-ups hash an integer, not a tuple (a
# tuple's hash is computed again at every look-up, and a fresh tuple equal to a key is compared item by item).
# Squares up to half a million steps from the start each way have distinct codes: x * 2**20 + y (the constants
# below are written out: compiled, a literal is a constant, a module-level name a look-up).


def _code(pos: Pos) -> int:
    return pos[0] * 1048576 + pos[1]  # (laid tiles are checked to lie that near: `Play._number`)


def _beyond(code: int, side: int) -> int:
    """The code of the square beyond `side` (north, east, south, west) of the square `code`. (Written out:
    compiled, a module-level tuple of offsets would be rebuilt, boxed, at every use.)"""
    if side == 0:
        return code - 1
    if side == 1:
        return code + 1048576
    if side == 2:
        return code + 1
    return code - 1048576


def _laid_since(board: dict[Pos, Placed], size: int) -> list[Pos]:
    """The positions of the tiles laid after the first `size`, in the order laid (a board is only added to,
    in order): read from the end, not by listing the whole board."""
    new: list[Pos] = []
    keys = reversed(board)
    for _ in range(len(board) - size):
        new.append(next(keys))
    new.reverse()
    return new


def _any_reached(steps: list[int], tiles: list[int]) -> bool:
    for i in tiles:
        if steps[i] >= 0:
            return True
    return False


def _all_reached(steps: list[int], tiles: list[int]) -> bool:
    for i in tiles:
        if steps[i] < 0:
            return False
    return True


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
    held_items: bool = field(default=False, repr=False, compare=False)  # listed in `Play.item_tiles`

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
        self.held_items = False


class Search:
    """A breadth-first search over the passages from a set of tiles, kept between questions (see
    `Play.search`). Tiles are numbered in the order they were laid: the search walks lists of numbers, where
    board positions (tuples) would be hashed at every step."""

    __slots__ = ("cell", "start", "steps", "frontier", "d")

    def __init__(self, cell: dict[Pos, int], size: int, start: frozenset[Pos], avoid: frozenset[Pos]) -> None:
        self.cell = cell  # the board's tile numbers by position (`Play` keeps it); this search knows `size`
        self.start = start
        # steps from the nearest start per tile number: -1 not reached (yet), -2 avoided (never entered)
        steps = [-1] * size
        for p in avoid:
            i = cell.get(p)
            if i is not None and i < size:
                steps[i] = -2
        frontier: list[int] = []
        for p in start:  # (a start is always in, avoided or not)
            i = cell.get(p)
            if i is not None and i < size:
                steps[i] = 0
                frontier.append(i)
        self.steps = steps
        self.frontier = frontier
        self.d = 0

    def to(self, pos: Any) -> int:
        """The steps from the nearest start to `pos`, or -1 if the search has not reached it."""
        i = self.cell.get(pos)
        if i is None or i >= len(self.steps):
            return 0 if pos in self.start else -1  # (a start off the board is at 0, as it always was)
        found = self.steps[i]
        return found if found >= 0 else -1


class Nearest:
    """A breadth-first search from the tiles `order` (sorted) over the whole board, never entering a tile of
    `blocked` (a source is always in): each tile's steps to the nearest source (`steps`: -1 not reached, -2
    blocked) and the rank in `order` of the least source at that distance (`least`). See `Play.nearest`.

    The search goes on level by level only as far as a tile asked about (`reach`): a step asks about the hero's
    tile and the tiles next to it, mostly a few steps from the sources, and the search is made again whenever a
    tile is laid or a token moves. Stopping between two levels and going on later lists the same tiles in the
    same order, so every answer is the one the whole search gives."""

    __slots__ = ("order", "steps", "least", "_adj", "_level", "_d")

    def __init__(self, num: dict[Pos, int], adj: list[list[int]], order: list[Pos], blocked: frozenset[Pos]) -> None:
        size = len(adj)
        steps = [-1] * size
        least = [-1] * size
        for p in blocked:
            i = num.get(p)
            if i is not None:
                steps[i] = -2
        level: list[int] = []
        r = 0
        for p in order:
            i = num.get(p)
            if i is not None and steps[i] != 0:
                steps[i] = 0
                least[i] = r
                level.append(i)
            r += 1
        self.order = order
        self.steps = steps
        self.least = least
        self._adj = adj
        self._level = level
        self._d = 0

    def reach(self, i: int, limit: int = -1) -> int:
        """The steps of tile number `i` (as `steps[i]`), the search gone on until it is reached or ends; with a
        `limit` (0 or more), not searched beyond that many steps (-1: not reached so far)."""
        steps = self.steps
        found = steps[i]
        if found != -1 or not self._level or 0 <= limit <= self._d:
            return found
        least = self.least
        adj = self._adj
        level = self._level
        d = self._d
        # each level is listed by its tiles' least sources in order (the sources are, and a tile is listed when
        # first reached, from the first tile of the level before that reaches it): the first source to reach a
        # tile is the least of its nearest
        while level and steps[i] == -1 and (limit < 0 or d < limit):
            d += 1
            nxt: list[int] = []
            for t in level:
                lt = least[t]
                for q in adj[t]:
                    if steps[q] == -1:
                        steps[q] = d
                        least[q] = lt
                        nxt.append(q)
            level = nxt
        self._level = level
        self._d = d
        return steps[i]


class _Walker:
    """The steps of a walker who passes through walls (`walls`) or between the portal tiles `linked` (by
    number), by tile number, kept all game (`Play.graph`): each tile's list is made again only when the board
    changed it (a tile laid next to it, or, along passages, when its passages list is a new one)."""

    __slots__ = ("key", "walls", "linked", "adj", "base", "size", "seen")

    def __init__(self, key: Any, walls: bool, linked: list[int]) -> None:
        self.key, self.walls, self.linked = key, walls, linked
        self.adj: list[list[int]] = []
        self.base: list[list[int]] = []  # (without walls: the passages list each tile's list was made from)
        self.size = 0
        self.seen = 0  # (without walls: the entries of the board's log of tiles linked again read so far)

    def catch_up(self, passages: list[list[int]], codes: list[int], cell: dict[int, int], n: int,
                 relinked: list[int]) -> None:
        adj, linked = self.adj, self.linked
        if self.walls:
            for i in range(self.size, n):
                out = [j for side in range(4) if (j := cell.get(_beyond(codes[i], side))) is not None]
                for j in out:  # (the tiles laid before that it touches step to it too)
                    if j < self.size:
                        adj[j].append(i)
                adj.append(out)
                if i in linked:
                    out.extend(j for j in linked if j != i and j not in out)
            self.size = n
            return
        # Along passages: the tiles laid since, and of the others only those the board linked again since
        # (`Play._link` logs them in `relinked`), not every tile's list compared at each catch-up.
        base, size = self.base, self.size
        for i in range(size, n):
            adj.append(self._along(passages[i], i))
            base.append(passages[i])
        for k in range(self.seen, len(relinked)):
            i = relinked[k]
            if i < size and base[i] is not passages[i]:
                adj[i] = self._along(passages[i], i)
                base[i] = passages[i]
        self.seen = len(relinked)
        self.size = n

    def _along(self, passages: list[int], i: int) -> list[int]:
        """Tile `i`'s steps along passages: its `passages`, then the other portal tiles when it is one."""
        out = list(passages)
        linked = self.linked
        if i in linked:
            out.extend(j for j in linked if j != i and j not in out)
        return out


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

    # the laid tiles by number (their place in the order laid, as `_number` catches up with the board): the
    # position, square code and exits of each number, the number on each square code, and the numbers one
    # passage away (kept by `passages`)
    _at: list[Pos] = field(default_factory=list, init=False, repr=False, compare=False)
    _codes: list[int] = field(default_factory=list, init=False, repr=False, compare=False)
    _exits: list[frozenset[int]] = field(default_factory=list, init=False, repr=False, compare=False)
    _cell: dict[int, int] = field(default_factory=dict, init=False, repr=False, compare=False)
    # the same numbers by position (the board's own key tuples): a tuple hash costs less than making a code
    _num: dict[Pos, int] = field(default_factory=dict, init=False, repr=False, compare=False)
    _adj: list[list[int]] = field(default_factory=list, init=False, repr=False, compare=False)
    # the numbers of the tiles whose passages `_link` found, in order, again at each new neighbour (`_Walker`
    # catches up from it)
    _relinked: list[int] = field(default_factory=list, init=False, repr=False, compare=False)

    def _number(self) -> int:
        """Number the tiles laid since the last call; the count of laid tiles."""
        board = self.board
        at = self._at
        if len(at) != len(board):
            codes, exits, cell, adj = self._codes, self._exits, self._cell, self._adj
            for pos in _laid_since(board, len(at)):
                if not -524288 < pos[1] < 524288:
                    raise ValueError(f"the board reaches too far: a tile at {pos}")
                code = _code(pos)
                cell[code] = len(at)
                self._num[pos] = len(at)
                at.append(pos)
                codes.append(code)
                exits.append(board[pos].exits)
                adj.append([])
        return len(at)

    def passages(self) -> dict[Pos, list[Pos]]:
        """For every tile, the tiles one step away joined to it by a passage (both open towards each
        other), in side order (north, east, south, west)."""
        size, found = self._passages
        if size == len(self.board):
            return found
        n = self._number()
        codes, exits, cell = self._codes, self._exits, self._cell
        stale: list[int] = []  # tiles laid before that a new one joins (only their passages change)
        for i in range(size, n):
            code = codes[i]
            ex = exits[i]
            for side in range(4):
                j = cell.get(_beyond(code, side))
                if j is not None and j < size and side in ex and (side + 2) % 4 in exits[j]:
                    stale.append(j)
        for i in range(size, n):
            self._link(i, found)
        for i in stale:
            self._link(i, found)
        self._passages = (n, found)
        return found

    def _link(self, i: int, found: dict[Pos, list[Pos]]) -> None:
        """Find the passages of tile number `i`, by number and by position."""
        code = self._codes[i]
        ex = self._exits[i]
        cell, exits, at = self._cell, self._exits, self._at
        out: list[int] = []
        for side in range(4):  # (in side order, as the sides are numbered)
            if side in ex:
                j = cell.get(_beyond(code, side))
                if j is not None and (side + 2) % 4 in exits[j]:
                    out.append(j)
        self._adj[i] = out
        self._relinked.append(i)
        found[at[i]] = [at[j] for j in out]  # (the board's own keys: later look-ups find the same tuples)

    _edges: tuple[int, set[Pos]] = field(default_factory=lambda: (0, set()), init=False, repr=False, compare=False)

    def open_edges(self) -> set[Pos]:
        """The tiles with an exit towards a square where no tile lies yet (where the board can grow). The
        caller must not change the set."""
        size, found = self._edges
        if size != len(self.board):
            # only the tiles laid since and their neighbours can have changed
            n = self._number()
            for i in range(size, n):
                code = self._codes[i]
                self._edge(i, found)
                for side in range(4):
                    j = self._cell.get(_beyond(code, side))
                    if j is not None:
                        self._edge(j, found)
            self._edges = (n, found)
        return found

    def _edge(self, i: int, found: set[Pos]) -> None:
        """File tile number `i` in `found` if one of its exits leads to a square with no tile, else take it out."""
        code, cell = self._codes[i], self._cell
        for side in self._exits[i]:
            if _beyond(code, side) not in cell:
                found.add(self._at[i])  # (the board's own key)
                return
        found.discard(self._at[i])

    _near: tuple[int, dict[Pos, dict[Any, Any]]] = field(default_factory=lambda: (0, {}), init=False, repr=False,
                                                          compare=False)

    def near_memo(self, pos: Pos) -> dict[Any, Any]:
        """Answers about the tile at `pos` that depend only on the tiles next to it: kept until a tile is laid
        next to it (the board memo forgets everything whenever a tile is laid anywhere). By position: a
        position's tuple hash costs less than making its square code (a new integer object) and hashing that."""
        size, known = self._near
        if size != len(self.board):
            n = self._number()
            at = self._at
            for i in range(size, n):  # (only the squares next to a new tile can change, and its own)
                p = at[i]
                x, y = p[0], p[1]
                # (`in` and `del`, not `pop(key, None)`: compiled, `pop` with a default is a call by name)
                for there in (p, (x, y - 1), (x + 1, y), (x, y + 1), (x - 1, y)):
                    if there in known:
                        del known[there]
            self._near = (n, known)
        found = known.get(pos)
        if found is None:
            found = known[pos] = {}
        return found

    def open_sides(self, pos: Pos) -> list[int]:
        """The sides of the tile at `pos` that open towards a square with no tile yet, in side order ([] off
        the board). The caller must not change the list."""
        memo = self.near_memo(pos)  # (numbers the board's new tiles)
        found: list[int] | None = memo.get(_OPEN_SIDES)
        if found is None:
            found = memo[_OPEN_SIDES] = []
            placed = self.board.get(pos)
            if placed is not None:
                code, cell, exits = _code(pos), self._cell, placed.exits
                for side in range(4):
                    if side in exits and _beyond(code, side) not in cell:
                        found.append(side)
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

    # answers about the laid tiles kept all game and caught up with the tiles laid since (`laid_since`)
    _laid_memo: dict[Any, Any] = field(default_factory=dict, init=False, repr=False, compare=False)
    _laid_seen: dict[str, int] = field(default_factory=dict, init=False, repr=False, compare=False)

    def laid_memo(self) -> dict[Any, Any]:
        """Answers about the laid tiles that are kept all game and extended tile by tile (see `laid_since`)."""
        return self._laid_memo

    def laid_since(self, reader: str) -> list[Pos]:
        """The positions of the tiles laid since `reader` last asked (all of them the first time), in the order
        laid; each reader keeps its own place."""
        seen = self._laid_seen.get(reader, 0)
        board = self.board
        if seen == len(board):
            return []
        self._laid_seen[reader] = len(board)
        return _laid_since(board, seen)

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

    def tokens_moved(self, placed: Placed | None = None) -> None:
        """Say that a token was put on a laid tile or taken off one (every verb that does calls this), on the
        tile `placed` when the verb knows it (`token_tiles_since` lists it)."""
        self.token_moves += 1
        if placed is None:
            self.token_tiles_unknown += 1
        else:
            self.token_tiles.append(placed)

    # the tiles whose tokens changed, in order (a tile once per change), and how many changes said no tile
    token_tiles: list[Placed] = field(default_factory=list, init=False, repr=False, compare=False)
    token_tiles_unknown: int = 0  # (a plain default, as `item_moves`: compiled, an `init=False` one is never set)
    _token_tiles_seen: dict[str, tuple[int, int]] = field(default_factory=dict, init=False, repr=False,
                                                          compare=False)

    def token_tiles_since(self, reader: str) -> list[Placed] | None:
        """The tiles whose tokens changed since `reader` last asked (each reader keeps its own place), in order;
        None the first time and after a change on a tile not said (the reader then looks at every tile)."""
        seen = self._token_tiles_seen.get(reader)
        now = (len(self.token_tiles), self.token_tiles_unknown)
        self._token_tiles_seen[reader] = now
        if seen is None or seen[1] != now[1]:
            return None
        return self.token_tiles[seen[0]:]

    # items put on laid tiles or taken off them so far, and the tiles that ever held one, in the order they first
    # did (a superset of the tiles with items: the sensible bot looks there, not over the whole board)
    item_moves: int = 0
    tiles_replaced: int = 0  # laid tiles that another tile took the place of (`replace_tile`)
    item_tiles: list[Placed] = field(default_factory=list, init=False, repr=False, compare=False)

    def item_places(self) -> list[Placed]:
        """The tiles that ever held an item (a superset of those holding one now) in the order they first did,
        a tile laid with items from when it was laid (which counts as an item moved: ask this before reading
        `item_moves`). The caller must not change the list."""
        board = self.board
        for pos in self.laid_since("item places"):
            placed = board[pos]
            if placed.items and not placed.held_items:  # (laid with items: counts as items moved)
                placed.held_items = True
                self.item_tiles.append(placed)
                self.item_moves += 1
        return self.item_tiles

    def put_item(self, placed: Placed, item: str) -> None:
        """Lay `item` on the tile `placed` (every verb that puts an item on a tile does it so)."""
        placed.items.append(item)
        self.item_moves += 1
        if not placed.held_items:
            placed.held_items = True
            self.item_tiles.append(placed)

    def take_item(self, placed: Placed, item: str) -> None:
        """Take `item` off the tile `placed` (every verb that takes an item off a tile does it so)."""
        placed.items.remove(item)
        self.item_moves += 1

    def replace_tile(self, placed: Placed) -> None:
        """Lay `placed` at its position, in the stead of the tile there if one lies there (every verb that replaces a
        laid tile does it so): the old tile's tokens and items go with it, as `token_tiles_since` and
        `item_places` then say."""
        old = self.board.get(placed.pos)
        self.board[placed.pos] = placed
        if old is None:
            return
        self.tiles_replaced += 1
        self.tokens_moved(placed)
        if old.held_items:
            self.item_tiles.remove(old)
            self.item_moves += 1

    def graph(self, walls: bool, portals: tuple[Pos, ...]) -> Graph | None:
        """The tiles one step away, by number, for a walker who also passes through walls (`walls`: to every
        laid tile next to it) and steps between any two tiles of `portals` (as `play_verbs._neighbours` moves
        a hero), with the key that names it in the searches kept; None when only the passages lead (the
        searches' own steps). Kept all game and brought up to date with the tiles laid since (`_Walker`), not
        made again per tile."""
        if not walls and len(portals) < 2:
            return None
        self.passages()
        n = len(self._at)
        key = ("graph", walls, portals)
        kept = self._laid_memo
        walker: _Walker | None = kept.get(key)
        if walker is None:
            walker = kept[key] = _Walker(key, walls, [i for p in portals if (i := self._num.get(p)) is not None])
        if walker.size != n:  # (passages change only when a tile is laid)
            walker.catch_up(self._adj, self._codes, self._cell, n, self._relinked)
        return walker.key, walker.adj

    def search(self, sources: Iterable[Pos], blocked: Iterable[Pos] = (), until: Iterable[Pos] = (),
               first: bool = False) -> Search:
        """Steps along passages from the nearest of `sources` to every tile reached (`Search.to`), never
        entering a tile of `blocked` (a source is always in). One breadth-first search per board and question,
        remembered until a tile is laid. With `until`, the search may stop once every tile of `until` has its
        distance (with `first`: once one has), a level at a time: the answer then holds every tile up to that
        distance, each with its true distance, and the search goes on from there when asked for more."""
        return self._search(sources, blocked, self._numbered(until), first)

    def steps_to(self, sources: Iterable[Pos], blocked: Iterable[Pos], wanted: Iterable[Pos],
                 first: bool = False, graph: Graph | None = None) -> dict[Pos, int]:
        """`search(sources, blocked, wanted, first)`, answered for the tiles of `wanted` only: those it
        reached, in the order given, with their steps (each position looked up once). `graph`: the steps of
        another walker (`graph`), not the passages."""
        numbered = self._numbered(wanted)
        found = self._search(sources, blocked, numbered, first, graph)
        steps = found.steps
        out: dict[Pos, int] = {}
        for p, i in numbered:
            if i >= 0:
                d = steps[i]
                if d >= 0:
                    out[p] = d
            elif p in found.start:  # (a start off the board is at 0, as `Search.to` says)
                out[p] = 0
        return out

    def _numbered(self, tiles: Iterable[Pos]) -> list[tuple[Pos, int]]:
        """Each tile with its number (-1 off the board), the passages caught up with the board first."""
        self.passages()
        num = self._num
        out: list[tuple[Pos, int]] = []
        for p in tiles:
            i = num.get(p)
            out.append((p, -1 if i is None else i))
        return out

    def _search(self, sources: Iterable[Pos], blocked: Iterable[Pos], wanted: list[tuple[Pos, int]],
                first: bool, graph: Graph | None = None) -> Search:
        known = self.board_memo()
        start, avoid = frozenset(sources), frozenset(blocked)
        key: tuple[Any, ...] = ("distances", start, avoid) if graph is None else ("distances", start, avoid, graph[0])
        search: Search | None = known.get(key)
        if search is None:
            search = known[key] = Search(self._num, len(self._at), start, avoid)
        if not search.frontier:
            return search
        # the numbers of the tiles wanted and not reached yet; a tile wanted that is not on the board is never
        # reached (unless it is a start), and the search then runs to its end, as a search without `until` does
        steps = search.steps
        left: list[int] = []  # (a few tiles at most: a list, looked at once per level, not a set per tile reached)
        endless = not wanted
        for p, i in wanted:
            if i < 0:
                if p in search.start:
                    if first:
                        return search
                else:
                    endless = endless or not first
            elif steps[i] >= 0:
                if first:
                    return search
            else:
                left.append(i)
        if not left:
            if not first and not endless:
                return search  # (every tile wanted has its distance)
            endless = True  # (with `first`: every tile wanted is off the board; the search runs to its end)
        adj = self._adj if graph is None else graph[1]
        level = search.frontier
        d = search.d
        while level:
            d += 1
            nxt: list[int] = []
            for t in level:
                for q in adj[t]:
                    if steps[q] == -1:
                        steps[q] = d
                        nxt.append(q)
            level = nxt
            if not endless:  # (a tile wanted is reached when its steps are known: all of them, or with `first` one)
                if first:
                    if _any_reached(steps, left):
                        break
                elif _all_reached(steps, left):
                    break
        search.frontier, search.d = level, d
        return search

    def nearest(self, sources: frozenset[Pos], blocked: frozenset[Pos], pos: Pos,
                graph: Graph | None = None) -> tuple[int, Pos] | None:
        """The steps from `pos` to the nearest tile of `sources` and the least such tile (by position), as
        `steps_to((pos,), blocked, sources, first=True)` gives them (its least-steps tiles, the least of them) for
        a `pos` on the board that is neither a source nor blocked; None when no source is reached (or `pos` is
        off the board). Passages join both ways, so one search from the sources answers for every tile: kept
        until a tile is laid, it serves every step taken towards the same tiles. Sources are never blocked.
        (`graph`: as for `steps_to`; a walker's steps join both ways too.)"""
        found = self.nearest_search(sources, blocked, graph)
        d, r = self.nearest_at(found, pos)
        return None if d < 0 else (d, found.order[r])

    def nearest_search(self, sources: frozenset[Pos], blocked: frozenset[Pos],
                       graph: Graph | None = None) -> Nearest:
        """The search from `sources` around `blocked` that `nearest` answers from (kept until a tile is laid;
        `graph`: as for `steps_to`)."""
        self.passages()
        known = self.board_memo()
        if graph is None:
            key: tuple[Any, ...] = ("nearest", sources, blocked)
            adj = self._adj
        else:
            key = ("nearest", sources, blocked, graph[0])
            adj = graph[1]
        found: Nearest | None = known.get(key)
        if found is None:
            found = known[key] = Nearest(self._num, adj, sorted(sources), blocked)
        return found

    def least_next_to(self, pos: Pos, targets: AbstractSet[Pos], graph: Graph | None = None) -> Pos | None:
        """The least tile (by position) of `targets` one step from `pos`, None when none is: the tile `nearest`
        finds when the nearest of `targets` is one step away, without a search (steps join both ways).
        `graph`: as for `steps_to`."""
        self.passages()
        i = self._num.get(pos)
        if i is None:
            return None
        adj = self._adj if graph is None else graph[1]
        at = self._at
        best: Pos | None = None
        for j in adj[i]:
            p = at[j]
            if p in targets and (best is None or p < best):
                best = p
        return best

    def nearest_at(self, found: Nearest, pos: Pos, limit: int = -1) -> tuple[int, int]:
        """The steps from `pos` to the nearest source of `found` (made by `nearest_search` for the board as it is
        now) and the rank in `found.order` of the least such source; (-1, -1) when none is reached, `pos` is
        blocked or off the board, or (with a `limit`, 0 or more) its steps are more than `limit`."""
        i = self._num.get(pos)
        if i is None:
            return -1, -1
        d = found.reach(i, limit)
        return (d, found.least[i]) if d >= 0 else (-1, -1)

    def distances(self, sources: Iterable[Pos], blocked: Iterable[Pos] = (), until: Iterable[Pos] = (),
                  first: bool = False) -> dict[Pos, int]:
        """`search`'s answer as a dict: each tile reached -> its steps from the nearest source."""
        found = self.search(sources, blocked, until, first)
        at = self._at
        out = {p: 0 for p in found.start if p not in self._num}
        for i, d in enumerate(found.steps):
            if d >= 0:
                out[at[i]] = d
        return out

    # option labels of laid tiles, `<tile>@x,y`, both ways (a laid tile never changes: made once per tile)
    _labels: dict[Pos, str] = field(default_factory=dict, init=False, repr=False, compare=False)
    _label_at: dict[str, Pos] = field(default_factory=dict, init=False, repr=False, compare=False)

    def label(self, pos: Pos) -> str:
        """The option label of the tile at `pos`."""
        found = self._labels.get(pos)
        if found is None:
            found = self._labels[pos] = f"{self.board[pos].tile}@{pos[0]},{pos[1]}"
            self._label_at[found] = pos
        return found

    def label_pos(self, label: str) -> Pos | None:
        """The position of a label `label` made (None for any other text)."""
        return self._label_at.get(label)

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
