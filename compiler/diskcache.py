"""A cache on disk for what is slow to make and cheap to key: the checked catalogue, parse trees, a check's result.

An entry is a pickle named by a hash of everything it was made from: the bytes that were read, the compiler's
own code and language files (`code_fingerprint`), the Python and library versions. An edit gives another
key, so an entry is never stale, only unused (old entries are removed once a folder holds too many). A
missing, truncated or unreadable entry is a miss; a cache folder that cannot be written is skipped without
a word. Only results that carry no error are stored by the callers, so a problem is always found afresh.

Where: `$CARDC_CACHE_DIR`, else the user's cache folder (`$XDG_CACHE_HOME/cardc`, `~/.cache/cardc`, on
Windows `%LOCALAPPDATA%\\cardc\\Cache`). `CARDC_CACHE=off` turns it off.
"""

from __future__ import annotations

import gc
import os
import pickle
import sys
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

try:  # hashlib loads OpenSSL (6 ms of every `cardc check`) to offer hashes this cache never uses
    from _blake2 import blake2b as blake2b  # re-exported: checkcache and dataclass_code hash with it too
except ImportError:  # pragma: no cover - a Python built without its own BLAKE2
    from hashlib import blake2b as blake2b

MAGIC = b"cardc-cache 1\n"
MAX_ENTRIES = 2000  # per folder; beyond it the oldest half is removed
# What unpickling a damaged or outdated entry raises (a class renamed or moved, a cut-off file, garbage).
UNREADABLE = (pickle.UnpicklingError, EOFError, AttributeError, ImportError, IndexError, KeyError, TypeError,
              ValueError, OverflowError, RecursionError)


def cache_root() -> Path | None:
    """The cache folder, or None when caching is off (asked some five hundred times by a first `cardc check`:
    the answer is remembered for the environment variables it is made from)."""
    get = os.environ.get
    switch, explicit = get("CARDC_CACHE", ""), get("CARDC_CACHE_DIR")
    if explicit:
        return _cache_root(switch, explicit, None, None)
    if sys.platform == "win32":
        return _cache_root(switch, None, get("LOCALAPPDATA"), None, get("USERPROFILE"), get("HOME"))
    return _cache_root(switch, None, None, get("XDG_CACHE_HOME"), get("HOME"))


@lru_cache(maxsize=8)
def _cache_root(switch: str, explicit: str | None, local_app_data: str | None, xdg_cache_home: str | None,
                *home: str | None) -> Path | None:
    """`cache_root` for these values of `CARDC_CACHE`, `CARDC_CACHE_DIR`, `LOCALAPPDATA`, `XDG_CACHE_HOME`, and
    those `Path.home` reads (`HOME`; on Windows `USERPROFILE` and `HOME`): only those the answer depends on."""
    if switch.strip().lower() in ("off", "0", "no", "false"):
        return None
    if explicit:
        return Path(explicit)
    if sys.platform == "win32" and local_app_data:
        return Path(local_app_data) / "cardc" / "Cache"
    base = xdg_cache_home or str(Path.home() / ".cache")
    return Path(base) / "cardc"


LONG_PART = 4096  # a part of a key at least this long is hashed once per process (`_part_hash`)


def digest(*parts: str | bytes) -> str:
    """A hash of `parts`, each length-prefixed (so ("ab", "c") and ("a", "bc") differ). A long part (a source
    text, the catalogue) enters as the hash of its own bytes, remembered for the process: a first `cardc check`
    keyed each source text four times and the catalogue three."""
    h = blake2b(digest_size=20)
    for part in parts:
        if len(part) >= LONG_PART:
            h.update(_HASHED)  # never the length of a part given whole
            h.update(_part_hash(part))
            continue
        data = part.encode("utf-8", "surrogatepass") if isinstance(part, str) else part
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()


