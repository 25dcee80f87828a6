"""Dice, choices and events as explicit inputs: scripted (worked examples), seeded (simulation) or replayed
(exact enumeration). The engine never calls `random` itself, so every result can be reproduced."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Any, Final, NamedTuple

# (module constants: compiled, each a C static, not a look-up in the module's namespace per call)
_RANDOM: Final = random.Random
_GETRANDBITS: Final = random.Random.getrandbits  # `_random.Random`'s own, which `random.Random` inherits
_RANDOM_FLOAT: Final = random.Random.random


_POINT_IDS: Final[dict[str, dict[str, str]]] = {}  # chooser -> point -> `chooser:point` (made once)


def point_id(who: str, point: str) -> str:
    """`f"{who}:{point}"`, the id of a choice point, remembered (points repeat all game)."""
    mine = _POINT_IDS.get(who)
    if mine is None:
        mine = _POINT_IDS[who] = {}
    found = mine.get(point)
    if found is None:
        if len(mine) >= 4096:
            mine.clear()
        found = mine[point] = f"{who}:{point}"
    return found


def below(rng: random.Random, n: int) -> int:
    """`rng.randrange(n)`: the same number from the same generator, without `randrange`'s argument checks
    (`randrange(n)` is `_randbelow(n)` for n > 0; an empty range still raises as before). For a plain
    `random.Random`, `_randbelow` is `_randbelow_with_getrandbits`, written out here so that the compiled
    runtime runs it natively (it is Python code in `random`): the same draws from the same bits. (Its
    `getrandbits` called as the class's function: no attribute read on the generator per draw.)"""
    if n <= 0:
        return rng.randrange(n)
    if type(rng) is not _RANDOM:
        return rng._randbelow(n)  # type: ignore[attr-defined,no-any-return]
    k = n.bit_length()
    r: int = _GETRANDBITS(rng, k)
    while r >= n:
        r = _GETRANDBITS(rng, k)
    return r


def uniform(rng: random.Random) -> float:
    """`rng.random()`, the same number (for a plain `random.Random`, its C function called directly)."""
    if type(rng) is _RANDOM:
        return _RANDOM_FLOAT(rng)
    return rng.random()


def shuffle_in_place(rng: random.Random, items: list[Any]) -> None:
    """`rng.shuffle(items)`, the same permutation from the same generator (`random.shuffle`'s Fisher-Yates
    written out, drawing with `below`)."""
    if type(rng) is not _RANDOM:
        rng.shuffle(items)
        return
    for i in range(len(items) - 1, 0, -1):
        j = below(rng, i + 1)
        items[i], items[j] = items[j], items[i]


class Choice(NamedTuple):
    """A choice point: who decides (`chooser`), a stable id (`point`) and the options, first = default.
    (A named tuple: one is made for every decision of a game, and a tuple is the cheapest to make.)"""

    chooser: str
    point: str
    options: tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class Dice:
    """Several dice thrown at once: the enumerator branches over their sorted faces (a multiset)."""

    count: int
    sides: int


class NeedInput(Exception):  # noqa: N818 - a signal, not an error
    """Raised by replayed inputs when the recorded answers run out: the enumerator branches here."""

    def __init__(self, what: int | Dice | Choice) -> None:
        super().__init__(what)
        self.what = what


class Inputs:
    """Where dice faces and decisions come from."""

    # True for inputs that answer a choice from its parts by `pick` (no `Choice` made for it: the bots' inputs,
    # asked thousands of times a game); the others are asked by `choose`, through the same frames as ever
    # (the exact odds key paused runs by their frames)
    direct: bool = False
    # Live inputs (`direct`) note here every answer they give while a fight is in progress (`fight.monster_fight`
    # starts it), as `Replay` takes answers: a bot may then ask the exact odds what the fight's choice policy picks
    # at its point (`greedy`). None: nothing noted.
    journal: list[Any] | None = None

    def roll(self, sides: int) -> int:
        raise NotImplementedError

    def roll_dice(self, count: int, sides: int) -> tuple[int, ...]:
        """Several dice thrown together; their order carries no meaning."""
        return tuple(self.roll(sides) for _ in range(count))

    def choose(self, choice: Choice) -> Any:
        raise NotImplementedError

    def pick(self, chooser: str, point: str, options: tuple[Any, ...]) -> Any:
        """`choose(Choice(chooser, point, options))`, for inputs that are `direct`."""
        return self.choose(Choice(chooser, point, options))

    def pick_at(self, chooser: str, name: str, options: tuple[Any, ...]) -> Any:
        """`pick` at the choice point `name` of `chooser` (its id `chooser:name` made here, so that inputs that
        do not read it, such as the random bot's, need not make or look it up)."""
        return self.pick(chooser, point_id(chooser, name), options)

    def shuffle(self, items: Sequence[Any]) -> list[Any]:
        """The items in a random order (Fisher-Yates over rolled dice, so scripted inputs can fix it)."""
        out = list(items)
        for i in range(len(out) - 1, 0, -1):
            j = self.roll(i + 1) - 1
            out[i], out[j] = out[j], out[i]
        return out


Policy = Callable[[Choice, Sequence[Any]], Any]


@dataclass
class Scripted(Inputs):
    """Dice faces in order; choices by point id (`<hero>:<ability>#1`, `<hero>:spell:<item>`), by its end
    after a colon (`<ability>#1`) or by a glob (`<hero>:spell*:<item>`, before or after the roll); a list
    answers the point once per time it is asked, in order; an unscripted choice takes its first option
    (usually: do nothing)."""

    dice: Sequence[int] = ()
    choices: dict[str, Any] = field(default_factory=dict)
    used_dice: int = 0
    asked: list[Choice] = field(default_factory=list)

    def roll(self, sides: int) -> int:
        if self.used_dice >= len(self.dice):
            raise ValueError(f"the script has no die left (roll number {self.used_dice + 1})")
        face = int(self.dice[self.used_dice])
        if not 1 <= face <= sides:
            raise ValueError(f"scripted die {face} is not a face of a d{sides}")
        self.used_dice += 1
        return face

    def choose(self, choice: Choice) -> Any:
        self.asked.append(choice)
        for key in sorted(self.choices, key=len, reverse=True):
            if choice.point == key or choice.point.endswith(":" + key) or fnmatchcase(choice.point, key):
                answer = self.choices[key]
                if isinstance(answer, list):  # one answer per time the point is asked, in order
                    if not answer:
                        return choice.options[0]
                    answer = answer.pop(0)
                if answer not in choice.options:
                    raise ValueError(f"{answer!r} is not an option of {choice.point} {choice.options}")
                return answer
        return choice.options[0]


@dataclass
class Seeded(Inputs):
    """Dice from a seeded generator; choices by `policy` (default: a seeded random option)."""

    seed: int = 0
    policy: Policy | None = None
    history: list[Any] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)

    def roll(self, sides: int) -> int:
        face = self._rng.randint(1, sides)
        self.history.append(face)
        return face

    def shuffle(self, items: Sequence[Any]) -> list[Any]:
        out = list(items)
        self._rng.shuffle(out)
        return out

    def roll_dice(self, count: int, sides: int) -> tuple[int, ...]:
        """Like `Replay`, several dice are recorded as one sorted entry (so a policy can replay them)."""
        if count <= 0:
            return ()
        if count == 1:
            return (self.roll(sides),)
        faces = tuple(sorted(self._rng.randint(1, sides) for _ in range(count)))
        self.history.append(faces)
        return faces

    def choose(self, choice: Choice) -> Any:
        answer = self.policy(choice, tuple(self.history)) if self.policy else self._rng.choice(choice.options)
        self.history.append(answer)
        return answer


