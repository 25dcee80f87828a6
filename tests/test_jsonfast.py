"""orjson writes the IR and export files only where its text is json's byte for byte."""

from __future__ import annotations

import json
from typing import Any

from cardc.frontend import FrontEndResult
from cardc.irjson import dumps, entity_json, iter_project_json, project_json
from cardc.jsonfast import fast_dumps
from hypothesis import given
from hypothesis import strategies as st

_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.floats(min_value=-1e6, max_value=1e6).map(lambda f: round(f, 4)) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20)


@given(_JSON_VALUES, st.booleans())
def test_fast_json_is_json_byte_for_byte(value: Any, sort_keys: bool) -> None:
    fast = fast_dumps(value, sort_keys)
    assert fast is None or fast.decode("utf-8") == json.dumps(value, ensure_ascii=False, indent=2,
                                                              sort_keys=sort_keys) + "\n"


def test_the_bundled_ir_takes_the_fast_path_and_is_json_text(bundled: FrontEndResult) -> None:
    project = bundled.project
    for e in project.entities:
        data = entity_json(e, project.source_names)
        assert fast_dumps(data, sort_keys=False) is not None, e.key
    for game in sorted(project.games):
        assert "".join(iter_project_json(project, game)) == dumps(project_json(project, game))
    assert fast_dumps({"small": 0.00001}, sort_keys=False) is None and fast_dumps({1: 2}, sort_keys=False) is None
