"""Where the compiled kernels' machine code is cached, and when they compile.

Every kernel is decorated with :func:`njit` from here, numba's ``njit`` with one difference:
numba caches beside the sources or in the user's cache folder and fails at import when it can
write to neither (a read-only install with a read-only HOME: "cannot cache function ...: no
locator available"). There bnfs caches in a private folder of the temporary directory
instead, and compiles without a cache when even that cannot be written; one log line says
which. The logger ``bnfs.compile`` says once per process that kernels are being compiled,
which happens on first use only (the command line shows it).
"""

from __future__ import annotations

import functools
import getpass
import hashlib
import inspect
import logging
import os
import pickle
import signal
import sys
import tempfile
import threading
import time
import warnings
import zlib

import numba
from numba.core import event

log = logging.getLogger("bnfs")
compile_log = logging.getLogger("bnfs.compile")


def _probe():  # pragma: no cover - never called: decorating it asks numba whether it can cache
    return 0


def _numba_caches(cache_dir: str | None = None) -> bool:
    """Whether numba can cache a kernel of this package (in ``cache_dir`` when given)."""
    saved = numba.config.CACHE_DIR
    if cache_dir is not None:
        numba.config.CACHE_DIR = cache_dir
    try:
        numba.njit(cache=True)(_probe)
        return True
    except RuntimeError:  # "cannot cache function ...: no locator available"
        return False
    finally:
        numba.config.CACHE_DIR = saved


def _private_folder() -> str | None:
    """A folder of the temporary directory only this user can write, or None."""
    try:
        user = getpass.getuser()
    except Exception:  # no user name (some containers): the uid, or a fresh folder
        user = str(os.getuid()) if hasattr(os, "getuid") else None
    try:
        if user is None:
            return tempfile.mkdtemp(prefix="bnfs-numba-cache-")
        path = os.path.join(tempfile.gettempdir(), f"bnfs-numba-cache-{user}")
        os.makedirs(path, mode=0o700, exist_ok=True)
        info = os.stat(path)
        if hasattr(os, "getuid") and (info.st_uid != os.getuid() or info.st_mode & 0o022):
            # someone else's folder: its cached code cannot be trusted; a fresh one instead
            return tempfile.mkdtemp(prefix="bnfs-numba-cache-")
        return path
    except OSError:
        return None


def _cache_location() -> str | bool:
    """True when numba caches where it usually does, a folder when bnfs must point it
    elsewhere, False when nothing can be cached."""
    if _numba_caches():
        return True
    folder = _private_folder()
    if folder is not None and _numba_caches(folder):
        log.info(
            "numba cannot cache beside bnfs or in the user's cache folder; "
            "caching compiled kernels in %s",
            folder,
        )
        return folder
    log.warning(
        "no folder to cache compiled kernels in (install read-only, HOME and "
        "the temporary directory not writable): kernels compile on every run; set "
        "NUMBA_CACHE_DIR to a writable folder to keep them"
    )
    return False


CACHE = _cache_location()


@functools.cache
def sources_stamp(folder: str) -> str:
    """A digest of the names and contents of the ``.py`` files of ``folder`` (read once per
    process): by content, so that an install, a copy or a Docker layer, which keep no
    modification times, finds the entries built from the same sources."""
    digest = hashlib.sha256()
    for entry in sorted(
        (e for e in os.scandir(folder) if e.name.endswith(".py") and e.is_file()),
        key=lambda e: e.name,
    ):
        with open(entry.path, "rb") as f:
            digest.update(entry.name.encode() + b"\0" + hashlib.sha256(f.read()).digest())
    return digest.hexdigest()[:16]


#: the kernels compiled when the package was built (``pip install .`` runs ``bnfs warmup
#: --into`` here), read-only; entries are found by content, as in the cache
SHIPPED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_compiled")
#: what the shipped entries were built with (:func:`build_facts`), in each shipped folder
MANIFEST = "MANIFEST.json"
#: an entry written by bnfs: this, then zlib-compressed pickle (object code packs to ~40%)
PACKED = b"bnfs-kernel-1\n"


def pack_entry(payload: bytes) -> bytes:
    """An entry's bytes as bnfs writes them: :data:`PACKED` and the compressed pickle."""
    return payload if payload.startswith(PACKED) else PACKED + zlib.compress(payload, 6)