def plain_digest(*parts: str | bytes) -> str:
    """`digest` without remembering any part: the hash the frozen files in the repository record
    (`cardc.frozen`), which must not change with how this cache keys its entries."""
    h = blake2b(digest_size=20)
    for part in parts:
        data = part.encode("utf-8", "surrogatepass") if isinstance(part, str) else part
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()


_HASHED = (1 << 63).to_bytes(8, "little")
_MEMO_SIZE = 4_000_000  # characters or bytes of the parts remembered with their hashes (as the loader's parses)
_part_hashes: dict[str | bytes, bytes] = {}
_part_size = 0


def _part_hash(part: str | bytes) -> bytes:
    """The hash of one long part of a key (of its UTF-8 bytes), remembered with the part itself: an equal text
    read again is found by Python's own hash of it, far cheaper than BLAKE2 and UTF-8 encoding. The oldest parts
    are forgotten beyond `_MEMO_SIZE`."""
    known = _part_hashes.get(part)
    if known is not None:
        return known
    data = part.encode("utf-8", "surrogatepass") if isinstance(part, str) else part
    value = blake2b(data, digest_size=20).digest()
    _remember_part(part, value)
    return value


def read_text(path: str | os.PathLike[str]) -> str:
    """`Path(path).read_text(encoding="utf-8-sig")`: the same text, or the same error. Read as bytes and decoded
    in one step (the text layer's newline decoder scanned every character of every source, and a check reads each
    twice); and when the text's UTF-8 is the file's bytes (no byte-order mark, no carriage return), the hash of
    those bytes, once `content_hash` has taken it, is remembered as the text's (`_part_hash`): a first check
    hashed every source twice, as the file and as the text."""
    with open(path, "rb") as f:
        data = f.read()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        from pathlib import Path

        return Path(path).read_text(encoding="utf-8-sig")  # its error, as the text layer reports it
    if "\r" in text:
        return text.replace("\r\n", "\n").replace("\r", "\n")  # universal newlines, as the text layer reads
    if len(text) >= LONG_PART and not data.startswith(b"\xef\xbb\xbf"):
        known = _part_hashes.get(data)
        if known is not None:
            _remember_part(text, known)
    return text


def _remember_part(part: str | bytes, value: bytes) -> None:
    global _part_size
    if part in _part_hashes:
        return
    _part_hashes[part] = value
    _part_size += len(part)
    while _part_size > _MEMO_SIZE and len(_part_hashes) > 1:
        oldest = next(iter(_part_hashes))
        _part_size -= len(oldest)
        del _part_hashes[oldest]


def content_hash(data: bytes) -> str:
    """The hash `cardc check` keeps of a content file's bytes (hex), remembered like a long part of a key: a
    check hashes every file before and after it runs, to see that none changed meanwhile."""
    if len(data) < LONG_PART:
        return blake2b(data, digest_size=20).hexdigest()
    return _part_hash(data).hex()


def _library_stamp(name: str) -> str:
    """Which copy of a library is installed (its file, size and time), without importing it."""
    from importlib.util import find_spec

    try:
        spec = find_spec(name)
    except (ImportError, ValueError):
        return f"{name}:-"
    origin = spec.origin if spec is not None else None
    if not origin:
        return f"{name}:-"
    try:
        st = os.stat(origin)
    except OSError:
        return f"{name}:{origin}"
    return f"{name}:{origin}:{st.st_size}:{st.st_mtime_ns}"


def _code_files() -> list[tuple[str, str]]:
    """(name relative to its base, file) for every .py, .lark, .yaml and .json file of the package and of
    `cardc.dsl`, sorted (plain strings: this runs on every `cardc check`, pathlib would double its cost)."""
    from cardc.resources import DSL_DIR

    out: list[tuple[str, str]] = []
    for base in (os.path.dirname(os.path.abspath(__file__)), str(DSL_DIR.resolve())):
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            rel = os.path.relpath(dirpath, base).replace(os.sep, "/")
            prefix = "" if rel == "." else rel + "/"
            for name in sorted(filenames):
                if name.endswith((".py", ".lark", ".yaml", ".json")):
                    out.append((prefix + name, os.path.join(dirpath, name)))
    return out


