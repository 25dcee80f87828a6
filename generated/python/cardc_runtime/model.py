"""Game data as the generated packages declare it: entities, effects, and the ruleset that holds them."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from .context import Context


@dataclass(frozen=True, slots=True)
class Provisional:
    """A value the content marks as not confirmed; results built on it say so."""

    value: Any
    note: str


def plain(value: Any) -> Any:
    """The value without its provisional wrapper."""
    return value.value if isinstance(value, Provisional) else value


@dataclass(frozen=True, slots=True)
class EntityData:
    id: str
    kind: str
    kinds: tuple[str, ...]
    module: str
    name: dict[str, str]
    attrs: dict[str, Any] = field(default_factory=dict)
    parent: str | None = None
    variant: str | None = None
    tags: tuple[str, ...] = ()
    source: str | None = None
    copies: int | None = None  # how many of it the game has (physical components)

    def is_a(self, kind: str) -> bool:
        return kind in self.kinds

    def attr(self, name: str, default: Any = None) -> Any:
        value = self.attrs.get(name)  # (hot: same as `plain(attrs.get(name, default))`, None -> default)
        if value.__class__ is Provisional:
            value = value.value
        return default if value is None else value

    def provisional(self, name: str) -> str | None:
        """The note of a provisional attribute, None when the value is confirmed."""
        value = self.attrs.get(name)
        return value.note if isinstance(value, Provisional) else None

    def label(self, lang: str = "en") -> str:
        return self.name.get(lang) or next(iter(self.name.values()), self.id)


@dataclass(frozen=True, slots=True)
class EffectDef:
    """One generated effect: `run(ctx)` is the compiled body of `on TRIGGER [if COND] { ... }`."""

    owner: str
    index: int
    trigger: str
    trigger_args: tuple[tuple[str, Any], ...]
    run: Callable[[Context], None]
    module: str
    variant: str | None = None
    provisional: tuple[str, ...] = ()
    # each `choose` and `may` of the body: its point (`owner#index`...) and, per option, the verbs its branch
    # uses (what a player reads on the card before choosing; a `may` offers "False" and "True" (its verb);
    # `Ruleset.option_verbs`)
    choices: tuple[tuple[str, tuple[tuple[str, tuple[str, ...]], ...]], ...] = ()

    key: str = field(init=False, repr=False, compare=False)  # "owner#index", named once (read per run)

    def __post_init__(self) -> None:
        object.__setattr__(self, "key", f"{self.owner}#{self.index}")

    def matches(self, trigger: str, event: dict[str, Any]) -> bool:
        if trigger != self.trigger:
            return False
        return all(name not in event or plain(event[name]) == plain(value) for name, value in self.trigger_args)


@dataclass(frozen=True, slots=True)
class ProcedureDef:
    """One generated procedure (`kind` procedure), `end when` test (`end`) or `winner by` action (`winner`)."""

    name: str
    run: Callable[[Context], Any]
    kind: str
    module: str


_BY_TRIGGER: Final = ("by trigger",)  # keys of the ruleset's own cache entries
_OWNERS_OF: Final = "owners of"


@dataclass
class Ruleset:
    """Every entity and effect of one game, as compiled: what the engine resolves rules through."""

    game: str
    entities: dict[str, EntityData] = field(default_factory=dict)
    effects: list[EffectDef] = field(default_factory=list)
    modules: tuple[str, ...] = ()
    procedures: dict[str, ProcedureDef] = field(default_factory=dict)
    end_rules: list[ProcedureDef] = field(default_factory=list)
    winner: ProcedureDef | None = None
    _cache: dict[Any, Any] = field(default_factory=dict, repr=False, compare=False)

    def add(self, entities: Iterable[EntityData], effects: Iterable[EffectDef], module: str,
            procedures: Iterable[ProcedureDef] = ()) -> None:
        """Add one module's content; an entity of a later module (errata) replaces the earlier one, and so
        does a procedure of the same name (an expansion changing how the game is played)."""
        for proc in procedures:
            if proc.kind == "procedure":
                self.procedures[proc.name] = proc
            elif proc.kind == "end":
                self.end_rules.append(proc)
            else:
                self.winner = proc
        entities = list(entities)
        ids = {e.id for e in entities}
        self._cache.clear()
        self.effects = [fx for fx in self.effects if fx.owner not in ids] + list(effects)
        for e in entities:
            old = self.entities.get(e.id)
            if old is not None and e.parent is None and old.parent is not None:
                e = replace(e, parent=old.parent)  # errata of a nested card stays where the card was
            self.entities[e.id] = e
        self.modules = (*self.modules, module)

    def entity(self, ident: str) -> EntityData:
        try:
            return self.entities[ident]
        except KeyError:
            raise KeyError(f"{self.game} has no entity {ident!r}") from None

    def get(self, ident: str) -> EntityData | None:
        return self.entities.get(ident)

    def of_kind(self, kind: str) -> list[EntityData]:
        return sorted((e for e in self.entities.values() if e.is_a(kind)), key=lambda e: e.id)

    def children(self, parent: str, kind: str | None = None) -> list[EntityData]:
        return [e for e in self.entities.values() if e.parent == parent and (kind is None or e.is_a(kind))]

    def effects_of(self, owners: Iterable[str], trigger: str, variants: frozenset[str],
                   event: dict[str, Any] | None = None) -> list[EffectDef]:
        """The effects of `trigger` owned by `owners` (in that order) that the variants switch on."""
        owners = tuple(owners)
        key = (owners, trigger, variants, tuple(sorted(event.items())) if event else ())
        try:
            return self._cache[key]  # type: ignore[no-any-return]
        except KeyError:
            pass
        except TypeError:
            return self._effects_of(owners, trigger, variants, event)
        found = self._cache[key] = self._effects_of(owners, trigger, variants, event)
        return found

    def _effects_of(self, owners: tuple[str, ...], trigger: str, variants: frozenset[str],
                    event: dict[str, Any] | None) -> list[EffectDef]:
        wanted = list(dict.fromkeys(owners))
        order = {o: i for i, o in enumerate(wanted)}
        found = [fx for fx in self.by_trigger().get(trigger, ())
                 if fx.owner in order and fx.matches(trigger, event or {})
                 and (fx.variant is None or fx.variant in variants)]
        return sorted(found, key=lambda fx: (order[fx.owner], fx.index))

    def by_trigger(self) -> dict[str, list[EffectDef]]:
        """The effects of each trigger, in declaration order."""
        try:
            return self._cache[_BY_TRIGGER]  # type: ignore[no-any-return]
        except KeyError:
            pass
        index: dict[str, list[EffectDef]] = {}
        for fx in self.effects:
            index.setdefault(fx.trigger, []).append(fx)
        self._cache[_BY_TRIGGER] = index
        return index

    def owners_of(self, trigger: str) -> frozenset[str]:
        """The entities that have an effect of `trigger` (whatever its arguments and variant)."""
        key = (_OWNERS_OF, trigger)
        try:
            return self._cache[key]  # type: ignore[no-any-return]
        except KeyError:
            pass
        found = self._cache[key] = frozenset(fx.owner for fx in self.by_trigger().get(trigger, ())
                                             if fx.owner in self.entities)
        return found

    def table(self, name: str) -> dict[Any, Any]:
        """A dict of answers kept with the ruleset under the string `name` (empty at first, and again after the
        cache is cleared): compiled, a string key is hashed once, where a tuple key is made and hashed per ask."""
        found: dict[Any, Any] | None = self._cache.get(name)
        if found is None:
            found = self._cache[name] = {}
        return found

    def memo(self, key: Any, compute: Callable[[], Any]) -> Any:
        """A value derived from the ruleset, computed once."""
        try:
            return self._cache[key]
        except KeyError:
            pass
        value = self._cache[key] = compute()
        return value

    def option_verbs(self, point: str) -> dict[str, tuple[str, ...]] | None:
        """The verbs each option of the effects' choice `point` (`owner#index`, without the chooser) uses, by
        option; None for a point that is no effect's `choose`."""
        table: dict[str, dict[str, tuple[str, ...]]] = self.memo("option verbs", lambda: {
            name: dict(options) for fx in self.effects for name, options in fx.choices})
        return table.get(point)

    def variant_ids(self) -> list[str]:
        return [e.id for e in self.of_kind("variant")]
