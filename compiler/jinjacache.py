"""Compiled Jinja2 templates kept in the process and in the on-disk cache (`diskcache`).

Compiling a template (Jinja's parser, code generator and Python's `compile`) costs 20-30 ms; the print backend
compiles about ten for the bundled content, each game in an environment of its own. The compiled code depends
only on the template's name, file and source, on the environment's options (fixed in the code that makes the
environment, so in `code_fingerprint`) and on the Jinja and Python versions, which is what the key holds: the
same template is compiled once per process whatever the game, and once per machine until it or cardc changes.
An entry is a Jinja bytecode string, checked by Jinja against the source's checksum when it is loaded.
"""

from __future__ import annotations

import jinja2
from jinja2.bccache import Bucket


class CompiledTemplates(jinja2.BytecodeCache):
    """A `bytecode_cache` for environments made with the same options by the same code (`namespace` names them)."""

    def __init__(self, namespace: str) -> None:
        self.namespace = namespace
        self.kept: dict[tuple[str, str], bytes] = {}

    def _disk_key(self, bucket: Bucket) -> str:
        from cardc import diskcache

        return diskcache.digest(diskcache.code_fingerprint(), jinja2.__version__, self.namespace, bucket.key,
                                bucket.checksum)

    def load_bytecode(self, bucket: Bucket) -> None:
        data = self.kept.get((bucket.key, bucket.checksum))
        if data is None:
            from cardc import diskcache

            stored = diskcache.load("jinja", self._disk_key(bucket))
            if not isinstance(stored, bytes):
                return
            data = self.kept[(bucket.key, bucket.checksum)] = stored
        bucket.bytecode_from_string(data)  # (Jinja drops it if its magic or checksum do not match)

    def dump_bytecode(self, bucket: Bucket) -> None:
        from cardc import diskcache

        data = bucket.bytecode_to_string()
        self.kept[(bucket.key, bucket.checksum)] = data
        diskcache.store("jinja", self._disk_key(bucket), data)
