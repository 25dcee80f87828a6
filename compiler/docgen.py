"""The generated parts of dsl/README.md: the effect catalogue and the diagnostic codes as tables.

`cardc docs` rewrites the text between `<!-- BEGIN GENERATED: NAME -->` and `<!-- END GENERATED: NAME -->`
markers, so the README never disagrees with dsl/catalogue.yaml or `compiler.diagnostics.CODES`;
`cardc docs --check` (and a test) fails when the committed README is not current.
"""

from __future__ import annotations

import re
from functools import partial
from pathlib import Path

from cardc.catalogue import ROLES, Catalogue, Verb, default_catalogue
from cardc.diagnostics import CODES
from cardc.resources import DSL_DIR

README = DSL_DIR / "README.md"
_SECTION_TITLES = {"trigger": "Triggers (after `on`)", "condition": "Conditions (after `if`)",
                   "modifier": "Modifiers (in a rule's body)", "action": "Actions (in a rule's body, also after `may`)"}


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _params(verb: Verb) -> str:
    if not verb.params:
        return ""
    parts = []
    for p in verb.params:
        default = "" if p.required else f" = {str(p.default).lower() if isinstance(p.default, bool) else p.default}"
        parts.append(f"`{p.name}: {p.type}{default}`")
    return ", ".join(parts)


def _example(verb: Verb) -> str:
    if verb.role == "trigger":
        return f"`on {verb.name}{'(...)' if verb.params else ''} {{ ... }}`"
    args = ", ".join(f"{p.name}: ..." if i else "..." for i, p in enumerate(verb.params) if p.required)
    call = f"{verb.name}({args})" if verb.params else verb.name
    return f"`{'if ' if verb.role == 'condition' else ''}{call}`"


def catalogue_tables(catalogue: Catalogue) -> str:
    """One table per role: every verb with its parameters and what it does."""
    out: list[str] = []
    for role in ROLES:
        verbs = sorted(catalogue.of_role(role), key=lambda v: v.name)
        out.append(f"#### {_SECTION_TITLES[role]}: {len(verbs)}\n")
        out.append("| verb | parameters | written | what it does |")
        out.append("|---|---|---|---|")
        for v in verbs:
            doc = v.doc + (f" *Not simulated (descriptive): {v.descriptive}*" if v.descriptive else "")
            out.append(f"| `{v.name}` | {_params(v)} | {_example(v)} | {_cell(doc)} |")
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def codes_table() -> str:
    """Every diagnostic code and what it means."""
    rows = ["| code | severity | meaning |", "|---|---|---|"]
    for code, meaning in sorted(CODES.items()):
        severity = "warning (error under `--strict`)" if code == "W500" else \
            ("warning" if code.startswith("W") else "error")
        rows.append(f"| `{code}` | {severity} | {_cell(meaning)} |")
    return "\n".join(rows) + "\n"


def sections(catalogue: Catalogue | None = None) -> dict[str, str]:
    return {"catalogue": catalogue_tables(catalogue or default_catalogue()), "codes": codes_table()}


def _fill(body: str, m: re.Match[str]) -> str:
    return f"{m.group(1)}\n{body}\n{m.group(2)}"


def render(text: str, catalogue: Catalogue | None = None) -> str:
    """`text` with every generated section replaced by its current content."""
    for name, body in sections(catalogue).items():
        pattern = re.compile(rf"(<!-- BEGIN GENERATED: {name} [^>]*-->\n).*?(<!-- END GENERATED: {name} -->)",
                             re.DOTALL)
        if not pattern.search(text):
            raise ValueError(f"dsl/README.md has no generated section `{name}`")
        text = pattern.sub(partial(_fill, body), text)
    return text


def update(path: Path = README, check: bool = False) -> bool:
    """Regenerate the README's generated sections; return True if the file was (or, with `check`,
    would be) changed."""
    old = path.read_text(encoding="utf-8")
    new = render(old)
    if new != old and not check:
        path.write_text(new, encoding="utf-8")
    return new != old
