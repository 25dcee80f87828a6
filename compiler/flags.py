"""Command-line flags checked before any work: unknown backends, bad values and flags that do not apply.

Each check returns the error messages (empty when all is well); the command prints them and exits 2, so a
typo never costs a compile and never passes silently.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from cardc.diagnostics import did_you_mean

# `build` flags of each backend (argparse dest -> the flag as typed), for "does not apply" errors.
PRINT_FLAGS = {"paper": "--paper", "orientation": "--orientation", "bleed": "--bleed", "duplex": "--duplex",
               "crop_mark_length": "--crop-mark-length", "crop_mark_weight": "--crop-mark-weight",
               "cut_lines": "--cut-lines", "back_offset": "--back-offset", "png": "--png", "png_dpi": "--png-dpi",
               "min_text": "--min-text", "print_set": "--print-set"}
EXPORT_FLAGS = {"tts_base_url": "--tts-base-url", "tts_images": "--tts-images"}


def unknown_names(kind: str, given: Sequence[str], known: Sequence[str]) -> list[str]:
    """One error per name in `given` that is not in `known`, with the closest known name or all of them."""
    errors = []
    for name in given:
        if name not in known:
            hint = did_you_mean(name, known) or f"known: {', '.join(known)}"
            errors.append(f"unknown {kind} `{name}`; {hint}")
    return errors


def check_build_flags(args: argparse.Namespace, backends: Sequence[str], settings: dict[str, str]) -> list[str]:
    """Errors in the flags of `cardc build`: --only names, print and export values, flags for backends left out."""
    only = list(args.only or ())
    errors = unknown_names("backend", only, backends)
    if getattr(args, "jobs", None) is not None and args.jobs < 1:
        errors.append(f"--jobs must be 1 or more, not {args.jobs}")
    wanted = set(only) or set(backends)
    for group, flags in (("print", PRINT_FLAGS), ("export", EXPORT_FLAGS)):
        given = [flag for dest, flag in flags.items() if getattr(args, dest, None) is not None]
        if given and group not in wanted:
            errors.append(f"{', '.join(given)} {'applies' if len(given) == 1 else 'apply'} to the {group} backend, "
                          f"which --only leaves out")
    if "print" in wanted:
        from cardc.backends.print.settings import parse_settings as print_settings

        errors.extend(d.message for d in print_settings(settings)[1])
    if "export" in wanted:
        from cardc.backends.export.tts import parse_settings as tts_settings

        errors.extend(d.message for d in tts_settings(settings)[1])
    return errors


def check_odds_flags(args: argparse.Namespace) -> list[str]:
    """Errors in the flags of `cardc odds` that need no content: combinations that contradict or do not apply."""
    errors = []
    duel_only = {"vs_lives": "--vs-lives", "vs_items": "--vs-items", "vs_weapons": "--vs-weapons",
                 "vs_spells": "--vs-spells", "vs_cursed": "--vs-cursed", "by": "--by"}
    for dest, flag in (("lives", "--lives"), ("vs_lives", "--vs-lives")):
        value = getattr(args, dest)
        if value is not None and not 1 <= value <= 99:
            errors.append(f"{flag} must be from 1 to 99, not {value}")
    if args.table:  # --lives, --cursed, --first-step and the items apply to every fighter of the table
        given = [flag for dest, flag in {"hero": "--hero", "vs": "--vs", "vs_hero": "--vs-hero", **duel_only}.items()
                 if getattr(args, dest)]
        if given:
            errors.append(f"{', '.join(given)} {'does' if len(given) == 1 else 'do'} not apply to --table "
                          "(every fighter against every opponent)")
        return errors
    if args.vs and args.vs_hero:
        errors.append("give --vs MONSTER for a fight or --vs-hero HERO for a duel, not both")
    elif not args.vs_hero:
        given = [flag for dest, flag in duel_only.items() if getattr(args, dest)]
        if given:
            errors.append(f"{', '.join(given)} {'applies' if len(given) == 1 else 'apply'} only to a duel "
                          "(--vs-hero HERO)")
    if args.hero and args.vs_hero and args.hero == args.vs_hero:
        errors.append(f"a hero cannot duel itself: --hero and --vs-hero are both `{args.hero}`")
    if not args.hero or not (args.vs or args.vs_hero):
        errors.append("give --hero and --vs OPPONENT (or --vs-hero FIGHTER), or --table")
    return errors