def code_fingerprint() -> str:
    """What a cached result was computed with (`_code_fingerprint`); with the cache off, a constant: no entry is
    loaded or stored then, and hashing the compiler's 140 files was 6-8 ms of a first `cardc check`."""
    if cache_root() is None:
        return "cache off"
    return _code_fingerprint()


@lru_cache(maxsize=1)
def _code_fingerprint() -> str:
    """A hash of the compiler's own code and language data (every .py, .lark, .yaml and .json file of the
    package and of `cardc.dsl`), the Python version and the parsing libraries: what a cached result was
    computed with. Content hashes, not times: a checkout or copy that keeps times still changes the key.

    Reading every file costs more than the rest of a cached `check`, so the hash is itself remembered under
    what `os.stat` says of each file (size, modification and change times in ns, inode), as git's index
    does: an edit changes the modification time, and a copy or checkout that keeps it still gets a new
    inode and change time, so a remembered hash is used only for the very files it was computed from. It is
    remembered beside the package's bytecode (`cardc.pycache`, the last one only) and in the cache folder."""
    from cardc import __version__

    head = f"{__version__}|{sys.version}|{_library_stamp('lark')}|{_library_stamp('yaml')}"
    files = _code_files()
    stats = blake2b(head.encode(), digest_size=20)
    try:
        for rel, path in files:
            st = os.stat(path)
            stats.update(f"{rel}\0{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}:{st.st_ino}\0".encode())
    except OSError:
        return _content_fingerprint(head, files)
    key = stats.hexdigest()
    from cardc import pycache

    memo = pycache.read(FINGERPRINT_MEMO, FINGERPRINT_HEADER)
    if memo is not None and len(memo) == 81 and memo[40:41] == b"\n" and memo[:40] == key.encode():
        return memo[41:].decode()
    remembered = load("fingerprint", key)
    value = remembered if isinstance(remembered, str) else _content_fingerprint(head, files)
    # beside the bytecode too, so that an empty cache folder finds it (a fifth of the hashing of a first check)
    pycache.write(FINGERPRINT_MEMO, FINGERPRINT_HEADER, f"{key}\n{value}".encode())
    if value is not remembered:
        store("fingerprint", key, value)
    return value


FINGERPRINT_MEMO = "fingerprint"  # `_code_fingerprint`'s memo beside the bytecode (`cardc.pycache`)
FINGERPRINT_HEADER = b"cardc fingerprint 1\n"  # then the stats' key, a newline and the content fingerprint


def _content_fingerprint(head: str, files: list[tuple[str, str]]) -> str:
    h = blake2b(digest_size=20)
    h.update(head.encode())
    for rel, path in files:
        h.update(rel.encode() + b"\0")
        with open(path, "rb") as f:
            h.update(blake2b(f.read(), digest_size=20).digest())
    return h.hexdigest()


# Writes kept for after the command's report (`defer`): `cardc check` hands them to a process of its own, so that
# what a first check stores (its parse trees pickled, hashed and written: an eighth of its instructions) is not
# paid for before the command ends. None: every write happens at once (tests, the language server, `watch`).
_later: list[Callable[[], object]] | None = None
WRITER_LOCK = ".writing"  # in the cache folder: held (flock) by a process still writing a command's entries
WRITER_WAIT = 5.0  # seconds a check waits at most for a writer (a stuck one must not stop every check)


def defer() -> None:
    """From now on, `later` keeps its jobs for `run_later` instead of running them (only with the cache on)."""
    global _later
    if _later is None and cache_root() is not None:
        _later = []


def deferring() -> bool:
    """Whether `later` keeps its jobs."""
    return _later is not None


