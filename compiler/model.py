"""The typed IR: plain frozen data that every backend reads. Every node keeps its source span."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from cardc.diagnostics import Span
from cardc.records import pickle_by_constructor
from cardc.syntax import LocalizedV, Value


@dataclass(frozen=True, slots=True)
class TypeExpr:
    """An attribute or parameter type: `int`, `list(ref(item))`, `enum(light, dark)`."""

    name: str
    args: tuple[TypeExpr | str, ...] = ()

    def __str__(self) -> str:
        if not self.args:
            return self.name
        return f"{self.name}({', '.join(str(a) for a in self.args)})"


@dataclass(frozen=True, slots=True)
class AttrDef:
    name: str
    type: TypeExpr
    required: bool
    default: Value | None
    doc: str | None
    span: Span
    label: LocalizedV | None = None  # how a printed card names the attribute, per language
    icon: str | None = None  # `:name:` of a bundled icon, or an SVG path relative to `span.file`


@dataclass(frozen=True, slots=True)
class KindDef:
    id: str
    game: str
    module: str
    name: LocalizedV | None
    parent: str | None
    physical: bool
    copies: int
    size: str | None
    attrs: dict[str, AttrDef]
    span: Span


@dataclass(frozen=True, slots=True)
class Module:
    """The game's own content (`id == "base"`) or one expansion of it."""

    game: str
    id: str
    name: LocalizedV | None
    languages: tuple[str, ...]
    requires: tuple[str, ...]
    text: LocalizedV | None
    source: str | None
    span: Span

    @property
    def key(self) -> str:
        return self.game if self.id == "base" else f"{self.game}.{self.id}"


@dataclass(frozen=True, slots=True)
class Game:
    id: str
    name: LocalizedV | None
    languages: tuple[str, ...]
    publish: tuple[str, ...]
    fallback: str
    span: Span


# ---- effects ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Invocation:
    """One use of a catalogue verb, its arguments bound to the catalogue's parameter names."""

    verb: str
    role: str  # trigger | condition | modifier | action
    args: tuple[tuple[str, Value], ...]
    span: Span

    def arg(self, name: str) -> Value | None:
        for key, value in self.args:
            if key == name:
                return value
        return None


@dataclass(frozen=True, slots=True)
class NotCond:
    cond: Condition
    span: Span


@dataclass(frozen=True, slots=True)
class AndCond:
    left: Condition
    right: Condition
    span: Span


@dataclass(frozen=True, slots=True)
class OrCond:
    left: Condition
    right: Condition
    span: Span


Condition = Invocation | NotCond | AndCond | OrCond


@dataclass(frozen=True, slots=True)
class Do:
    call: Invocation
    span: Span


@dataclass(frozen=True, slots=True)
class May:
    call: Invocation
    span: Span


@dataclass(frozen=True, slots=True)
class Option:
    name: str
    body: tuple[Statement, ...]
    span: Span
    guard: Condition | None = None  # offered only while it holds (procedures only)


