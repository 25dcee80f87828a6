"""The state of a run paused for an input, as a key: two runs with equal keys go on alike for every future input.

The exact odds re-run a fight from the start for every path of its tree (`odds.py`); many paths meet again
(a hero who re-rolls both dice is where he was whatever the first roll showed), so the distribution from such
a point can be computed once. The key is the whole state the rest of the run can see: where each frame of the
run stands (code and instruction), its local variables and everything reachable from them (the context, the
fighters, the sides), with these exceptions, each because nothing after the pause can read it:

- the inputs (their recorded answers are used up: every later answer comes from the enumeration);
- the log (the lean enumerations read no log; the engine only rewrites entries it appended itself);
- which dice a side rolled first (`first_dice`): only whether it has them (`reroll` asks nothing else);
- a fight's serial number (it only names the fight for "once per fight"): replaced by its place in the key;
- `seen_faces` (every face rolled in the fight) is kept apart: it is read only by `die_shows(any_roll)`,
  which notes the face it asks about (`verbs.SEEN_ASKED`), so a subtree is shared by every path that pauses
  in the same state and agrees on the faces it asked about (whatever else they saw).

Objects the run does not change (the ruleset, entities, effects, procedures, functions, modules, the ruleset's
fire plans, whose caches only remember what the ruleset gives) count by identity, and stay alive while a key
names them (so no other object can take their id); any other object makes the key unique (never shared). A run
inside a game in play is not keyed.
"""

from __future__ import annotations

import sys
from collections.abc import Hashable
from itertools import count
from types import BuiltinFunctionType, CodeType, FrameType, FunctionType, MethodType, ModuleType
from typing import Any

from .context import Character, Context, Fight, Side, _FirePlan
from .inputs import Choice, Dice, Inputs
from .model import EffectDef, EntityData, ProcedureDef, Ruleset
from .unknowns import Target

# Whether the runtime's own code runs as Python, with frames a key can read: the compiled runtime (accel.py)
# has none for its functions, whose locals are part of a paused state, so there no run is keyed (every path is
# run to its end: the same distributions, more runs).
KEYED = isinstance(Context.__dict__.get("run_procedure"), FunctionType)

_unique = count()
_SHARED = (Ruleset, EntityData, EffectDef, ProcedureDef, FunctionType, BuiltinFunctionType, MethodType,
           ModuleType, CodeType, type, _FirePlan)  # (a fire plan: the ruleset's, its caches derived from it)
_ATOMS = frozenset({str, int, float, bytes, type(None)})
_SKIP = {Context: frozenset({"inputs", "log", "used"}), Side: frozenset({"first_dice", "seen_faces"}),
         Character: frozenset(), Fight: frozenset({"serial"})}
_KEY_AS: dict[type, type] = {}  # watched subclasses (opponent_blind.py), keyed as the class they watch


def key_as(cls: type, base: type) -> None:
    """Key objects of `cls` exactly as objects of `base` (a subclass that only watches who reads it)."""
    _KEY_AS[cls] = base
# tags that say what a part of the key was (unique objects: no value of the run can equal one)
_BOOL, _TUPLE, _CHOICE, _FROZEN, _DICE, _REF, _ID, _LIST, _DICT, _SET, _INPUTS, _ODD, _TARGET = (
    object() for _ in range(13))