def later(job: Callable[[], object]) -> None:
    """Run `job` (a write into the cache) now, or after the command's report if writes are deferred."""
    if _later is None:
        job()
    else:
        _later.append(job)


def run_later() -> None:
    """Run the jobs `later` kept, in order, and write at once from now on."""
    global _later
    jobs, _later = _later or [], None
    for job in jobs:
        job()


def write_behind() -> None:
    """Run the kept jobs in a child process, for a command about to end (`cli.run`, its output flushed): the
    command's exit status and output are its own, and the writes are the ones it would have made (each entry
    written atomically, as `store` does). The child keeps the command's standard streams open, so that a caller
    reading its output to the end also waits for its writes; and it holds `WRITER_LOCK`, which `wait_for_writer`
    (the next check's first look into the cache) waits for. Without `fork`, or when it fails, they run here."""
    if not _later:
        run_later()
        return
    root = cache_root()
    lock = _lock_for_writing(root) if root is not None and hasattr(os, "fork") else None
    if root is None or lock is None:
        run_later()
        return
    try:
        pid = os.fork()
    except OSError:
        pid = -1
    if pid != 0:
        os.close(lock)  # the child's copy holds the lock until it ends
        if pid < 0:
            run_later()
        return
    try:  # the child: the writes, then an exit without the parent's exit handlers or flushes
        run_later()
        try:
            os.unlink(os.path.join(root, WRITER_LOCK))
        except OSError:
            pass
    finally:
        os._exit(0)


def _lock_for_writing(root: Path) -> int | None:
    """An open file holding `WRITER_LOCK` of `root` exclusively, made if need be; None if it cannot be had
    within `WRITER_WAIT` seconds (another writer is stuck: then the writes are made in the process)."""
    try:
        import fcntl
        import time
    except ImportError:  # pragma: no cover - not a POSIX system
        return None
    path = os.path.join(root, WRITER_LOCK)
    deadline = time.monotonic() + WRITER_WAIT
    for _ in range(10):
        try:
            os.makedirs(root, exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError:
            return None
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.002)
            if os.fstat(fd).st_ino == os.stat(path).st_ino:  # not a file a writer that ended has removed
                return fd
        except BlockingIOError:
            os.close(fd)
            return None
        except OSError:
            pass
        os.close(fd)
    return None


def wait_for_writer() -> None:
    """Wait until no process is still writing a command's entries into the cache folder (`write_behind`), so that
    a check that starts after another has ended finds what it stored; at most `WRITER_WAIT` seconds (the entries
    are whole or absent either way: not waiting only costs a miss). One failed `open` when no writer is."""
    root = cache_root()
    if root is None:
        return
    try:
        fd = os.open(os.path.join(root, WRITER_LOCK), os.O_RDONLY)
    except OSError:
        return
    try:
        import fcntl
        import time

        deadline = time.monotonic() + WRITER_WAIT
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                if time.monotonic() > deadline:
                    return
                time.sleep(0.002)
    except (ImportError, OSError):
        pass
    finally:
        os.close(fd)


def _entry(namespace: str, key: str) -> Path | None:
    root = cache_root()
    return None if root is None else root / namespace / f"{key}.pickle"


def load(namespace: str, key: str) -> Any | None:
    """The value stored under `key`, or None (missing, unreadable, or written by another format)."""
    path = _entry(namespace, key)
    if path is None:
        return None
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if not data.startswith(MAGIC):
        return None
    try:
        stored_key, value = unpickle(memoryview(data)[len(MAGIC):])
    except UNREADABLE:  # a truncated or foreign file, or classes that changed: recompute
        return None
    return value if stored_key == key else None


def load_beside_code(namespace: str, key: str) -> Any | None:
    """The entry `load` would give for a value made only from the compiler's own files (the bundled catalogue
    and words), kept beside the package's bytecode (`cardc.pycache`, one per namespace): a first check with an
    empty cache folder finds it there. None with the cache off: the keys then name no code."""
    if cache_root() is None:
        return None
    from cardc import pycache

    data = pycache.read(f"cache-{namespace}", MAGIC + key.encode() + b"\n")
    if data is None:
        return None
    try:
        return unpickle(data)
    except UNREADABLE:
        return None


