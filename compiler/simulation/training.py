"""The training games of a profile-guided build of the compiled runtime (accel.run_mypyc, pgo.py).

`trainer(job)` gives the `train` a build takes: it plays GAMES games of the run's own set-up (players,
expansions, variants, bot) on the build with counters, in a new process (the counters are written when that
process ends), with the cache off (no kept odds read or written: the bot enumerates its fights as a first run
does, so the counters see both). The games are fixed by SEED: the same counters, so the same build, each time.

    python -m cardc.simulation.training JOB_FILE GAMES   # (what `trainer` runs; JOB_FILE: the pickled job)
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from cardc.simulation.jobs import Job

GAMES = 1000  # about 8 s of one core on the build with counters (greedy, 4 players)
SEED = 0x7EA1  # (not a seed a run is likely to be asked for: the games trained on are not the run's)
TIMEOUT = 900  # seconds: a training that runs longer is given up (the build is made without a profile)


def trainer(job: Job, games: int = GAMES) -> Callable[[Path], bool]:
    """The `train` of a build (accel.run_mypyc): play `games` games of `job` on the build in `work`."""

    def train(work: Path) -> bool:
        from cardc.backends.python.accel import ENV

        job_file = work / "training-job.pickle"
        job_file.write_bytes(pickle.dumps(job))
        env = {k: v for k, v in os.environ.items() if k != "CARDC_CACHE_DIR"}
        env.update({ENV: str(work), "CARDC_CACHE": "off"})
        try:
            done = subprocess.run([sys.executable, "-m", "cardc.simulation.training", str(job_file), str(games)],
                                  env=env, capture_output=True, text=True, timeout=TIMEOUT)
        except (OSError, subprocess.SubprocessError):
            return False
        finally:
            job_file.unlink(missing_ok=True)
        return done.returncode == 0

    return train


def main(argv: list[str]) -> int:
    """Play the games on the compiled runtime this process was started with; 1 when it is not that one."""
    from cardc.backends.python.accel import is_compiled
    from cardc.backends.python.loader import ensure_runtime
    from cardc.simulation.runner import play_batch
    from cardc.simulation.table import TableError, validate

    ensure_runtime()
    if not is_compiled():
        return 1
    try:
        job = validate(pickle.loads(Path(argv[0]).read_bytes()))
    except TableError:  # (a set-up the run itself will report)
        return 1
    play_batch(job, SEED, range(int(argv[1])))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