def _unpack_entry(payload: bytes):
    if payload.startswith(PACKED):
        payload = zlib.decompress(payload[len(PACKED) :])
    return pickle.loads(payload)


@functools.cache
def shipped_folders() -> tuple[str, ...]:
    """The folders of compiled kernels built with the package, each with its
    :data:`MANIFEST`: those ``BNFS_COMPILED_KERNELS`` names (``os.pathsep`` between them: a
    read-only volume that ``bnfs warmup --into`` filled, shared by a cluster's workers),
    the package's own, and, for a source checkout run beside an install of it (the test
    suite after ``pip install .``), the installed copy's; only entries of identical sources
    match. None when ``BNFS_NO_SHIPPED_KERNELS`` is set (``bnfs warmup --into`` compiles
    afresh)."""
    if os.environ.get("BNFS_NO_SHIPPED_KERNELS"):
        return ()
    extra = os.environ.get("BNFS_COMPILED_KERNELS", "")
    folders = [*(os.path.abspath(f) for f in extra.split(os.pathsep) if f), SHIPPED]
    # an installed copy anywhere on the path (site-packages); not its metadata, which a
    # checkout's own bnfs.egg-info (left by pip's in-tree build) would shadow
    for entry in sys.path:
        installed = os.path.abspath(
            os.path.join(entry or os.curdir, "bnfs", "_kernels", "_compiled")
        )
        if os.path.realpath(installed) not in map(os.path.realpath, folders):
            folders.append(installed)
    return tuple(f for f in folders if os.path.isfile(os.path.join(f, MANIFEST)))


def build_facts() -> dict:
    """What compiled code is valid for: the numba, llvmlite, numpy and Python versions,
    the CPU and its features (as numba keys its cache), the kernels' sources."""
    import llvmlite
    import numpy
    from numba.core.registry import cpu_target

    triple, cpu, features = cpu_target.target_context.codegen().magic_tuple()
    return {
        "numba": numba.__version__,
        "llvmlite": llvmlite.__version__,
        "numpy": numpy.__version__,
        "python": ".".join(map(str, sys.version_info[:3])),
        "platform": triple,
        "cpu": cpu,
        "cpu_features": hashlib.sha256(features.encode()).hexdigest()[:16],
        "sources": sources_stamp(os.path.dirname(os.path.abspath(__file__))),
    }


#: the CPU of portable entries (``bnfs warmup --into DIR --portable``: a wheel that travels)
PORTABLE_CPU = "generic"


@functools.cache
def _manifest(folder: str) -> dict:
    """The facts of a shipped folder's :data:`MANIFEST` ({} when unreadable)."""
    import json

    try:
        with open(os.path.join(folder, MANIFEST)) as f:
            return json.load(f).get("facts", {})
    except (OSError, ValueError):
        return {}


def _portable(folder: str) -> bool:
    """Whether ``folder``'s entries were built for any CPU of their platform."""
    return _manifest(folder).get("cpu") == PORTABLE_CPU


def shipped_mismatch() -> str | None:
    """Why the shipped kernels cannot serve this process (``"numba 0.68.1 here, 0.69.0
    built"``), or None when they can or there are none. Portable entries serve any CPU of
    their platform."""
    reasons = []
    for folder in shipped_folders():
        built = _manifest(folder)
        if not built:
            reasons.append("its manifest is unreadable")
            continue
        here = build_facts()
        skip = ("cpu", "cpu_features") if _portable(folder) else ()
        differs = [k for k in here if k not in skip and built.get(k) != here[k]]
        if not differs:
            return None  # one folder that fits serves
        key = differs[0]
        if key == "sources":
            reasons.append("the kernels' sources changed since they were built")
        else:
            reasons.append(f"{key} {here[key]} here, {built.get(key)} when they were built")
    return reasons[0] if reasons else None


