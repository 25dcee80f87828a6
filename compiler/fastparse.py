"""The grammar's LALR(1) parser without Lark: Lark's own tables and lexers, read ahead into `dsl/frozen/parser.json`.

A first `cardc check` spent about a third of its time parsing: importing Lark (and with it logging, hashlib,
tempfile...), loading its cached tables, compiling the contextual lexer's regular expressions (one per set of
terminals a parser state accepts), then lexing and parsing. `python -m cardc.frozen` writes what Lark built from
`dsl/cardc.lark` as plain data: the parse table, every rule's tree-building steps (Lark's child filters and which
`cardc.astbuild` callback, or an inlined rule, ends them), and every state's lexer (its terminals in Lark's order,
the keywords it re-types from names, the terminals that may hold line breaks). `parse` runs the same steps as
`cardc.lalrdrive` over that data, so it builds the same tree and reports the same diagnostics:

- each token is matched by one regular expression of every terminal (Lark's root lexer, in Lark's order); a state
  whose lexer has the same alternatives in the same order, less some, takes that match when the matched terminal is
  one of its own: the alternatives before it in its lexer are among those that did not match. Any other state (one
  whose keywords Lark's root lexer leaves to names) or terminal is matched by that state's own expression, as Lark
  matches it (compiled when first needed);
- a token is made only where a rule keeps it or a lexer callback reads it (braces, keywords and commas are dropped
  by the child filters and never seen).

Only a text that parses cleanly goes through here. At the first thing Lark would report, or when the frozen data is
not from this grammar and these callbacks, `parse` returns None and the caller parses with Lark, which reports it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from operator import itemgetter
from typing import Any

from cardc.astbuild import AstBuilder, literal_limits
from cardc.diagnostics import DiagnosticSink

FROZEN_NAME = "parser"


class Unsupported(Exception):
    """This text is left to Lark."""


class Tok(str):
    """A token as the tree-building callbacks read it: its text, type and place (what Lark's `Token` gives them)."""

    __slots__ = ("type", "start_pos", "line", "column", "end_line", "end_column", "end_pos")
    type: str
    start_pos: int
    line: int
    column: int
    end_line: int
    end_column: int
    end_pos: int

    @property
    def value(self) -> str:
        return str(self)

    def update(self, type: str | None = None, value: str | None = None) -> Tok:  # noqa: A002 - Lark's names
        """This token with another type or text, at the same place (as Lark's `Token.update`)."""
        new = Tok(self if value is None else value)
        new.type = self.type if type is None else type
        new.start_pos, new.line, new.column = self.start_pos, self.line, self.column
        new.end_line, new.end_column, new.end_pos = self.end_line, self.end_column, self.end_pos
        return new


def _as_list(children: list[Any]) -> list[Any]:
    return children


# ---- the tree-building steps, as Lark's parse_tree_builder runs them --------------------------------------------
# An inlined rule's value is the list of its children (Lark: a Tree whose `.children` the parent splices in).

def _expand_single(f: Callable[[list[Any]], Any]) -> Callable[[list[Any]], Any]:
    def expand(children: list[Any]) -> Any:
        return children[0] if len(children) == 1 else f(children)
    return expand


def _filter(to_include: list[tuple[int, bool, int]], append_none: int,
            f: Callable[[list[Any]], Any]) -> Callable[[list[Any]], Any]:
    """Lark's ChildFilterLALR (placeholders: `None` for an optional part that is absent)."""
    steps = [(i, bool(expand), add) for i, expand, add in to_include]
    if not any(expand for _, expand, _ in steps):  # only picks and placeholders: one list display
        picks: list[int | None] = []
        for i, _, add_none in steps:
            picks += [None] * add_none
            picks.append(i)
        picks += [None] * append_none
        return _picker(picks, f)

    def child_filter(children: list[Any]) -> Any:
        filtered: list[Any] = []
        for i, to_expand, add_none in steps:
            if add_none:
                filtered += [None] * add_none
            if to_expand:
                if filtered:
                    filtered += children[i]
                else:
                    filtered = children[i]
            else:
                filtered.append(children[i])
        if append_none:
            filtered += [None] * append_none
        return f(filtered)
    return child_filter


def _filter_no_placeholders(to_include: list[tuple[int, bool]],
                            f: Callable[[list[Any]], Any]) -> Callable[[list[Any]], Any]:
    """Lark's ChildFilterLALR_NoPlaceholders."""
    steps = [(i, bool(expand)) for i, expand in to_include]
    if not any(expand for _, expand in steps):
        return _picker([i for i, _ in steps], f)
    if steps[0][1] and not any(expand for _, expand in steps[1:]):  # a list grown by one rule, or passed on
        first, rest = steps[0][0], [i for i, _ in steps[1:]]
        if f is _as_list and len(rest) == 1:
            second = rest[0]

            def append_one(children: list[Any]) -> Any:
                filtered = children[first]
                filtered.append(children[second])
                return filtered
            return append_one
        if f is _as_list and not rest:
            return lambda children: children[first]
        if not rest:
            return lambda children: f(children[first])
    if steps == [(0, True), (1, True)] and f is _as_list:  # two inlined lists joined

        def join(children: list[Any]) -> Any:
            filtered = children[0]
            filtered += children[1]
            return filtered
        return join

    def child_filter(children: list[Any]) -> Any:
        filtered: list[Any] = []
        for i, to_expand in steps:
            if to_expand:
                if filtered:
                    filtered += children[i]
                else:
                    filtered = children[i]
            else:
                filtered.append(children[i])
        return f(filtered)
    return child_filter


def _picker(picks: list[int | None], f: Callable[[list[Any]], Any]) -> Callable[[list[Any]], Any]:
    """`f` of the list of the children at `picks` (None: a placeholder), in that order: the common shapes as one
    list display each, no loop."""
    flat = f is _as_list
    if len(picks) == 1:
        if picks[0] is None:
            return (lambda children: [None]) if flat else (lambda children: f([None]))
        only: int = picks[0]
        return (lambda children: [children[only]]) if flat else (lambda children: f([children[only]]))
    if len(picks) == 2:
        a, b = picks
        if a is None and b is not None:
            return (lambda children: [None, children[b]]) if flat else (lambda children: f([None, children[b]]))
        if b is None and a is not None:
            return (lambda children: [children[a], None]) if flat else (lambda children: f([children[a], None]))
        if a is not None and b is not None:
            return ((lambda children: [children[a], children[b]]) if flat
                    else (lambda children: f([children[a], children[b]])))
    if None in picks or not picks:
        return lambda children: f([None if i is None else children[i] for i in picks])
    get = itemgetter(*picks)  # several: a tuple
    return lambda children: f(list(get(children)))


# how a rule's reduction makes its value from the popped children
_CALL = 0  # its callback, called with the children's list
_LIST = 1  # the children's list itself (a rule the parent inlines, with nothing to filter)
_ONE = 2  # its only child (a `?rule` of one symbol: Lark's ExpandSingleChild passes it up)


def _callback(plan: dict[str, Any], builder: AstBuilder) -> tuple[int, Callable[[list[Any]], Any] | None]:
    chain = plan["chain"]
    if chain == [["expand1"]] and plan["size"] == 1:
        return _ONE, None
    if not plan["method"] and not chain:
        return _LIST, None
    f: Callable[[list[Any]], Any] = getattr(builder, plan["method"]) if plan["method"] else _as_list
    for step in reversed(chain):  # innermost first
        if step[0] == "expand1":
            f = _expand_single(f)
        elif step[0] == "filter":
            f = _filter([tuple(x) for x in step[1]], step[2], f)
        else:
            f = _filter_no_placeholders([tuple(x) for x in step[1]], f)
    return _CALL, f


# ---- the frozen tables ----------------------------------------------------------------------------------------

def _builder_names() -> list[str]:
    """The callbacks `AstBuilder` offers: a rule's step ends in one of them, or in an inlined rule, by name."""
    return sorted(n for n in dir(AstBuilder) if not n.startswith("_"))


def _made_from() -> tuple[str, ...]:
    from cardc.parser import GRAMMAR_PATH

    return GRAMMAR_PATH.read_text(encoding="utf-8"), "\n".join(_builder_names())


class _Lexer:
    """One parser state's lexer: its own expression (compiled when first needed), the terminals it tries, whether
    the root expression's match can be taken for it, the keywords it gives names, the callbacks it runs."""

    __slots__ = ("pattern", "own", "checks", "keywords", "callbacks", "fast")

    def __init__(self, data: dict[str, Any], callbacks: dict[str, Callable[[Any], Any]], kept: frozenset[str],
                 newline: frozenset[str], ignore: frozenset[str]) -> None:
        self.pattern: str = data["pattern"]
        self.own: re.Pattern[str] | None = None
        # terminal -> the keywords to rule out before taking the root expression's match of it (see `freeze_parser`)
        self.checks: dict[str, tuple[str, ...]] = {t: tuple(words) for t, words in data["checks"].items()}
        self.keywords: dict[str, dict[str, str]] = data["keywords"]  # terminal -> text -> keyword's terminal
        self.callbacks = {t: callbacks[t] for t in data["callbacks"]}
        # terminal the root expression matched -> what the loop needs of it, in one look-up: the keywords to rule
        # out, the keywords it becomes, its callback, whether a rule keeps it, whether it counts line breaks
        self.fast: dict[str | None, tuple[tuple[str, ...], dict[str, str] | None, Callable[[Any], Any] | None,
                                          bool, bool]] = {
            t: (words, self.keywords.get(t), self.callbacks.get(t), t in kept, t in newline)
            for t, words in self.checks.items() if t not in ignore}

    def own_match(self, text: str, pos: int) -> re.Match[str] | None:
        if self.own is None:
            self.own = re.compile(self.pattern)
        return self.own.match(text, pos)


class _Tables:
    def __init__(self, data: dict[str, Any]) -> None:
        self.builder = AstBuilder()
        self.limits = literal_limits(self.builder)
        # (the rule's name, how many symbols it pops, how it makes its value (`_CALL`...), its callback)
        self.rules = [(plan["origin"], plan["size"], *_callback(plan, self.builder)) for plan in data["rules"]]
        # state -> symbol -> a shift (or a goto) to state n >= 0, or a reduction by rule ~n (n < 0)
        self.actions: list[dict[str, int]] = [
            {sym: arg if shift else ~arg for sym, (shift, arg) in actions.items()} for actions in data["states"]]
        self.start: int = data["start"]
        self.end: int = data["end"]
        self.skip = re.compile(data["skip"])
        self.root = re.compile(data["skip"] + "(?:" + data["root"] + ")")
        self.ignore = frozenset(data["ignore"])
        self.newline = frozenset(data["newline"])
        self.kept = frozenset(data["kept"])
        lexers = [_Lexer(lexer, self.limits, self.kept, self.newline, self.ignore) for lexer in data["lexers"]]
        self.lexer_of: list[_Lexer] = [lexers[i] for i in data["lexer_of"]]
        # state -> the root expression's group number -> (the terminal, then its `_Lexer.fast` entry), or None
        group = self.root.groupindex
        by_group: dict[int, list[Any]] = {}
        for lexer in lexers:
            plans: list[Any] = [None] * (self.root.groups + 1)
            for t, plan in lexer.fast.items():
                plans[group[t]] = (t, *plan)  # type: ignore[index]
            by_group[id(lexer)] = plans
        self.fast_of = [by_group[id(lexer)] for lexer in self.lexer_of]


@lru_cache(maxsize=1)
def _tables() -> _Tables | None:
    from cardc import frozen

    data = frozen.load(FROZEN_NAME, *_made_from())
    return _Tables(data) if isinstance(data, dict) else None


def parse(text: str, file: str, sink: DiagnosticSink) -> tuple[list[Any], bool] | None:
    """The file's items (and whether they nest too deep: E106 reported) as Lark's parse gives them; None when the
    text is left to Lark (a syntax error, or no current frozen tables). What the callbacks report goes to `sink`
    only when the parse got to the end."""
    tables = _tables()
    if tables is None:
        return None
    own = DiagnosticSink()
    tables.builder.reset(file, own)
    try:
        items = _run(tables, text)
    except (Unsupported, KeyError, IndexError, AttributeError, TypeError):  # left to Lark, which says what is wrong
        return None
    sink.items.extend(own.items)
    tables.builder.sink = sink
    return items, tables.builder.too_deep


def _run(tables: _Tables, text: str) -> list[Any]:
    """Lex and parse `text` (see the module's docstring); raises Unsupported where Lark would report an error.

    Lines are counted by walking `nl`, the next line break not yet counted, forward to each token (one comparison
    per token, one `find` per line); a token of a terminal Lark does not count line breaks in moves it on
    without counting."""
    actions, rules, lexer_of, fast_of, root, skip = (tables.actions, tables.rules, tables.lexer_of, tables.fast_of,
                                                     tables.root, tables.skip)
    ignore, newline, kept = tables.ignore, tables.newline, tables.kept
    state = tables.start
    state_stack: list[int] = [state]
    value_stack: list[Any] = []
    pos, line, line_start, size = 0, 1, 0, len(text)
    nl = text.find("\n")
    if nl < 0:
        nl = size
    m: Any
    type_: Any
    keywords: Any
    callback: Any
    reduce: Any
    while pos < size:
        m = root.match(text, pos)  # what the lexer skips (whitespace, comments), then a token
        if m is None:
            pos = skip.match(text, pos).end()  # type: ignore[union-attr]  # it matches the empty text
            if pos == size:
                break
            plan = None
        else:
            group = m.lastindex  # the token's group: it closes after any group of the skipped text
            pos, end = m.span(group)
            plan = fast_of[state][group]
        while nl < pos:  # the line breaks of what was skipped (every skipped terminal may hold them)
            line += 1
            line_start = nl + 1
            nl = text.find("\n", line_start)
            if nl < 0:
                nl = size
        if plan is not None and not (plan[1] and text.startswith(plan[1], pos)):
            type_, _, keywords, callback, keep, breaks = plan
        else:  # this state's own lexer
            lexer = lexer_of[state]
            m = lexer.own_match(text, pos)
            if m is None:
                raise Unsupported("no terminal matches here")
            type_ = m.lastgroup
            end = m.end(type_)
            breaks = type_ in newline
            if type_ in ignore:  # only a state's own lexer gives one here
                if not breaks and nl < end:  # (never: `freeze_parser` checks the ignored terminals)
                    raise Unsupported("an ignored terminal without line breaks")
                pos = end
                continue
            keywords, callback, keep = lexer.keywords.get(type_), lexer.callbacks.get(type_), type_ in kept
        column, token_line = pos - line_start + 1, line
        if nl < end:  # the token holds a line break
            if breaks:
                while nl < end:
                    line += 1
                    line_start = nl + 1
                    nl = text.find("\n", line_start)
                    if nl < 0:
                        nl = size
            else:  # Lark counts none in this terminal: passed over
                nl = text.find("\n", end)
                if nl < 0:
                    nl = size
        value = text[pos:end]
        if keywords is not None:
            keyword = keywords.get(value)
            if keyword is not None:
                type_ = keyword
                callback, keep = lexer_of[state].callbacks.get(type_), type_ in kept
        if keep or callback is not None:
            token: Any = Tok(value)
            token.type = type_
            token.start_pos = pos
            token.line = token_line
            token.column = column
            token.end_line = line
            token.end_column = end - line_start + 1
            token.end_pos = end
            if callback is not None:
                token = callback(token)
                type_ = token.type
        else:
            token = None
        pos = end
        while True:  # ParserState.feed_token
            action = actions[state][type_]
            if action >= 0:
                state = action
                state_stack.append(state)
                value_stack.append(token)
                break
            origin, n, kind, reduce = rules[~action]  # (as `_reduce`, here without a call)
            if n == 1:
                if not kind:  # _CALL
                    value_stack[-1] = reduce(value_stack[-1:])
                elif kind == _LIST:
                    value_stack[-1] = [value_stack[-1]]
                state = actions[state_stack[-2]][origin]
                state_stack[-1] = state
            elif n:
                children = value_stack[-n:]
                del state_stack[-n:]
                del value_stack[-n:]
                value_stack.append(children if kind else reduce(children))
                state = actions[state_stack[-1]][origin]
                state_stack.append(state)
            else:
                value_stack.append([] if kind else reduce([]))
                state = actions[state][origin]
                state_stack.append(state)
    while True:  # the end of the text
        action = actions[state]["$END"]
        if action >= 0:
            raise Unsupported("the end of the text shifted")
        state = _reduce(actions, rules[~action], state_stack, value_stack)
        if state == tables.end:
            return value_stack[-1]  # type: ignore[no-any-return]


def _reduce(actions: list[dict[str, int]], rule: tuple[str, int, int, Callable[[list[Any]], Any] | None],
            state_stack: list[int], value_stack: list[Any]) -> int:
    """Reduce by `rule`: pop its symbols, push its value and the state its goto leads to (returned)."""
    origin, n, kind, reduce = rule
    if n:
        children = value_stack[-n:]
        del state_stack[-n:]
        del value_stack[-n:]
    else:
        children = []
    value_stack.append(children[0] if kind == _ONE else children if kind == _LIST else reduce(children))  # type: ignore[misc]
    state = actions[state_stack[-1]][origin]
    state_stack.append(state)
    return state


# ---- reading the tables ahead (with Lark) ---------------------------------------------------------------------

def freeze_parser() -> str:
    """The frozen tables, as `python -m cardc.frozen` writes them: read from the Lark parser `cardc.parser` builds."""
    from cardc import frozen
    from cardc.parser import _parser
    from lark.grammar import Rule
    from lark.lexer import ContextualLexer, PatternStr
    from lark.parse_tree_builder import ChildFilterLALR, ChildFilterLALR_NoPlaceholders, ExpandSingleChild
    from lark.parsers.lalr_analysis import Shift

    lark, transformer = _parser()
    frontend = lark.parser
    contextual = frontend.lexer
    if type(contextual) is not ContextualLexer or len(frontend.parser_conf.start) != 1:
        raise ValueError("the grammar must have one start rule and Lark's contextual lexer")
    parser = frontend.parser.parser
    table, callbacks = parser.parse_table, parser.callbacks
    start = frontend.parser_conf.start[0]
    if any(not isinstance(k, Rule) for k in callbacks):
        raise ValueError("terminal callbacks in the transformer are not supported")

    rules: list[Rule] = []
    index: dict[Rule, int] = {}
    plans: list[dict[str, Any]] = []
    kept: set[str] = set()
    for rule, f in callbacks.items():
        chain: list[Any] = []
        included: set[int] | None = None
        while True:
            if isinstance(f, ExpandSingleChild):
                chain.append(["expand1"])
            elif isinstance(f, ChildFilterLALR):
                chain.append(["filter", [list(x) for x in f.to_include], f.append_none])
                included = {x[0] for x in f.to_include}
            elif isinstance(f, ChildFilterLALR_NoPlaceholders):
                chain.append(["filter_np", [list(x) for x in f.to_include]])
                included = {x[0] for x in f.to_include}
            else:
                break
            f = f.node_builder
        name = rule.alias or rule.options.template_source or rule.origin.name
        method = getattr(f, "__func__", None)
        if method is not None and getattr(AstBuilder, name, None) is method:
            builder = name
        elif getattr(f, "func", None) is not None and getattr(f, "args", None) == (name,) \
                and not hasattr(AstBuilder, name) and (rule.origin.name.startswith("_") or (
                    chain[:1] == [["expand1"]] and len(rule.expansion) == 1)):
            builder = ""  # a Tree Lark makes only for the parent to inline (or never: one child, passed up)
        else:
            raise ValueError(f"rule {rule}: a tree-building step this reader does not know: {f!r}")
        for i, sym in enumerate(rule.expansion):
            if sym.is_term and (included is None or i in included):
                kept.add(sym.name)
        index[rule] = len(rules)
        rules.append(rule)
        plans.append({"origin": rule.origin.name, "size": len(rule.expansion), "method": builder, "chain": chain})

    states: list[dict[str, list[Any]]] = []
    for state in range(len(table.states)):
        actions = table.states[state]
        states.append({sym: [True, arg] if action is Shift else [False, index[arg]]  # sorted: Lark's order varies
                       for sym, (action, arg) in sorted(actions.items())})
    if sorted(table.states) != list(range(len(table.states))):
        raise ValueError("parser states are not numbered 0..n-1")

    def scanner(lexer: Any) -> tuple[list[str], dict[str, dict[str, str]], set[str]]:
        """The lexer's alternatives in order, its keyword re-typing, and the user callbacks it runs."""
        sc = lexer.scanner
        names = [t.name for t in sc.terminals]
        keywords: dict[str, dict[str, str]] = {}
        for type_, cb in lexer.callback.items():
            unless = getattr(cb, "callback1", cb)
            if hasattr(unless, "scanner") and type(unless).__name__ == "UnlessCallback":
                strings = unless.scanner.terminals
                if any(not isinstance(t.pattern, PatternStr) or t.pattern.flags for t in strings):
                    raise ValueError("keywords with flags are not supported")
                table_: dict[str, str] = {}
                for t in strings:  # the first in Lark's order wins, as its scanner's fullmatch does
                    table_.setdefault(t.pattern.value, t.name)
                keywords[type_] = table_
        user = {t for t in lexer.user_callbacks if t in lexer.callback}
        if user & set(lexer.ignore_types):
            raise ValueError("callbacks on ignored terminals are not supported")
        return names, keywords, user

    root: Any = contextual.root_lexer  # Lark's types name only the abstract lexer
    state_lexers: dict[int, Any] = dict(contextual.lexers)
    root_names, _, _ = scanner(root)
    if len(root_names) >= 100:
        raise ValueError("too many terminals for one expression")
    regexp = {t.name: t.pattern.to_regexp() for t in root.terminals}
    literal = {t.name: t.pattern.value for t in root.terminals if isinstance(t.pattern, PatternStr)}
    if root.g_regex_flags or any(t.pattern.flags for t in root.terminals):
        raise ValueError("regular expression flags are not supported")

    def pattern(names: list[str]) -> str:
        return "|".join(f"(?P<{n}>{regexp[n]})" for n in names)

    lexers: list[dict[str, Any]] = []
    by_id: dict[int, int] = {}
    lexer_of: list[int] = []
    for state in range(len(table.states)):
        lexer = state_lexers[state]
        if id(lexer) not in by_id:
            names, keywords, user = scanner(lexer)
            by_id[id(lexer)] = len(lexers)
            lexers.append({"pattern": pattern(names), "keywords": keywords, "callbacks": sorted(user),
                           "checks": _checks(names, root_names, literal)})
        lexer_of.append(by_id[id(lexer)])
    newline = sorted(root.newline_types)
    if any(set(lexer.newline_types) - set(newline) for lexer in state_lexers.values()):
        raise ValueError("a state's lexer has line-break terminals the root lexer has not")
    ignore = sorted(root.ignore_types)
    if set(ignore) - set(newline):
        raise ValueError("an ignored terminal without line breaks: the skipped text's are counted")
    probes = [" ", "\t", "\n", "\r", "\f", "//", "#", "/*"]  # where an ignored terminal can start
    for name in root_names:
        if name not in ignore and any(re.match(regexp[name], probe + "a_0.x") for probe in probes):
            raise ValueError(f"terminal {name} can start where an ignored one does: it cannot be skipped first")
    ignored = [n for n in root_names if n in ignore]
    skip = "(?:" + "|".join(f"(?:{regexp[n]})" for n in ignored) + ")*+"  # possessive: never given back
    # Lark numbers its states in an order that follows string hashes (and keeps the tables of whichever process
    # built them first in its temp-folder cache): numbered again here, in the order a walk from the start state
    # meets them, the file is the same whoever writes it
    order = _walk_order(states, table.start_states[start], table.end_states[start])
    renumber = {old: new for new, old in enumerate(order)}
    states = [{sym: [True, renumber[arg]] if shift else [False, arg] for sym, (shift, arg) in states[old].items()}
              for old in order]
    lexer_renumber: dict[int, int] = {}
    for old in order:
        lexer_renumber.setdefault(lexer_of[old], len(lexer_renumber))
    lexers = [lexers[i] for i in sorted(lexer_renumber, key=lexer_renumber.__getitem__)]
    lexer_of = [lexer_renumber[lexer_of[old]] for old in order]
    data = {"rules": plans, "skip": skip, "states": states, "start": renumber[table.start_states[start]],
            "end": renumber[table.end_states[start]], "root": pattern(root_names), "lexers": lexers,
            "lexer_of": lexer_of, "ignore": ignore, "newline": newline, "kept": sorted(kept)}
    del transformer
    return frozen.dumps(_made_from(), data)


def _walk_order(states: list[dict[str, list[Any]]], start: int, end: int) -> list[int]:
    """The parser's states in the order a breadth-first walk from `start` meets them, following shifts in the
    order of their symbols' names; `end` and any state the walk does not reach come after, in Lark's order."""
    order, seen = [start], {start}
    for state in order:  # (grows while it is walked)
        for sym in sorted(states[state]):
            shift, arg = states[state][sym]
            if shift and arg not in seen:
                seen.add(arg)
                order.append(arg)
    order += [s for s in [end, *range(len(states))] if s not in seen and not seen.add(s)]  # type: ignore[func-returns-value]
    return order


def _checks(names: list[str], root: list[str], literal: dict[str, str]) -> dict[str, list[str]]:
    """For a state's lexer (its alternatives `names`, in Lark's order): the terminals whose match by the root
    expression (alternatives `root`, the same order) is this lexer's match too, each with the keywords to rule out
    first. The root expression tried every one of its alternatives before the terminal and none matched; this
    lexer's alternatives before it are some of those, and keywords the root leaves to names (`extends` before `{`):
    if none of those keywords starts here, this lexer matches what the root matched. A terminal after an alternative
    that is neither is left out: the state's own expression matches it."""
    in_root = set(root)
    out: dict[str, list[str]] = {}
    for i, name in enumerate(names):
        if name not in in_root:
            continue
        before = [n for n in names[:i] if n not in in_root]
        if all(n in literal for n in before):
            out[name] = [literal[n] for n in before]
    return out
