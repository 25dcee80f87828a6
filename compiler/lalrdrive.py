"""Lark's LALR parser and contextual lexer, run by one loop: the same tables, lexers and callbacks, less overhead.

`Lark.parse` lexes through a generator of lexer objects that keep a line counter, and feeds every token to a
parser-state object: per token, a few method calls and attribute look-ups that a file of 16,000 tokens pays
for 16,000 times. `drive` runs the same steps in one function over the very objects `Lark` built from
`dsl/cardc.lark` (its parse table, its per-state lexers with their compiled patterns and callbacks, the
transformer's callbacks), so the grammar stays the single source and the tree is the one `Lark.parse` builds:
each token is matched by the lexer of the parser's current state, counted into lines the same way, given the
same callbacks, and shifted or reduced by the same table.

Only a text that parses cleanly goes through here. At the first thing `Lark.parse` would report (a character
no terminal matches, a token the table does not expect) or anything it does not handle the same way, `drive`
raises `Unsupported` and the caller parses the text with `Lark.parse`, which reports it as before.
"""

from __future__ import annotations

from typing import Any


class Unsupported(Exception):
    """This text (or this Lark set-up) is left to `Lark.parse`."""


def drive(lark: Any, text: str) -> Any:
    """What `lark.parse(text)` returns, for a text it parses without error; else raises Unsupported."""
    from lark import Token
    from lark.lexer import ContextualLexer
    from lark.parsers.lalr_analysis import Shift

    frontend = lark.parser
    contextual = frontend.lexer
    if type(contextual) is not ContextualLexer or len(frontend.parser_conf.start) != 1:
        raise Unsupported("not one start rule and Lark's own contextual lexer")
    parser = frontend.parser.parser
    table, callbacks = parser.parse_table, parser.callbacks
    states = table.states
    start = frontend.parser_conf.start[0]
    end_state = table.end_states[start]
    state_stack: list[int] = [table.start_states[start]]
    value_stack: list[Any] = []
    lexers = contextual.lexers
    # state -> (the compiled patterns of its lexer, ignored types, lexer callbacks, types that hold line breaks)
    by_state: dict[int, tuple[Any, frozenset[str], dict[str, Any], frozenset[str]]] = {}
    new_token: Any = Token._future_new  # what `Token(...)` calls, with the end position given at once
    pos, line, line_start, size = 0, 1, 0, len(text)
    token = None
    while pos < size:
        state = state_stack[-1]
        lexing = by_state.get(state)
        if lexing is None:
            lexer: Any = lexers[state]
            mres = lexer.scanner._mres  # noqa: SLF001 - the scanner's compiled patterns, in its order
            lexing = by_state[state] = (mres, lexer.ignore_types, lexer.callback, lexer.newline_types)
        mres, ignore, lexer_callbacks, newline_types = lexing
        for mre in mres:
            m = mre.match(text, pos)
            if m:
                break
        else:
            raise Unsupported("no terminal matches here")
        value = m.group(0)
        type_ = m.lastgroup
        column, token_line, end = pos - line_start + 1, line, pos + len(value)
        if type_ in newline_types:
            breaks = value.count("\n")
            if breaks:
                line += breaks
                line_start = pos + value.rindex("\n") + 1
        if type_ in ignore:
            if type_ in lexer_callbacks:
                lexer_callbacks[type_](new_token(type_, value, pos, token_line, column, line, end - line_start + 1,
                                                 end))
            pos = end
            continue
        token = new_token(type_, value, pos, token_line, column, line, end - line_start + 1, end)
        pos = end
        if type_ in lexer_callbacks:
            token = lexer_callbacks[type_](token)
            if not isinstance(token, Token):
                raise Unsupported("a lexer callback returned something else than a token")
        kind = token.type
        while True:  # ParserState.feed_token
            try:
                action, arg = states[state_stack[-1]][kind]
            except KeyError:
                raise Unsupported("a token the grammar does not expect here") from None
            if action is Shift:
                state_stack.append(arg)
                value_stack.append(token if kind not in callbacks else callbacks[kind](token))
                break
            n = len(arg.expansion)
            if n:
                children = value_stack[-n:]
                del state_stack[-n:]
                del value_stack[-n:]
            else:
                children = []
            reduced = callbacks[arg](children)
            state_stack.append(states[state_stack[-1]][arg.origin.name][1])
            value_stack.append(reduced)
    end_token = Token.new_borrow_pos("$END", "", token) if token else Token("$END", "", 0, 1, 1)
    while True:  # ParserState.feed_token(end_token, is_end=True)
        try:
            action, arg = states[state_stack[-1]][end_token.type]
        except KeyError:
            raise Unsupported("the text ends where the grammar expects more") from None
        if action is Shift:
            raise Unsupported("the end of the text shifted")
        n = len(arg.expansion)
        if n:
            children = value_stack[-n:]
            del state_stack[-n:]
            del value_stack[-n:]
        else:
            children = []
        reduced = callbacks[arg](children)
        state_stack.append(states[state_stack[-1]][arg.origin.name][1])
        value_stack.append(reduced)
        if state_stack[-1] == end_state:
            return value_stack[-1]