def _stamp_with_sources(dispatcher):
    """Make ``dispatcher``'s cached code stale when any source of its folder changes, not
    only its own file: numba checks a kernel's own file only, so a kernel cached before a
    kernel it calls (in another file) was edited would keep running the old callee, or
    crash when the callee's signature changed. An install or upgrade rewrites every file,
    so this matters to a source checkout. Left as numba has it if numba's cache is laid
    out otherwise."""
    index = getattr(getattr(dispatcher, "_cache", None), "_cache_file", None)
    if index is not None and hasattr(index, "_source_stamp"):
        folder = os.path.dirname(os.path.abspath(inspect.getfile(dispatcher.py_func)))
        index._source_stamp = (index._source_stamp, sources_stamp(folder))
    return dispatcher


def _versions() -> str:
    import llvmlite
    import numpy

    return f"numba {numba.__version__}, llvmlite {llvmlite.__version__}, numpy {numpy.__version__}"


#: what an entry is valid for beyond its key (numba's key holds the CPU and the bytecode)
_VERSIONS = _versions()


def _generic(key):
    """numba's cache key with the CPU part made the generic CPU's (:data:`PORTABLE_CPU`,
    no feature flags), as a portable build keys its entries."""
    signature, (triple, _, _), code = key
    return signature, (triple, PORTABLE_CPU, ""), code


class CheckedCacheFile:
    """A kernel's cache entries as files no state of the cache can make crash a process.

    numba's own cache keeps an index file per kernel that maps each compiled signature to
    a data file numbered in order; two processes compiling the same kernel for different
    signatures at once both take the next number, and one's index then points at the
    other's machine code, which segfaults when called (two notebooks, Dask workers, a
    script beside a notebook). Here an entry's file is named by a digest of its key (the
    signature, the CPU and its features, the function's bytecode and the sources' stamp),
    written whole to a temporary file and renamed into place, and holds its key, which a
    load compares with the one asked for: a missing, stale, truncated, foreign or
    unreadable entry is a miss, and the kernel compiles again. There is no shared index to
    race on. Interrupts are held while kernels compile (:class:`_FirstCompile`), so Ctrl-C
    cannot cut llvmlite's object-code callback short either."""

    def __init__(self, original):
        self._cache_path = original._cache_path
        self._pattern = original._data_name_pattern.replace("{number:d}", "{digest}")
        self._source_stamp = original._source_stamp
        self._version = _VERSIONS
        self._open_for_write = original._open_for_write  # numba's: a temporary, renamed
        self._dump = original._dump

    def _name(self, key) -> str:
        text = repr((key, self._source_stamp, self._version))
        digest = hashlib.sha256(text.encode()).hexdigest()[:24]
        return self._pattern.format(digest=digest)

    def save(self, key, data) -> None:
        try:
            payload = self._dump((self._version, self._source_stamp, key, data))
            path = os.path.join(self._cache_path, self._name(key))
            with self._open_for_write(path) as f:
                f.write(pack_entry(payload))
        except Exception as error:  # a cache that cannot be written costs a compile
            log.debug("could not cache a compiled kernel: %s", error)

    def load(self, key):
        """The entry for ``key``: first among the kernels shipped with the package, then in
        this machine's cache; None (compile it) when neither holds a sound one."""
        for folder in (*shipped_folders(), self._cache_path):
            # portable code (built for the platform's generic CPU) is keyed to the generic
            # CPU: it runs on this one, which numba's key would not allow
            wanted = _generic(key) if folder != self._cache_path and _portable(folder) else key
            try:
                with open(os.path.join(folder, self._name(wanted)), "rb") as f:
                    version, stamp, stored, data = _unpack_entry(f.read())
            except Exception:  # missing, truncated or unreadable: look on, then compile
                continue
            if version == self._version and stamp == self._source_stamp and stored == wanted:
                return data
        return None

    def flush(self) -> None:
        """Nothing to flush: a stale entry is never found (its digest differs)."""


def _checked_cache(dispatcher):
    """``dispatcher`` with its cache entries in :class:`CheckedCacheFile` form, and its
    loads guarded: an entry that fails to rebuild is a miss (compiled again), never an
    exception in the caller. Left as numba has it if numba's cache is laid out otherwise."""
    cache = getattr(dispatcher, "_cache", None)
    index = getattr(cache, "_cache_file", None)
    if index is None or not hasattr(index, "_data_name_pattern"):
        return dispatcher
    cache._cache_file = CheckedCacheFile(index)
    load = cache.load_overload

    def load_overload(sig, target_context):
        try:
            return load(sig, target_context)
        except Exception as error:  # a damaged entry: compile again
            log.debug("a cached kernel could not be loaded (%s); compiling it again", error)
            return None

    cache.load_overload = load_overload
    return dispatcher


