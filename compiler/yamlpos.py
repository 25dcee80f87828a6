"""YAML read with the position of every value, so that a problem in a data file is reported at its line.

The document is composed once into nodes (which carry their marks) and built into plain data from them;
`YamlDoc.span(path)` finds the node at a JSON-Schema-style path (`["actions", "heal", "params", 0]`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import yaml
from cardc.diagnostics import Span

_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class YamlSyntaxError(Exception):
    """The text is not YAML; `span` is where the parser gave up."""

    def __init__(self, message: str, span: Span) -> None:
        super().__init__(message)
        self.message = message
        self.span = span


@dataclass(frozen=True)
class YamlDoc:
    file: str
    data: Any
    root: yaml.Node | None

    def span(self, path: Sequence[str | int], *, key: bool = True) -> Span:
        """Where the value at `path` is written (for a mapping entry: its key, when `key`); the deepest
        node that exists along the path when the rest is missing."""
        node = self.root
        at = node
        for part in path:
            if isinstance(node, yaml.MappingNode):
                for k, v in node.value:
                    if isinstance(k, yaml.ScalarNode) and k.value == str(part):
                        at, node = (k if key else v), v
                        break
                else:
                    break
            elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and 0 <= part < len(node.value):
                node = at = node.value[part]
            else:
                break
        if at is None:
            return Span(self.file, 1, 1)
        mark = at.start_mark
        end = at.end_mark if at.end_mark.line == mark.line else mark
        return Span(self.file, mark.line + 1, mark.column + 1, end.line + 1, end.column + 1)

    def duplicate_keys(self) -> list[tuple[str, Span]]:
        """Keys given twice in one mapping (YAML keeps the last silently): each later occurrence."""
        out: list[tuple[str, Span]] = []
        stack = [self.root]
        while stack:
            node = stack.pop()
            if isinstance(node, yaml.MappingNode):
                seen: set[str] = set()
                for k, v in node.value:
                    if isinstance(k, yaml.ScalarNode):
                        if k.value in seen:
                            m = k.start_mark
                            out.append((k.value, Span(self.file, m.line + 1, m.column + 1)))
                        seen.add(k.value)
                    stack.append(v)
            elif isinstance(node, yaml.SequenceNode):
                stack.extend(node.value)
        return sorted(out, key=lambda x: (x[1].line, x[1].col))


def load_yaml_doc(text: str, file: str) -> YamlDoc:
    """The document with positions; raises YamlSyntaxError for text that is not YAML."""
    loader = _LOADER(text)
    try:
        root = loader.get_single_node()
        data = loader.construct_document(root) if root is not None else None
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        span = Span(file, mark.line + 1, mark.column + 1) if mark is not None else Span(file, 1, 1)
        raise YamlSyntaxError(f"not valid YAML: {err.problem or err.context or 'malformed'}", span) from None
    except yaml.YAMLError as err:
        raise YamlSyntaxError(f"not valid YAML: {err}", Span(file, 1, 1)) from None
    finally:
        loader.dispose()
    return YamlDoc(file, data, root)
