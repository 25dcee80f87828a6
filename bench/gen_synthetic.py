"""Generate a synthetic game with an expansion of N cards with effects, for the front-end benchmark.

    python3 bench/gen_synthetic.py N OUT_DIR

writes OUT_DIR/cardc.toml, OUT_DIR/game.cardc (the game and its kinds) and OUT_DIR/cards.cardc (the
N cards). The cards use every value form and effect construct of the language (localized texts,
modifiers, ranges, dice, enums, references, lists, `unknown`, `provisional`, `may`, `choose`, `if`
with `and`/`or`/`not`), with only verbs of the core catalogue, so the text checks cleanly. The same
N always gives the same bytes.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

GAME = """// Synthetic game for the front-end benchmark (bench/gen_synthetic.py).
module synth

game synth {
  name: { cs "Syntetická hra" en "Synthetic game" }
  languages: [cs, en]
  fallback: en
}

kind item {
  name: { cs "Předmět" en "Item" }
  physical: true
  size: token
  attr slot { type: enum(weapon, spell, key, treasure)  required: true }
  attr attack { type: int  default: 0 }
}

kind card {
  name: { cs "Karta" en "Card" }
  physical: true
  copies: 1
  size: poker
  attr cost { type: int  required: true }
  attr power { type: modifier }
  attr band { type: range }
  attr roll { type: dice }
  attr colour { type: enum(red, green, blue, black)  default: red }
  attr needs { type: list(ref(item)) }
  attr icon { type: icon }
  attr weight { type: number }
}
"""

ITEMS = """module synth.bulk
import "game.cardc"

expansion bulk extends synth {
  name: { cs "Hromada" en "Bulk" }
  languages: [cs, en]
}

item blade { name: { cs "Čepel" en "Blade" } slot: weapon attack: 2 copies: 4 }
item charm { name: { cs "Amulet" en "Charm" } slot: spell copies: 3 }
item key { name: { cs "Klíč" en "Key" } slot: key copies: 2 }
"""

CS = ["Stín", "Plamen", "Kámen", "Vítr", "Řeka", "Hvězda", "Trn", "Štít"]
EN = ["Shadow", "Flame", "Stone", "Wind", "River", "Star", "Thorn", "Shield"]
BODIES = [
    "attack(+{a})",
    "lose_life({n})",
    "may gain_life({n})",
    "choose {{ left {{ attack(+{a}) }} right {{ move(steps: {n}) }} }}",
    "if holds(blade) {{ attack(+{a}) }} else {{ lose_life() }}",
    "roll(d6) may reroll(all)",
]
TRIGGERS = ["fight_total", "fight_roll", "turn_start", "enter_tile", "monster_defeated"]
CONDITIONS = ["", " if lives({lo}..{hi})", " if holds(charm) and not cursed", " if lives(1..2) or armed"]


def card(i: int, rng: random.Random) -> str:
    a, n = rng.randint(1, 4), rng.randint(1, 3)
    lo = rng.randint(1, 3)
    word = rng.randrange(len(CS))
    lines = [
        f"card c{i:05d} {{",
        f'  name: {{ cs "{CS[word]} {i}" en "{EN[word]} {i}" }}',
        f"  cost: {rng.randint(0, 9)}",
        f"  power: +{rng.randint(1, 5)}",
        f"  band: {lo}..{lo + rng.randint(0, 3)}",
        f"  roll: {rng.randint(1, 3)}d6",
        f"  colour: {rng.choice(['red', 'green', 'blue', 'black'])}",
        f"  needs: [{', '.join(rng.sample(['blade', 'charm', 'key'], rng.randint(0, 2)))}]",
        f"  icon: :{rng.choice(['sword', 'shield', 'star'])}:",
        f"  weight: {rng.randint(0, 3)}.{rng.randint(0, 9)}",
        f"  tags: [synthetic, band{i % 7}]",
        f'  source: "synthetic#{i}"',
    ]
    if i % 10 == 0:
        lines.append('  copies: provisional 2 "benchmark provisional value"')
    elif i % 10 == 5:
        lines.append('  copies: unknown "benchmark unknown value"')
    for _ in range(rng.randint(1, 2)):
        cond = rng.choice(CONDITIONS).format(lo=lo, hi=lo + 2)
        body = rng.choice(BODIES).format(a=a, n=n)
        lines.append(f"  on {rng.choice(TRIGGERS)}{cond} {{ {body} }}")
    lines.append("}")
    return "\n".join(lines)


def cards_text(n: int, seed: int = 1) -> str:
    """The text of the cards file: N cards, deterministic for a given N and seed."""
    rng = random.Random(seed)
    return ITEMS + "\n" + "\n\n".join(card(i, rng) for i in range(n)) + "\n"


def write(n: int, out: Path) -> Path:
    """Write the synthetic project into `out`; return the cards file."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "cardc.toml").write_text("# synthetic benchmark content\n", encoding="utf-8")
    (out / "game.cardc").write_text(GAME, encoding="utf-8")
    cards = out / "cards.cardc"
    cards.write_text(cards_text(n), encoding="utf-8")
    return cards


def source(content: str, tmp: Path) -> Path:
    """The content folder a bench names: a number of synthetic cards (written under `tmp`), or a folder."""
    if not content.isdigit():
        return Path(content)
    write(int(content), tmp / "src")
    return tmp / "src"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("n", type=int, help="number of cards")
    parser.add_argument("out", type=Path, help="folder to write the project into")
    args = parser.parse_args()
    cards = write(args.n, args.out)
    print(f"wrote {args.n} cards to {cards}")


if __name__ == "__main__":
    main()