def njit(**options):
    """``numba.njit(**options)``, its cache put where it can be written (see the module)
    and made stale by a change to any source beside it (:func:`_stamp_with_sources`),
    compiled for the plain types of its arguments only (:func:`_plain_calls`)."""

    options = {"no_cfunc_wrapper": True, **options}

    def decorate(function):
        def compiled(settings):
            dispatcher = _stamp_with_sources(numba.njit(**settings)(function))
            return _plain_calls(_checked_cache(dispatcher))

        if CACHE is True or not options.get("cache"):
            return compiled(options)
        if CACHE is False:
            return compiled({**options, "cache": False})
        saved = numba.config.CACHE_DIR
        numba.config.CACHE_DIR = CACHE  # read once, when the dispatcher finds its cache
        try:
            return compiled(options)
        finally:
            numba.config.CACHE_DIR = saved

    return decorate


def _plain_calls(dispatcher):
    """``dispatcher``, typed by its callers with literal arguments made plain.

    When a kernel calls another with a variable that starts as a constant (``m = 0`` before
    a loop that counts), numba's type inference first sees the constant's literal type and
    compiles the callee for it, then compiles it again for ``int64`` once the loop is
    typed: every such call site doubled the callee's compile (and its callees'), about a
    third of a first run's compiling. The kernels never need a literal argument."""
    from numba.core import types

    typed_for = getattr(dispatcher, "get_call_template", None)
    if typed_for is None:  # NUMBA_DISABLE_JIT: the plain Python function
        return dispatcher

    def get_call_template(args, kws):
        plain = tuple(types.unliteral(a) for a in args)
        return typed_for(plain, {k: types.unliteral(v) for k, v in kws.items()})

    dispatcher.get_call_template = get_call_template
    return dispatcher


