"""YAML data files read with libyaml's C loader when PyYAML has it (about 10x faster than the pure-Python one)."""

from __future__ import annotations

from typing import Any


def load_yaml(text: str) -> Any:
    import yaml

    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # noqa: S506 - a safe loader