@dataclass(frozen=True, slots=True)
class Choose:
    options: tuple[Option, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class If:
    cond: Condition
    then: tuple[Statement, ...]
    orelse: tuple[Statement, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class Fire:
    """`fire TRIGGER`: every effect listening to the trigger runs (procedures only)."""

    trigger: Invocation
    span: Span


@dataclass(frozen=True, slots=True)
class Repeat:
    count: int
    body: tuple[Statement, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class While:
    cond: Condition
    body: tuple[Statement, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class ForEach:
    """The body once per member of `what` (see FOR_EACH), each member acting in turn."""

    what: str
    body: tuple[Statement, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class Run:
    """A call of another procedure of the game."""

    procedure: str
    span: Span


Statement = Do | May | Choose | If | Fire | Repeat | While | ForEach | Run

# What `for each X` may walk over: who acts in each pass of the body.
FOR_EACH = {
    "player": "every player in turn order, starting with the one whose turn it is",
    "opponent": "every other player in turn order",
    "other_here": "every other player on the tile of the one acting now, in turn order",
    "side": "each side of the fight in progress (the attacker first)",
}


@dataclass(frozen=True, slots=True)
class Effect:
    """`on TRIGGER [if COND] { ... }` of one entity; `index` counts from 1 within it."""

    index: int
    trigger: Invocation
    condition: Condition | None
    body: tuple[Statement, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class Procedure:
    """`procedure NAME { ... }` of a game module; a later module's procedure of the same name replaces it."""

    name: str
    game: str
    module: str
    body: tuple[Statement, ...]
    span: Span
    provisional: tuple[tuple[str, str], ...] = ()  # (verb(param), note)


@dataclass(frozen=True, slots=True)
class EndRule:
    """`end when COND`: checked after every step of the procedure `turn` and after each turn."""

    game: str
    module: str
    cond: Condition
    span: Span
    provisional: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class WinnerRule:
    """`winner by ACTION`: run once the game has ended, to name the winner."""

    game: str
    module: str
    call: Invocation
    span: Span
    provisional: tuple[tuple[str, str], ...] = ()


# ---- entities ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Entity:
    kind: str
    kinds: tuple[str, ...]  # the kind and its ancestors, nearest first
    id: str
    game: str
    module: str
    name: LocalizedV
    text: LocalizedV | None
    copies: int | None
    tags: tuple[str, ...]
    source: str | None
    variant: str | None
    parent: str | None
    errata: bool
    attrs: dict[str, Value]
    effects: tuple[Effect, ...]
    provisional: tuple[tuple[str, str], ...]  # (attribute path, note)
    span: Span

    @property
    def key(self) -> str:
        """Unique across the game: errata share the id of the entity they replace."""
        return f"{self.module}:{self.id}" if self.errata else self.id

    def is_a(self, kind: str) -> bool:
        return kind in self.kinds


@dataclass(frozen=True, slots=True)
class Project:
    root: Path
    games: dict[str, Game]
    modules: dict[str, Module]
    kinds: dict[tuple[str, str], KindDef]
    entities: tuple[Entity, ...]
    sources: dict[str, str] = field(default_factory=dict)
    # display path of a source file (as diagnostics show it, relative to the cwd) -> its path relative to the
    # content folder, which is what outputs embed: a build gives the same bytes from whatever folder it ran in.
    source_names: dict[str, str] = field(default_factory=dict)
    procedures: tuple[Procedure | EndRule | WinnerRule, ...] = ()
    # (game, id) -> the original (non-errata) entity; built once, since backends look ids up per mention.
    _by_id: dict[tuple[str, str], Entity] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for e in self.entities:
            if not e.errata:
                self._by_id.setdefault((e.game, e.id), e)

    def source_name(self, file: str) -> str:
        """A source file as outputs name it: relative to the content folder, not to where the build ran."""
        return self.source_names.get(file, file)

    def entities_of(self, game: str) -> list[Entity]:
        return [e for e in self.entities if e.game == game]

    def physical_entities(self, game: str) -> list[Entity]:
        """Pieces in the box (what print and export draw): entities of physical kinds with at least one copy,
        in declaration order."""
        out = []
        for e in self.entities_of(game):
            kd = self.kinds.get((game, e.kind))
            if kd is not None and kd.physical and (e.copies or 0) > 0:
                out.append(e)
        return out

    def procedures_of(self, game: str) -> list[Procedure | EndRule | WinnerRule]:
        return [p for p in self.procedures if p.game == game]

    def modules_of(self, game: str) -> list[Module]:
        return [m for m in self.modules.values() if m.game == game]

    def kinds_of(self, game: str) -> list[KindDef]:
        return [k for (g, _), k in self.kinds.items() if g == game]

    def entity(self, game: str, ident: str) -> Entity | None:
        return self._by_id.get((game, ident))


pickle_by_constructor(globals())  # the disk cache loads parse trees and diagnostics: see cardc.records