class _FirstCompile(event.Listener):
    """Logs one line when numba starts compiling a kernel of bnfs for the first time in this
    process: cached kernels load without compiling, so this happens on first use only.

    It also keeps the time a run of compiles began (compiles less than ``GAP`` seconds
    apart are one run), which :func:`compiling_for` reads for a progress line, and calls
    ``on_idle`` (if set) each time no kernel is compiling any more, before the caller's
    code goes on (so that a progress line is wiped before anything else is printed)."""

    GAP = 1.0

    def __init__(self):
        self.said = False
        self.depth = 0  # bnfs kernels being compiled now (a kernel compiles those it calls)
        self.began = None  # when the current run of compiles began
        self.last = -float("inf")  # when a compile last started or ended
        self.on_idle = None
        self.on_busy = None  # called when a kernel starts compiling while none was
        self.total = 0.0  # seconds some bnfs kernel was compiling, in this process
        self.since = None  # when the kernels began compiling, while they are
        self.main_depth = 0  # kernels compiling in the main thread, where Ctrl-C lands
        self.held = None  # the SIGINT handler set aside while they do
        self.pending = False  # a Ctrl-C came while they compiled

    @staticmethod
    def _ours(event_) -> bool:
        dispatcher = event_.data.get("dispatcher") if isinstance(event_.data, dict) else None
        module = getattr(getattr(dispatcher, "py_func", None), "__module__", "") or ""
        return module.startswith(__package__)  # bnfs._kernels

    def _hold(self, signum, frame):
        self.pending = True  # delivered when the compile is done

    def _hold_interrupts(self) -> None:
        """While the main thread compiles, a Ctrl-C waits: raised inside llvmlite's
        object-code callback it left cache entries without their machine code."""
        if threading.current_thread() is not threading.main_thread():
            return
        self.main_depth += 1
        if self.main_depth == 1:
            try:
                self.held = signal.getsignal(signal.SIGINT)
                signal.signal(signal.SIGINT, self._hold)
            except (ValueError, TypeError):  # no signals here (an embedded interpreter)
                self.held = None

    def _release_interrupts(self) -> None:
        """The compile is done: the handler back, and a Ctrl-C that came is delivered."""
        if threading.current_thread() is not threading.main_thread() or not self.main_depth:
            return
        self.main_depth -= 1
        if self.main_depth or self.held is None:
            return
        held, self.held = self.held, None
        signal.signal(signal.SIGINT, held)
        if self.pending:
            self.pending = False
            if callable(held):
                held(signal.SIGINT, None)  # Python's own raises KeyboardInterrupt
            elif held == signal.SIG_DFL:
                raise KeyboardInterrupt

    def on_start(self, event_):
        if not self._ours(event_):
            return
        self._hold_interrupts()
        now = time.perf_counter()
        if self.depth == 0 and now - self.last > self.GAP:
            self.began = now
        self.depth += 1
        if self.depth == 1:
            self.since = now
            if self.on_busy is not None:
                self.on_busy()
        self.last = now
        if not self.said:
            self.said = True
            if CACHE is False:
                compile_log.info(
                    "compiling the numba kernels (not cached: every run compiles them again)"
                )
            elif shipped_folders():
                why = shipped_mismatch()
                if why:  # loud, in Python too (the "bnfs" logger is silent unconfigured)
                    warnings.warn(
                        "bnfs: compiling numba kernels this install did not build (its "
                        f"compiled kernels do not fit this machine: {why}); the answers are "
                        "the same; run `bnfs warmup` once to compile them all here",
                        RuntimeWarning,
                        stacklevel=2,
                    )
                else:
                    compile_log.info(
                        "compiling numba kernels this install did not build (a call path "
                        "of its own: once, then cached)"
                    )
            else:
                compile_log.info(
                    "compiling the numba kernels for their first use: each learner and "
                    "kind of data (discrete, continuous, mixed, with gaps) compiles its own "
                    "once, from seconds to a few minutes; later runs load them from the "
                    "cache (`bnfs warmup` compiles them all at once, a process per core)"
                )

    def on_end(self, event_):
        if self._ours(event_):
            self.depth = max(0, self.depth - 1)
            self.last = time.perf_counter()
            if self.depth == 0 and self.since is not None:
                self.total += self.last - self.since
                self.since = None
            if self.depth == 0 and self.on_idle is not None:
                self.on_idle()
            self._release_interrupts()

    def compiling_for(self) -> float | None:
        """Seconds since the current run of compiles began, or None when no kernel is
        compiling."""
        if self.depth == 0 or self.began is None:
            return None
        return time.perf_counter() - self.began


_COMPILES = _FirstCompile()
event.register("numba:compile", _COMPILES)


def compiling_for() -> float | None:
    """Seconds the kernels have been compiling (a run of compiles less than a second
    apart), or None when none is compiling: for a progress line on first use."""
    return _COMPILES.compiling_for()


def compile_seconds() -> float:
    """Seconds bnfs's kernels have spent compiling in this process so far (wall time, the
    kernels a kernel compiles counted once; loading one from the cache is not compiling):
    the learners record the part of a call spent so as ``learning["compile_seconds"]``,
    apart from its ``seconds``."""
    compiles = _COMPILES
    running = 0.0 if compiles.since is None else time.perf_counter() - compiles.since
    return compiles.total + running


def on_compiles_done(callback) -> None:
    """Call ``callback()`` whenever the kernels stop compiling (None: no call)."""
    _COMPILES.on_idle = callback


def on_compiles_start(callback) -> None:
    """Call ``callback()`` whenever a kernel starts compiling while none was (None: no
    call); it runs in the compiling thread, before the compile."""
    _COMPILES.on_busy = callback


def entry_point(kernel, args: tuple):
    """The machine code a kernel runs for ``args`` (the kernel itself while it has none,
    or when compiling is off): calling it skips the dispatcher's typing of every argument,
    which for the searches' bundles of dozens of arrays takes about 0.5 ms a call, more
    than one of BOSS's moves on a network of 40 nodes. Call the kernel once first; the
    caller must pass arguments of the same types afterwards."""
    overloads = getattr(kernel, "overloads", None)
    if not overloads:
        return kernel
    found = overloads.get(tuple(kernel.typeof_pyval(a) for a in args))
    return kernel if found is None else found.entry_point
