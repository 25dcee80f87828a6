"""Schema validation compiled to Python (fastjsonschema): the verdict of `schema.validate_ir`, several times faster.

`build` validates the IR the checker just produced, where errors are rare; this module answers only "is it
valid?". When it says no, `schema.validate_ir` runs and reports every error at its source, exactly as before.
The schemas are Draft 2020-12 but use only keywords that mean the same in Draft 7, which fastjsonschema compiles;
the one difference that matters, a `$ref` with sibling keywords (2020-12 applies both, Draft 7 only the `$ref`),
is removed by moving the `$ref` into an `allOf`. `tests/test_schema_fast.py` checks the verdicts agree.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable
from types import CodeType
from typing import Any
from urllib.parse import urljoin

Validate = Callable[[Any], Any]
_ANNOTATIONS = {"description", "title", "$comment", "examples", "default"}
_compiled: dict[str, Validate] = {}
_bundles: dict[str, Bundle] = {}


def _doc_name(uri: str) -> str:
    return uri.rstrip("/").rsplit("/", 1)[-1].split(".", 1)[0]


def _key(docs: list[dict[str, Any]]) -> str:
    return hashlib.sha256(json.dumps(docs, sort_keys=True).encode("utf-8")).hexdigest()


def bundle_of(docs: list[dict[str, Any]]) -> Bundle:
    """The bundle of these schemas, rewritten once per process."""
    key = _key(docs)
    if key not in _bundles:
        _bundles[key] = Bundle(docs, key)
    return _bundles[key]


class Bundle:
    """Schemas that refer to each other by `$id`, as Draft 7 definitions `<doc>__<name>` of one document, with
    every `$ref` rewritten to point there. `validator(uri, name)` compiles one definition (the document itself
    when `name` is empty) with just the definitions it reaches."""

    def __init__(self, docs: Iterable[dict[str, Any]], key: str | None = None) -> None:
        docs = list(docs)
        self.key = key or _key(docs)
        self.names = {d["$id"]: _doc_name(d["$id"]) for d in docs}
        self.defs: dict[str, Any] = {}
        self.refs: dict[str, set[str]] = {}
        for doc in docs:
            uri = doc["$id"]
            for name, sub in doc.get("$defs", {}).items():
                self._add(f"{self.names[uri]}__{name}", sub, uri)
            self._add(f"{self.names[uri]}__", doc, uri)

    def _add(self, name: str, node: Any, base: str) -> None:
        found: set[str] = set()
        self.defs[name] = self._rewrite(node, base, found)
        self.refs[name] = found

    def _target(self, ref: str, base: str) -> str:
        uri, _, frag = urljoin(base, ref).partition("#")
        if frag.startswith("/$defs/") and "/" not in frag[len("/$defs/"):]:
            return f"{self.names[uri]}__{frag[len('/$defs/'):]}"
        if frag in ("", "/"):
            return f"{self.names[uri]}__"
        raise ValueError(f"unsupported $ref {ref!r}")

    def _rewrite(self, node: Any, base: str, found: set[str]) -> Any:
        if isinstance(node, list):
            return [self._rewrite(x, base, found) for x in node]
        if not isinstance(node, dict):
            return node
        out = {k: (v if k in ("const", "enum") else self._rewrite(v, base, found)) for k, v in node.items()
               if k not in ("$id", "$schema", "$defs", "properties") and k not in _ANNOTATIONS}
        if "properties" in node:  # property names are data, not keywords: annotation-named ones stay
            out["properties"] = {k: self._rewrite(v, base, found) for k, v in node["properties"].items()}
        if isinstance(out.get("anyOf"), list):  # null first: a null value (most often) then matches without an error
            out["anyOf"] = sorted(out["anyOf"], key=lambda branch: branch != {"type": "null"})
        if "$ref" in out:
            target = self._target(out.pop("$ref"), base)
            found.add(target)
            ref = {"$ref": f"#/$defs/{target}"}
            out = ref if not out else {"allOf": [ref, out]}  # Draft 7 ignores the siblings of a $ref
        return out

    def schema(self, uri: str, name: str = "") -> dict[str, Any]:
        root = f"{self.names[uri]}__{name}"
        reach, todo = {root}, [root]
        while todo:
            for nxt in self.refs[todo.pop()] - reach:
                reach.add(nxt)
                todo.append(nxt)
        return {"$schema": "http://json-schema.org/draft-07/schema#", "$defs": {n: self.defs[n] for n in sorted(reach)},
                "allOf": [{"$ref": f"#/$defs/{root}"}]}

    def validator(self, uri: str, name: str = "") -> Validate:
        """The compiled validator of one definition, compiled once per process, its bytecode remembered in the
        disk cache (`cardc.diskcache`): generating and compiling the validators of a 10,000-card IR cost a
        third as much as running them."""
        key = f"{self.key}/{uri}#{name}"
        if key not in _compiled:
            namespace: dict[str, Any] = {}
            exec(self._code(uri, name), namespace)  # generated from the project's own schemas
            _compiled[key] = namespace["validate"]
        return _compiled[key]

    def _code(self, uri: str, name: str) -> CodeType:
        import marshal
        import sys

        import fastjsonschema
        from cardc import diskcache

        key = diskcache.digest("schemafast 2", fastjsonschema.VERSION, sys.version, self.key, uri, name)
        stored = diskcache.load("schema-code", key)
        if isinstance(stored, bytes):
            try:
                code = marshal.loads(stored)
            except (EOFError, ValueError, TypeError):
                code = None
            if isinstance(code, CodeType):
                return code
        text = verdict_only(fastjsonschema.compile_to_code(self.schema(uri, name)))
        code = compile(text, "<compiled schema>", "exec")
        diskcache.store("schema-code", key, marshal.dumps(code))
        return code


# One line of generated code that raises the error of a failed check, with its message, the instance's path and the
# failed schema (a dict literal, built again at each raise: a valid IR raises tens of thousands of them inside
# `anyOf` branches that did not match).
_RAISE = re.compile(r'^(\s*)raise JsonSchemaValueException\(.*\)$', re.M)
# A call of a definition's validator with the instance's path as its name (`(name_prefix or "data") + ".x[{i}]"
# .format(**locals())`: a string formatted from the frame's locals at every call, valid or not).
_NAMED_CALL = re.compile(r'(validate____defs_\w+\(\w+, custom_formats), \(name_prefix or "data"\) \+ "[^"\n]*"'
                         r'(?:\.format\(\*\*locals\(\)\))?\)')


def verdict_only(code: str) -> str:
    """fastjsonschema's generated `code` that raises the same exception type where it did, without the message, path
    or schema it built for it (this module asks only "valid?", `schema.validate_ir` reports the errors): 37% less time
    for a valid 10,000-card IR. (fastjsonschema's own `detailed_exceptions=False` fails to generate a `const`.)"""
    return _NAMED_CALL.sub(r"\1, None)", _RAISE.sub(r'\1raise JsonSchemaValueException("invalid")', code))


def is_valid(validate: Validate, data: Any) -> bool:
    import fastjsonschema

    try:
        validate(data)
    except fastjsonschema.JsonSchemaValueException:
        return False
    return True


def ir_is_valid(data: Any, fixed: dict[str, Any], effects: dict[str, Any], kinds: dict[str, Any],
                lean_fixed: dict[str, Any], invocations: list[list[dict[str, Any]]] | None = None) -> bool:
    """Whether one game's IR passes every schema: the structure (lean, as `schema.validate_ir` splits it), each
    entity against its kind, each invocation against its verb. `invocations`: each entity's invocation objects
    (`schema.invocation_nodes`), when the caller found them already."""
    # The structure without the verb's name checked against every known verb (a list of some 280 names, which the
    # compiled code searched for each invocation: a fifth of the time): the loop below asks each invocation's
    # verb for its own sub-schema, and an invocation whose verb has none fails there, as it fails the enum.
    lean_effects = {**effects, "$defs": {**effects["$defs"], "invocation": {}}}
    root = {**kinds, "$defs": {**kinds["$defs"], "entity": {"properties": kinds["$defs"]["entity"]["properties"]}}}
    if not is_valid(bundle_of([lean_fixed, lean_effects, root]).validator(root["$id"]), data):
        return False
    full = bundle_of([fixed, effects, kinds])

    def sub(doc: dict[str, Any], name: str) -> Validate | None:
        """The validator of sub-schema `name` of `doc`, None when it has no such sub-schema."""
        return full.validator(doc["$id"], name) if name in doc["$defs"] else None

    import fastjsonschema
    from cardc.schema import invocation_nodes

    # each kind's and verb's validator (None: no such sub-schema) by the name the IR gives (a string: the structure
    # passed), found once; one `try` for the whole loop (a valid IR raises nothing), not one call of `is_valid` per
    # entity and invocation
    by_kind: dict[Any, Validate | None] = {}
    by_verb: dict[Any, Validate | None] = {}
    entities = data.get("entities") or ()
    try:
        for i, ent in enumerate(entities):
            kind = ent.get("kind")
            if kind in by_kind:
                check = by_kind[kind]
            else:
                check = by_kind[kind] = sub(kinds, f"kind_{kind}")
            if check is not None:
                check(ent)
            for inv in invocations[i] if invocations is not None else invocation_nodes(ent.get("effects")):
                verb = inv.get("verb")
                if verb in by_verb:
                    check = by_verb[verb]
                else:
                    check = by_verb[verb] = sub(effects, f"verb_{verb}")
                if check is None:
                    return False
                check(inv)
    except fastjsonschema.JsonSchemaValueException:
        return False
    return True


__all__ = ["Bundle", "bundle_of", "ir_is_valid", "is_valid", "verdict_only"]
