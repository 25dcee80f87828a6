"""The parse tree as plain frozen data: what a source file says, before any kind or type is known.

Values keep their source span; they are shared with the typed IR, which wraps them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from cardc.diagnostics import Span
from cardc.records import pickle_by_constructor

if TYPE_CHECKING:  # `fractions` imports `decimal` (5-10 ms): only the parser and a tree holding one need it
    from fractions import Fraction

# ---- values -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class IntV:
    value: int
    span: Span


@dataclass(frozen=True, slots=True)
class SignedV:
    """A signed modifier such as `+1` or `-2`."""

    value: int
    span: Span


@dataclass(frozen=True, slots=True)
class DecimalV:
    value: Fraction
    text: str
    span: Span


@dataclass(frozen=True, slots=True)
class RangeV:
    lo: int
    hi: int
    span: Span


OPEN_RANGE = 99  # a range reaching this high reads "5 or more" (here, not in `cardc.textgen`: W501 reads it too)


@dataclass(frozen=True, slots=True)
class DiceV:
    count: int
    sides: int
    span: Span


@dataclass(frozen=True, slots=True)
class StrV:
    value: str
    span: Span


@dataclass(frozen=True, slots=True)
class IconV:
    name: str
    span: Span


@dataclass(frozen=True, slots=True)
class BoolV:
    value: bool
    span: Span


@dataclass(frozen=True, slots=True)
class TextEntry:
    lang: str
    text: str
    span: Span


@dataclass(frozen=True, slots=True)
class LocalizedV:
    """`{ cs "..." en "..." }`: one text per language."""

    entries: tuple[TextEntry, ...]
    span: Span

    def get(self, lang: str) -> str | None:
        for e in self.entries:
            if e.lang == lang:
                return e.text
        return None

    def as_dict(self) -> dict[str, str]:
        return {e.lang: e.text for e in self.entries}


@dataclass(frozen=True, slots=True)
class ListV:
    items: tuple[Value, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class Arg:
    name: str | None
    value: Value
    span: Span


@dataclass(frozen=True, slots=True)
class CallV:
    """A name, optionally with arguments: a reference, an enum value, a type or an effect verb."""

    name: str
    args: tuple[Arg, ...] | None
    span: Span

    @property
    def is_bare(self) -> bool:
        return self.args is None


@dataclass(frozen=True, slots=True)
class UnknownV:
    """A value not known yet: passes check with a warning, fails check --strict."""

    note: str | None
    span: Span


@dataclass(frozen=True, slots=True)
class ProvisionalV:
    """A best-known value that is not confirmed: shown as provisional in every output."""

    value: Value
    note: str
    span: Span


Value = (
    IntV | SignedV | DecimalV | RangeV | DiceV | StrV | IconV | BoolV | LocalizedV | ListV | CallV
    | UnknownV | ProvisionalV
)

# ---- effects ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class NotC:
    cond: Cond
    span: Span


@dataclass(frozen=True, slots=True)
class AndC:
    left: Cond
    right: Cond
    span: Span


@dataclass(frozen=True, slots=True)
class OrC:
    left: Cond
    right: Cond
    span: Span


Cond = CallV | NotC | AndC | OrC


@dataclass(frozen=True, slots=True)
class DoS:
    call: CallV
    span: Span


@dataclass(frozen=True, slots=True)
class MayS:
    """An optional action: the player may do it (a yes/no choice)."""

    call: CallV
    span: Span


@dataclass(frozen=True, slots=True)
class OptionS:
    name: str
    body: tuple[Stmt, ...]
    span: Span
    guard: Cond | None = None  # `name if COND { ... }`: offered only while COND holds (procedures only)


@dataclass(frozen=True, slots=True)
class ChooseS:
    options: tuple[OptionS, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class IfS:
    cond: Cond
    then: tuple[Stmt, ...]
    orelse: tuple[Stmt, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class FireS:
    """`fire TRIGGER(args)`: the effects that listen to the trigger run here (procedures only)."""

    trigger: CallV
    span: Span


@dataclass(frozen=True, slots=True)
class RepeatS:
    count: int
    body: tuple[Stmt, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class WhileS:
    cond: Cond
    body: tuple[Stmt, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class ForEachS:
    """`for each player { ... }`: the body runs once per member, each acting in turn."""

    what: str
    body: tuple[Stmt, ...]
    span: Span


Stmt = DoS | MayS | ChooseS | IfS | FireS | RepeatS | WhileS | ForEachS


@dataclass(frozen=True, slots=True)
class RuleS:
    """`on TRIGGER [if COND] { ... }`."""

    trigger: CallV
    cond: Cond | None
    body: tuple[Stmt, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class ProcedureS:
    """`procedure NAME { ... }`: a named part of how the game is played."""

    name: str
    body: tuple[Stmt, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class EndS:
    """`end when COND`: the game ends as soon as COND holds between steps."""

    cond: Cond
    span: Span


@dataclass(frozen=True, slots=True)
class WinnerS:
    """`winner by VERB(args)`: how the winner is found when the game ends."""

    call: CallV
    span: Span


# ---- declarations -----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AttrS:
    name: str
    value: Value
    span: Span


@dataclass(frozen=True, slots=True)
class DeclS:
    kind: str
    id: str
    errata: bool
    extends: str | None
    attrs: tuple[AttrS, ...]
    decls: tuple[DeclS, ...]
    rules: tuple[RuleS, ...]
    span: Span
    id_span: Span


@dataclass(frozen=True, slots=True)
class ImportS:
    path: str
    span: Span
    kind: str | None = None  # `import "monsters.csv" as monster`: the kind of every row of a sheet


@dataclass(frozen=True, slots=True)
class ModuleS:
    name: str
    span: Span


@dataclass(frozen=True, slots=True)
class FileS:
    path: str
    module: ModuleS | None
    imports: tuple[ImportS, ...]
    decls: tuple[DeclS, ...]
    procedures: tuple[ProcedureS | EndS | WinnerS, ...] = ()


pickle_by_constructor(globals())  # the disk cache loads parse trees and diagnostics: see cardc.records
