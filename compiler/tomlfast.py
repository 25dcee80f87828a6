"""What `tomllib.loads` gives for the simplest `cardc.toml` files, without importing `tomllib`.

A first `cardc check` read `cardc.toml` (for `[limits]` and `[check]`) with `tomllib`, whose import (with
`datetime`, `string` and a dozen regular expressions) and parse were 1.4% of its time, for a file of a comment,
a table and a string. A text whose every line is blank, a comment, a `[table]` header or a `key = value` with a
bare key and a basic string without escapes, a decimal integer or a boolean, and that names no table or key
twice, is read here: the same dict `tomllib` gives. For any other text, including every one `tomllib` refuses,
`simple_loads` says None and the caller reads it with `tomllib`, which says what is wrong.
"""

from __future__ import annotations

import re
from typing import Any

# blank, a [table], or a key = "string" / true / false / integer (of 18 digits at most: well inside 64 bits);
# then a comment or not
_LINE = re.compile(r"[ \t]*(?:\[([A-Za-z0-9_-]+)\]|([A-Za-z0-9_-]+)[ \t]*=[ \t]*"
                   r"(?:\"([^\"\\\x00-\x1f\x7f]*)\"|(true|false)|(0|[1-9][0-9]{0,17})))?"
                   r"[ \t]*(?:#[^\x00-\x08\x0a-\x1f\x7f]*)?")


def simple_loads(text: str) -> dict[str, Any] | None:
    """What `tomllib.loads` gives for a text of the simple form above, or None for any other."""
    if "\r" in text:
        return None
    root: dict[str, Any] = {}
    table = root
    for line in text.split("\n"):
        m = _LINE.fullmatch(line)
        if m is None:
            return None
        header, key, string, boolean, integer = m.groups()
        if header is not None:
            if header in root:
                return None
            table = root[header] = {}
        elif key is not None:
            if key in table:
                return None
            table[key] = string if string is not None else boolean == "true" if boolean is not None \
                else int(integer)
    return root