def store_beside_code(namespace: str, key: str, value: Any) -> None:
    """Store a value made only from the compiler's own files beside the package's bytecode, or, where that
    cannot be written, in the cache folder (`store`)."""
    from cardc import pycache
    from cardc.records import dumps

    if cache_root() is None:
        return
    if not pycache.writable(f"cache-{namespace}"):
        store(namespace, key, value)
        return
    try:
        data = dumps(value)
    except (pickle.PicklingError, TypeError, AttributeError, RecursionError):
        return
    if not pycache.write(f"cache-{namespace}", MAGIC + key.encode() + b"\n", data):
        store(namespace, key, value)


def unpickle(data: bytes | memoryview) -> Any:
    """`pickle.loads` of our own entries, with the cyclic collector paused: a large graph of small objects,
    which it would only walk. Raises one of `UNREADABLE` for a damaged or outdated pickle."""
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        return pickle.loads(data)  # noqa: S301 - our own folder, our own format
    finally:
        if gc_was_enabled:
            gc.enable()


def store(namespace: str, key: str, value: Any) -> None:
    """Store `value` under `key` (atomically: a reader sees the old entry, the new one or none)."""
    from cardc.records import dumps  # pickle.dumps, the same bytes

    path = _entry(namespace, key)
    if path is None:
        return
    try:
        data = MAGIC + dumps((key, value))
    except (pickle.PicklingError, TypeError, AttributeError, RecursionError):  # cannot be pickled: not cached
        return
    folder = path.parent
    try:
        stores = _stores.get(folder, 0)
        if not stores:  # once per folder and process: a first check stores some eighty entries
            folder.mkdir(parents=True, exist_ok=True)
            _tag(folder.parent)
        _stores[folder] = stores + 1
        fd, tmp = _temporary(folder)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
        if stores % PRUNE_EVERY == 0:  # listing a full folder costs a millisecond: not on every store
            _prune(folder)
    except OSError:  # a read-only or full disk: run without the cache
        _stores.pop(folder, None)  # a folder removed meanwhile is made again next time
        return


PRUNE_EVERY = 64  # stores into one folder between two looks at its size: it holds at most MAX_ENTRIES + 63
_stores: dict[Path, int] = {}  # stores into each folder by this process


def _temporary(folder: Path) -> tuple[int, str]:
    """A new file in `folder` for writing an entry before it is renamed into place, as `tempfile.mkstemp`
    makes one (created exclusively, readable by its owner only) without importing tempfile and random."""
    for _ in range(100):
        name = os.path.join(folder, f".tmp-{os.getpid()}-{os.urandom(8).hex()}")
        try:
            return os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o600), name
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name in {folder}")


TAG_TEXT = ("Signature: 8a477f597d28d172789f06886806bc55\n"
            "# This folder is a cache of cardc (https://bford.info/cachedir/); it may be deleted at any time.\n")


def _tag(root: Path) -> None:
    tag = root / "CACHEDIR.TAG"
    if not tag.exists():
        tag.write_text(TAG_TEXT, encoding="utf-8")


def _prune(folder: Path) -> None:
    """Keep a folder below MAX_ENTRIES entries: remove the least recently written half."""
    names = [n for n in os.listdir(folder) if n.endswith(".pickle")]
    if len(names) <= MAX_ENTRIES:
        return
    entries = []
    for name in names:
        try:
            entries.append((os.stat(folder / name).st_mtime_ns, name))
        except OSError:
            continue
    for _, name in sorted(entries)[: len(entries) - MAX_ENTRIES // 2]:
        try:
            os.unlink(folder / name)
        except OSError:
            continue
