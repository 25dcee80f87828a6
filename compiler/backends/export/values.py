"""Typed JSON for IR values, as the published export format spells them.

Every value is an object with a `type`, so a consumer never has to guess whether `3` was an int, a
modifier or a guessed number: provisional and unknown values are their own types and carry their note.
Bare names become references (`ref`, with the entity's id and kind) when they name an entity of the
game and the declared type allows it; otherwise enum values (`enum`) or plain identifiers (`name`).
"""

from __future__ import annotations

from typing import Any

from cardc import syntax as s
from cardc.model import Entity, TypeExpr


class Localizer:
    """Texts in every exported language, the game's fallback applied and flagged."""

    def __init__(self, langs: tuple[str, ...], fallback: str) -> None:
        self.langs = langs
        self.fallback = fallback

    def pick(self, v: s.LocalizedV, lang: str) -> tuple[str, str] | None:
        """The text for `lang` and the language it was actually written in."""
        for want in (lang, self.fallback):
            text = v.get(want)
            if text is not None:
                return text, want
        if v.entries:
            return v.entries[0].text, v.entries[0].lang
        return None

    def localized(self, v: s.LocalizedV | None) -> dict[str, Any] | None:
        if v is None:
            return None
        out: dict[str, Any] = {}
        for lang in self.langs:
            got = self.pick(v, lang)
            if got is not None:
                out[lang] = {"text": got[0], "lang": got[1], "fallback": got[1] != lang}
        return out


class ValueEncoder:
    """Encodes values of one game; `by_id` resolves bare names to the entities they reference."""

    def __init__(self, by_id: dict[str, Entity], loc: Localizer) -> None:
        self.by_id = by_id
        self.loc = loc

    def encode(self, v: s.Value, t: TypeExpr | None = None) -> dict[str, Any]:
        match v:
            case s.IntV(value=n):
                return {"type": "int", "value": n}
            case s.SignedV(value=n):
                return {"type": "modifier", "value": n}
            case s.DecimalV(value=q, text=text):
                return {"type": "number", "value": float(q), "text": text}
            case s.RangeV(lo=lo, hi=hi):
                return {"type": "range", "min": lo, "max": hi}
            case s.DiceV(count=c, sides=d):
                return {"type": "dice", "count": c, "sides": d}
            case s.StrV(value=text):
                return {"type": "string", "value": text}
            case s.IconV(name=n):
                return {"type": "icon", "name": n}
            case s.BoolV(value=b):
                return {"type": "bool", "value": b}
            case s.LocalizedV():
                return {"type": "text", "value": self.loc.localized(v)}
            case s.ListV(items=items):
                inner = t.args[0] if t is not None and t.name == "list" and t.args else None
                return {"type": "list", "items": [self.encode(i, inner if isinstance(inner, TypeExpr) else None)
                                                  for i in items]}
            case s.CallV(name=n, args=None):
                return self.name(n, t)
            case s.CallV(name=n, args=args):
                return {"type": "call", "verb": n,
                        "args": [{"name": a.name, "value": self.encode(a.value)} for a in args or ()]}
            case s.UnknownV(note=note):
                return {"type": "unknown", "note": note or "value not known yet"}
            case s.ProvisionalV(value=inner, note=note):
                return {"type": "provisional", "value": self.encode(inner, t), "note": note}
        raise TypeError(f"no export encoding for {type(v).__name__}")  # pragma: no cover - all IR values above

    def name(self, n: str, t: TypeExpr | None) -> dict[str, Any]:
        if t is not None and t.name == "enum":
            return {"type": "enum", "value": n}
        ref = self.by_id.get(n)
        if ref is not None and (t is None or t.name in ("ref", "any")):
            return {"type": "ref", "id": ref.id, "kind": ref.kind}
        return {"type": "name", "value": n}


def type_tree(t: TypeExpr | str) -> dict[str, Any]:
    """A type as data: `{"name": "list", "args": [{"name": "ref", "args": [...]}]}`."""
    if isinstance(t, str):
        return {"name": t, "args": []}
    return {"name": t.name, "args": [type_tree(a) for a in t.args]}
