"""Profile-guided optimisation of the mypyc builds (accel.run_mypyc): compile once with counters, play training
games on that build, compile again guided by what they counted.

gcc then lays out and inlines the build's code for the paths games take: the same games, about 14% more of them
per CPU second (bench/README, "Issue 10.7: profile-guided builds ..."). The counters are kept in the cache folder
(`<cache>/profiles/<key>`) for every later build of the same kind (`group`: the runtime alone, or the runtime
with a game's rules) and runtime version: a content edit makes a new build of the rules, which is guided by the
counters kept, so only the first build of a cardc version on a machine pays for the training (a second compile,
a few seconds of games). The runtime's functions come first in the build's C file and are the same C at the
same lines in every build of a kind (mypyc's group name is fixed, see `accel.GROUPS`), so gcc matches their
counters; a function of the rules that changed finds none that match and is compiled as without a profile
(`-fprofile-partial-training`), never wrongly.

gcc 12 or later only (`-fprofile-prefix-path`: the counters' file names are the object files' paths inside the
build's folder, the same in every build); with another compiler the builds are made as before.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sysconfig
import tempfile
from pathlib import Path

PROFILE = ".profile"  # the counters' folder inside a build's work folder
FOLDER = "profiles"  # (in the cache folder)
MIN_GCC = 12
KEEP = 4  # kept counters (the newest): a cardc version's builds of both kinds, and the last version's


def compiler(env: dict[str, str]) -> str:
    """The C compiler a build in `env` runs (as setuptools picks it: `CC`, else Python's own)."""
    return (env.get("CC") or str(sysconfig.get_config_var("CC") or "cc")).split()[0]


@functools.cache
def gcc_version(cc: str) -> str | None:
    """The full version of `cc` when it is gcc MIN_GCC or later, else None (clang also answers to gcc's options
    but keeps its counters in another form)."""
    try:
        about = subprocess.run([cc, "--version"], capture_output=True, text=True, timeout=30).stdout
        version = subprocess.run([cc, "-dumpfullversion"], capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    if "clang" in about.lower() or "Free Software Foundation" not in about:
        return None
    try:
        return version if int(version.split(".")[0]) >= MIN_GCC else None
    except ValueError:
        return None


def kept(kind: str, env: dict[str, str]) -> Path | None:
    """The folder of the counters kept for builds of `kind` (what a build depends on besides the rules: the
    runtime's key and the group) by this compiler, whether or not there are any yet; None when the builds here
    cannot be profile-guided (not gcc 12 or later, not a POSIX system) or the cache is off."""
    from cardc.diskcache import cache_root, digest

    version = gcc_version(compiler(env)) if os.name == "posix" else None
    root = cache_root()
    if version is None or root is None:
        return None
    return root / FOLDER / digest(kind, compiler(env), version)


def counted(folder: Path) -> bool:
    """Whether `folder` holds counters."""
    return folder.is_dir() and any(folder.rglob("*.gcda"))


def generate_flags(work: Path) -> tuple[str, ...]:
    """The flags of the compile with counters (compile and link: setuptools passes CFLAGS to both)."""
    return (f"-fprofile-generate={work / PROFILE}", f"-fprofile-prefix-path={work}")


def use_flags(work: Path, counters: Path) -> tuple[str, ...]:
    """The flags of a compile in `work` guided by the `counters`: a function without counters (or whose
    counters do not match it: rules edited since) is compiled as without a profile, and none of that is an
    error."""
    return (f"-fprofile-use={counters}", f"-fprofile-prefix-path={work}", "-fprofile-partial-training",
            "-Wno-missing-profile", "-Wno-coverage-mismatch")


def keep(work: Path, folder: Path) -> bool:
    """Keep the counters the training left in `work` as `folder` (whole or not at all: copied beside it and
    renamed; whoever keeps them first wins); False when there were none or they could not be kept."""
    counters = work / PROFILE
    if not counted(counters):
        return False
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        fresh = Path(tempfile.mkdtemp(prefix="new-", dir=folder.parent))
        shutil.copytree(counters, fresh, dirs_exist_ok=True)
        try:
            fresh.rename(folder)
        except OSError:
            shutil.rmtree(fresh, ignore_errors=True)
        _prune(folder)
    except OSError:
        return False
    return counted(folder)


def _prune(keep_folder: Path) -> None:
    """All but the KEEP newest counters' folders go, and copies left unfinished more than a day ago."""
    import time

    found = []
    for other in keep_folder.parent.iterdir():
        try:
            if other.name.startswith("new-"):  # (another build's copy, in progress unless it is old)
                if other.stat().st_mtime < time.time() - 86400:
                    shutil.rmtree(other, ignore_errors=True)
            elif other != keep_folder:
                found.append((other.stat().st_mtime, other))
        except OSError:
            continue
    for _, other in sorted(found, reverse=True)[KEEP - 1:]:
        shutil.rmtree(other, ignore_errors=True)
