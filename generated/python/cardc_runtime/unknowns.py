"""Values a fight holds without knowing them: the value to beat of one opponent among several (`Target`), and
what only that opponent could say (`Opaque`). Exact odds against several opponents that the rules cannot
tell apart but by that value are computed in one enumeration (fight_classes.py): comparing the unknown value
with a number is a question put to the inputs (a choice of `ORACLE`), asked only where the opponents still
possible answer it differently; any other use of an unknown stops the run (`NeedsOpponent`), and the
opponents are then fought one by one."""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any, NoReturn

from .inputs import Choice, Inputs

ORACLE = "\0opponent"  # the chooser of the questions about the unknown value (never a character's id)
OPS: dict[str, Callable[[int, int], bool]] = {"lt": operator.lt, "le": operator.le, "gt": operator.gt,
                                               "ge": operator.ge, "eq": operator.eq, "ne": operator.ne}


class NeedsOpponent(BaseException):  # noqa: N818 - a signal; not an Exception, so no `except Exception` eats it
    """A run used an unknown beyond what one enumeration for several opponents can answer."""


def _stop(*_: Any) -> NoReturn:
    raise NeedsOpponent


class Unknown:
    """The value to beat: one of `candidates`, narrowed by the answers of the run so far."""

    __slots__ = ("candidates", "inputs")

    def __init__(self, candidates: frozenset[int], inputs: Inputs) -> None:
        self.candidates, self.inputs = candidates, inputs

    def ask(self, op: str, n: int) -> bool:
        """Whether `value op n`: known if every candidate left agrees, else asked (and the candidates narrowed)."""
        test = OPS[op]
        yes = frozenset(c for c in self.candidates if test(c, n))
        if not yes:
            return False
        if len(yes) == len(self.candidates):
            return True
        answer = bool(self.inputs.choose(Choice(ORACLE, f"{op} {n}", (False, True))))
        self.candidates = yes if answer else self.candidates - yes
        return answer


class Target:
    """The unknown value plus a known offset (modifiers added to it): numbers compare with it, add to it."""

    __slots__ = ("base", "offset")

    def __init__(self, base: Unknown, offset: int = 0) -> None:
        self.base, self.offset = base, offset

    def _cmp(self, op: str, n: Any) -> bool:
        if type(n) is not int:
            raise NeedsOpponent
        return self.base.ask(op, n - self.offset)

    def __lt__(self, n: Any) -> bool:
        return self._cmp("lt", n)

    def __le__(self, n: Any) -> bool:
        return self._cmp("le", n)

    def __gt__(self, n: Any) -> bool:
        return self._cmp("gt", n)

    def __ge__(self, n: Any) -> bool:
        return self._cmp("ge", n)

    def __eq__(self, n: object) -> bool:
        return self._cmp("eq", n)

    def __ne__(self, n: object) -> bool:
        return self._cmp("ne", n)

    def __add__(self, n: Any) -> Target:
        if type(n) is not int:
            raise NeedsOpponent
        return Target(self.base, self.offset + n)

    __radd__ = __add__

    def __sub__(self, n: Any) -> Target:
        if type(n) is not int:
            raise NeedsOpponent
        return Target(self.base, self.offset - n)

    def __rsub__(self, n: Any) -> Opaque:
        return Opaque()  # (the margin of a fight: stops the run where it is read)

    def __neg__(self) -> Opaque:
        return Opaque()

    __hash__ = __bool__ = __int__ = __index__ = __float__ = __str__ = __format__ = _stop
    __mul__ = __rmul__ = __floordiv__ = __truediv__ = __mod__ = __abs__ = _stop

    def __getattr__(self, name: str) -> NoReturn:
        raise NeedsOpponent

    def __repr__(self) -> str:
        return f"{ORACLE}Target(+{self.offset})"


class Opaque:
    """A value of one opponent among several (its reward, its name, the margin against it): it may be held
    and passed on; using it stops the run."""

    __slots__ = ()

    __hash__ = __bool__ = __int__ = __index__ = __float__ = __str__ = __format__ = _stop
    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = _stop
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _stop
    __len__ = __iter__ = __contains__ = __getitem__ = _stop

    def __abs__(self) -> Opaque:
        return self

    def __neg__(self) -> Opaque:
        return self

    def __getattr__(self, name: str) -> NoReturn:
        raise NeedsOpponent

    def __repr__(self) -> str:
        return f"{ORACLE}Opaque"
