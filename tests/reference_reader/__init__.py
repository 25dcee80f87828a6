"""A reference reader of the engine-neutral export: it plays a game from `export/<game>.json` alone.

It stands in for another engine. The game's rules (entities, effects, procedures, the end and winner rules)
come only from the export document and are interpreted as data here; what it takes from `cardc_runtime` is
the game-neutral engine API another engine would reimplement: the verbs by name (`cardc_runtime.verbs`), the
table state they act on and the bots that decide. The turn loop is its own (`turns.py`, from the schema's
`procedures` description), not the runtime's `play_game`. It never reads `.cardc` source, the IR or the
generated rule modules. Every rule of interpretation below is one the export schema documents
(dsl/schemas/export.schema.json: `statement`, `call`, `choice points`, `verbs`).
"""

from __future__ import annotations

from .reader import ExportGame, play_from_export

__all__ = ["ExportGame", "play_from_export"]