@dataclass(init=False)
class Replay(Inputs):
    """Answers recorded along one path of the decision tree; raises NeedInput where the path ends."""

    answers: Sequence[Any]
    position: int = 0

    def __init__(self, answers: Sequence[Any], position: int = 0) -> None:
        # (written out, not made by @dataclass: compiled, the dataclass's own __init__ stays interpreted, and the
        # exact odds make one per run)
        self.answers = answers
        self.position = position

    def _next(self, what: int | Dice | Choice) -> Any:
        if self.position >= len(self.answers):
            raise NeedInput(what)
        answer = self.answers[self.position]
        self.position += 1
        return answer

    def roll(self, sides: int) -> int:
        return int(self._next(sides))

    def roll_dice(self, count: int, sides: int) -> tuple[int, ...]:
        if count <= 0:
            return ()
        if count == 1:
            return (self.roll(sides),)
        what = _DICE.get((count, sides))
        if what is None:
            what = _DICE[(count, sides)] = Dice(count, sides)
        return tuple(self._next(what))

    def choose(self, choice: Choice) -> Any:
        return self._next(choice)


# One `Dice` per kind of throw, made once (a frozen dataclass: its interpreted __init__ cost ~3,500 instructions
# at every replayed throw of the exact odds, asked or not)
_DICE: dict[tuple[int, int], Dice] = {}


class Extended(Replay):
    """Answers recorded along one path, then more from `extend(what)` where they run out (the exact odds'
    runs, odds.py, which note each node they go past). `rolled` says whether a die was thrown before the input
    being asked. A class of this module, not of odds.py: it is compiled with the rest of the runtime (compiled
    classes refuse interpreted subclasses), so the exact odds run on the compiled runtime too."""

    def __init__(self, answers: list[Any], extend: Callable[[int | Dice | Choice], Any]) -> None:
        self.answers = answers
        self.position = 0
        self.recorded = answers  # (`answers` itself: a list, extended in place)
        self.extend = extend
        self.rolled = False

    def _next(self, what: int | Dice | Choice) -> Any:
        recorded = self.recorded
        if self.position >= len(recorded):
            recorded.append(self.extend(what))
        if not isinstance(what, Choice):
            self.rolled = True
        answer = recorded[self.position]
        self.position += 1
        return answer

