"""Trading outside the team game in Prophecy's play (issue 9.5): the base game's optional trading rule (the
variant `trading`; the seed names it, not its details, so who, when, what and how are provisional stand-ins):
at the start of its turn a character may offer another one standing on its space gold or an item for gold or an
item of theirs, a legal choice like any other; the other accepts or refuses. Shown against the game without the
variant, with the characters apart, and with the deal refused."""

from __future__ import annotations

from collections import Counter
from typing import Any

from cardc.backends.python.runtime.cardc_runtime import Scripted
from cardc.backends.python.runtime.cardc_runtime.context import Context
from cardc.backends.python.runtime.cardc_runtime.engine import play_game
from test_rules_support import prophecy_table, rules
from test_rules_support import table_marks as _marks

DEAL = {"trade": "gold>p2", "trade_amount": 2, "trade_for": "royal_cloak", "accept_trade": "accept"}


def _scene(variants: tuple[str, ...] = ("trading",), *, apart: bool = False,
           answer: dict[str, Any] | None = None) -> Context:
    """p1 (3 gold) and p2 (3 gold and a Royal Cloak) on the same space (or apart); p1 starts its turn."""
    ctx = prophecy_table(variants=variants)
    _marks(ctx)["space:p2"] = "main_ring#2" if apart else _marks(ctx)["space:p1"]
    ctx.characters["p2"].cards.append("royal_cloak")
    ctx.inputs = Scripted(choices=dict(answer or DEAL))
    ctx.fire("turn_start", ctx.characters["p1"])
    return ctx


def _asked(ctx: Context) -> list[str]:
    assert isinstance(ctx.inputs, Scripted)
    return [c.point for c in ctx.inputs.asked]


def test_characters_on_one_space_trade_gold_for_an_item() -> None:
    ctx = _scene()
    p1, p2 = ctx.characters["p1"], ctx.characters["p2"]
    assert p1.stats["gold"] == 1 and p2.stats["gold"] == 5
    assert "royal_cloak" in p1.cards and "royal_cloak" not in p2.cards
    assert "p2:accept_trade" in _asked(ctx)  # the other side decides, through the same choices
    offers = next(c.options for c in ctx.inputs.asked if c.point.endswith(":trade"))  # type: ignore[attr-defined]
    assert offers[0] == "none" and "gold>p2" in offers and not any(o.startswith("experience") for o in offers)
    assert any("trading rule" in n for n in ctx.provisional)


def test_no_trade_without_the_rule_or_apart_or_refused() -> None:
    for ctx in (_scene(()), _scene(apart=True), _scene(answer={**DEAL, "accept_trade": "refuse"})):
        p1, p2 = ctx.characters["p1"], ctx.characters["p2"]
        assert p1.stats["gold"] == 3 and p2.stats["gold"] == 3 and "royal_cloak" in p2.cards
    assert not any(p.endswith(":trade") for p in _asked(_scene(())))
    assert not any(p.endswith(":trade") for p in _asked(_scene(apart=True)))
    assert ("p1", "trade_refused", "p2") in _scene(answer={**DEAL, "accept_trade": "refuse"}).log


def test_games_with_the_trading_rule_trade_and_finish() -> None:
    seen: Counter[str] = Counter()
    for seed in range(4):
        result = play_game(rules("prophecy", ("dragon_realm",)), ["p1", "p2", "p3", "p4"], seed=seed,
                           variants=("trading",), keep_log=True)
        seen.update(e[1] for e in result.log if e[1] in ("trade", "trade_refused"))
        assert result.winners and not result.capped, (seed, result.reason)
    assert seen["trade"] > 0, seen