class _Canon:
    """Builds the key: shared objects by identity, values (tuples, frozensets) by value, state objects by
    value and, met again, by their first place (two runs agree only if both reach one object twice)."""

    __slots__ = ("seen", "places", "serials", "faces", "pinned")

    def __init__(self) -> None:
        self.pinned: list[Any] = []
        self.seen: dict[int, int] = {}
        self.places: list[Any] = []  # keeps every visited object alive while the key is built
        self.serials: dict[int, int] = {}
        self.faces: list[frozenset[int]] = []

    def of(self, x: Any) -> Hashable:
        cls = type(x)
        if cls in _ATOMS:
            return x  # type: ignore[no-any-return]
        if cls is bool:
            return (_BOOL, x)
        if cls is tuple:  # values: compared by what they hold, wherever they are
            return (_TUPLE, *map(self.of, x))
        if cls is frozenset:
            return (_FROZEN, frozenset(map(self.of, x)))
        if cls is Choice:
            return (_CHOICE, *map(self.of, x))
        if cls is Dice:
            return (_DICE, x.count, x.sides)
        if cls is Target:  # an unknown value to beat (fight_classes.py): by the values still possible
            return (_TARGET, x.offset, x.base.candidates)
        ident = id(x)
        if ident in self.seen:
            return (_REF, self.seen[ident])
        cls = _KEY_AS.get(cls, cls)
        skip = _SKIP.get(cls)
        if skip is None:
            if isinstance(x, _SHARED):
                self.pinned.append(x)  # alive as long as a key names it: no other object can take its id
                return (_ID, ident)
            if isinstance(x, Inputs):
                return _INPUTS
        self.seen[ident] = len(self.places)
        self.places.append(x)
        if cls is list:
            return (_LIST, *map(self.of, x))
        if cls is dict:
            return (_DICT, *[(self.of(k), self.of(v)) for k, v in x.items()])
        if cls is set:
            return (_SET, frozenset(map(self.of, x)))
        if skip is None:
            return (_ODD, next(_unique))  # an object of unknown kind: never shared
        out: list[Any] = [cls]
        if cls is Fight:
            out.append(self.serials.setdefault(x.serial, len(self.serials)))
        elif cls is Side:
            out.append(bool(x.first_dice))
            self.faces.append(frozenset(x.seen_faces))
        elif cls is Context:
            if x.play is not None:
                raise _NotKeyed
            if x.fight is not None:  # the fight's serial first: "once per fight" marks name it
                self.serials.setdefault(x.fight.serial, len(self.serials))
            out.append(frozenset(self._used(k) for k in x.used))
        of, atoms = self.of, _ATOMS
        for name, value in x.__dict__.items():
            if name not in skip:
                out.append(value if type(value) in atoms else of(value))
        return tuple(out)

    def _used(self, key: Any) -> Hashable:
        """A "once per" mark; a fight's serial in it becomes the fight's place in the key."""
        effect, scope = key
        if isinstance(scope, tuple) and len(scope) == 2 and scope[0] == "fight" and scope[1] in self.serials:
            return (effect, "fight", self.serials[scope[1]])
        return (effect, self.of(scope))


class _NotKeyed(Exception):  # noqa: N818 - a signal
    """The run is one this key does not describe (a game in play)."""


def pause_key(what: Any, stop: CodeType, depth: int = 2) -> tuple[Hashable, tuple[frozenset[int], ...],
                                                                   list[Any]] | None:
    """The key of the run paused here for `what`: (the state without `seen_faces`, the `seen_faces` of each
    side met, the objects the key names by identity: whoever keeps the key must keep them alive), or None
    when the run cannot be keyed. `stop` is the code that started the run: frames from the input's method
    (`depth` frames up from here: the caller of `Replay._next`, i.e. roll, choose, ...) up to the one it
    called are keyed (that one by its position only: its locals are the enumeration's, the context it made is
    reached through the frames below). Only on the Python runtime (`KEYED`)."""
    frame: FrameType | None = sys._getframe(depth)
    canon = _Canon()
    stack: list[Hashable] = []
    try:
        while frame is not None:
            back = frame.f_back
            canon.pinned.append(frame.f_code)
            if back is not None and back.f_code is stop:  # the process itself
                stack.append((id(frame.f_code), frame.f_lasti))
                break
            stack.append((id(frame.f_code), frame.f_lasti,
                          tuple([(k, canon.of(v)) for k, v in frame.f_locals.items() if not isinstance(v, Inputs)])))
            frame = back
        else:
            return None
    except _NotKeyed:
        return None
    return (canon.of(what), tuple(stack)), tuple(canon.faces), canon.pinned
