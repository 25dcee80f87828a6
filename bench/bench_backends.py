"""A first build, backend by backend: CPU time and peak memory of each, on the bundled content or synthetic cards.

    python3 bench/bench_backends.py                          # the bundled content
    python3 bench/bench_backends.py --synthetic 1000 10000   # bench/gen_synthetic.py expansions of N cards
    python3 bench/bench_backends.py --before /tmp/old        # also the code in /tmp/old (a cardc package folder)
    python3 bench/bench_backends.py --only print             # only these backends

The front end runs once; then every backend runs in the order of `cardc build -j 1`, each in a forked process
of its own writing into one output folder (so `export` finds the PNGs `print` drew, as in a real build, and
each backend's peak memory is its own: the front end's memory is shared, copy-on-write, and counted in). CPU is
the child's user + system time, peak memory its maximum resident set. No build cache: a first build. Before the
backends, the effects' sentences are rendered once in the parent, as a parallel build does (`text`).

`--before DIR` runs the same measurement again in a fresh interpreter whose `cardc` is imported from DIR (e.g. a
copy of an older `compiler/` folder named `cardc`, with `cardc/dsl` linked to that checkout's `dsl/`) and
prints both side by side.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))


def measure(content: str, only: list[str] | None = None) -> dict[str, object]:
    """{"front": s, "backends": {name: {"cpu": s, "peak_mib": MiB, "files": n}}, "cards": n} for `content`:
    a folder, or a number of synthetic cards."""
    from as_built import backend_heap
    from cardc import backends
    from cardc.backends import BuildOptions
    from cardc.frontend import compile_paths

    with tempfile.TemporaryDirectory(prefix="cardc-backends-") as tmp:
        import gen_synthetic

        src = gen_synthetic.source(content, Path(tmp))
        start = time.process_time()
        result = compile_paths([src])
        front = time.process_time() - start
        if not result.ok:
            raise SystemExit("the content has errors")
        out = Path(tmp) / "out"
        out.mkdir()
        rows: dict[str, dict[str, float]] = {}
        with backend_heap():  # as `cardc build` runs its backends
            shared = _shared_text(result.project, only)
            if shared is not None:
                rows["text"] = shared
            for name, write in backends.BACKENDS:
                if only and name not in only:
                    continue
                before = {p for p in out.rglob("*") if p.is_file()}
                read, sent = os.pipe()
                pid = os.fork()
                if pid == 0:  # the child: run the backend, report its errors, exit
                    os.close(read)
                    code = 0
                    try:
                        options = BuildOptions(only=frozenset({name}), destination=out)
                        errors = [d.render() for d in write(result.project, out, options) if d.is_error]
                        os.write(sent, json.dumps(errors[:1]).encode())
                        code = 1 if errors else 0
                    except BaseException as err:  # noqa: BLE001 - reported by the parent
                        os.write(sent, json.dumps([f"{type(err).__name__}: {err}"]).encode())
                        code = 2
                    os._exit(code)
                os.close(sent)
                with os.fdopen(read, "rb") as pipe:
                    errors = json.loads(pipe.read() or b"[]")
                _pid, status, usage = os.wait4(pid, 0)
                if status != 0:
                    raise SystemExit(f"{name}: {errors[0] if errors else 'failed'}")
                files = len({p for p in out.rglob("*") if p.is_file()} - before)
                rows[name] = {"cpu": usage.ru_utime + usage.ru_stime, "peak_mib": usage.ru_maxrss / 1024,
                              "files": files, "user": usage.ru_utime, "sys": usage.ru_stime}
        cards = len(result.project.entities) if hasattr(result.project, "entities") else 0
    return {"front": front, "backends": rows, "cards": cards,
            "front_peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def _shared_text(project: object, only: list[str] | None) -> dict[str, float] | None:
    """As a parallel `cardc build` does before it forks two or more backends that print effects as sentences:
    render them once (`cardc.textgen.warm`), in the parent; each backend's process inherits them. None for a
    cardc without it (measured side by side with `--before`)."""
    from cardc import backends, build

    names = {name for name, _ in backends.BACKENDS if not only or name in only}
    text_backends = getattr(build, "TEXT_BACKENDS", None)
    if text_backends is None or len(text_backends & names) < 2:
        return None
    from cardc.textgen import warm

    start = time.process_time()
    warm(project)  # type: ignore[arg-type]
    return {"cpu": time.process_time() - start, "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "files": 0}


def run_child(content: str, pythonpath: str | None, only: list[str] | None = None) -> dict[str, object]:
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath + os.pathsep + env.get("PYTHONPATH", "")
    command = [sys.executable, __file__, "--one", content, *(["--only", *only] if only else [])]
    proc = subprocess.run(command, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        raise SystemExit(f"{content}: {proc.stderr.strip()[-2000:]}")
    data: dict[str, object] = json.loads(proc.stdout.strip().splitlines()[-1])
    return data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--synthetic", type=int, nargs="+", help="synthetic expansions of N cards (default: content/)")
    parser.add_argument("--content", default=str(ROOT / "content"))
    parser.add_argument("--before", help="a folder holding an older `cardc` package to measure side by side")
    parser.add_argument("--only", nargs="+", help="measure only these backends (export then draws its own faces)")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # internal: measure one content, print JSON
    args = parser.parse_args()
    if args.one is not None:
        print(json.dumps(measure(args.one, args.only)))
        return
    contents = [str(n) for n in args.synthetic] if args.synthetic else [args.content]
    runs: list[tuple[str, str, dict[str, object]]] = []
    for content in contents:
        label = f"{int(content):,} synthetic cards" if content.isdigit() else "bundled content"
        if args.before:
            runs.append((label, "before", run_child(content, args.before, args.only)))
            print(json.dumps(runs[-1]), file=sys.stderr, flush=True)  # what is done so far, should a run not end
        runs.append((label, "after" if args.before else "", run_child(content, None, args.only)))
        print(json.dumps(runs[-1]), file=sys.stderr, flush=True)
    names = list(dict.fromkeys(n for _, _, r in runs for n in r["backends"]))  # type: ignore[attr-defined]
    head = "| content | code | front end s | " + " | ".join(f"{n} s (MiB)" for n in names) + " | backends s |"
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for label, code, r in runs:
        rows = r["backends"]
        assert isinstance(rows, dict)
        cells = [f"{rows[n]['cpu']:.2f} ({rows[n]['peak_mib']:.0f})" if n in rows else "-" for n in names]
        total = sum(rows[n]["cpu"] for n in rows)
        print(f"| {label} | {code} | {r['front']:.2f} | " + " | ".join(cells) + f" | **{total:.2f}** |")
    print("\nuser + system CPU s of each backend (system: the kernel's, mostly creating and writing files):\n")
    print("| content | code | " + " | ".join(f"{n} user + sys s" for n in names) + " |")
    print("|" + "---|" * (len(names) + 2))
    for label, code, r in runs:
        rows = r["backends"]
        assert isinstance(rows, dict)
        cells = [f"{rows[n]['user']:.2f} + {rows[n]['sys']:.2f}" if n in rows and "user" in rows[n] else "-"
                 for n in names]
        print(f"| {label} | {code} | " + " | ".join(cells) + " |")
    if args.synthetic and len(args.synthetic) > 1:
        small, large = args.synthetic[0], args.synthetic[-1]
        pick = [r for label, code, r in runs if code != "before"]
        print(f"\nper-card cost ratio {large:,} / {small:,} (1.0 = linear):")
        for n in names:
            a, b = pick[0]["backends"], pick[-1]["backends"]  # type: ignore[index]
            if n in a and n in b and a[n]["cpu"] > 0:
                print(f"- {n}: {(b[n]['cpu'] / large) / (a[n]['cpu'] / small):.2f}")


if __name__ == "__main__":
    main()
