"""cardc rules runtime: the engine that the generated rule packages run on (standard library only).

Emitted by the cardc compiler beside the generated game packages; copy it along with them.
"""

from __future__ import annotations

from .context import Context, Outcome
from .inputs import Choice, Inputs, NeedInput, Policy, Scripted, Seeded
from .model import EffectDef, EntityData, ProcedureDef, Provisional, Ruleset

__all__ = [
    "Choice",
    "Context",
    "EffectDef",
    "EntityData",
    "Inputs",
    "NeedInput",
    "Outcome",
    "Policy",
    "ProcedureDef",
    "Provisional",
    "Ruleset",
    "Scripted",
    "Seeded",
]
