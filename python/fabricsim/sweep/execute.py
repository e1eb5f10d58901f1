"""Running a sweep's pending points on an executor — a local process pool or Dask distributed —
with a progress bar, and surviving interruptions: every finished run is already in the store, so
the next invocation runs only what is missing."""

from __future__ import annotations

import os
import signal
import sys
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from .spec import Point, Sweep
from .store import Store, execute_point


@dataclass
class SweepRun:
    """What one invocation did."""

    total: int
    skipped: int
    done: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    interrupted: bool = False
    wall_s: float = 0.0

    @property
    def remaining(self) -> int:
        return self.total - self.skipped - len(self.done) - len(self.failed)


def _worker_signals(parent: int) -> None:
    # Workers leave Ctrl-C to the parent, which stops them, and die at once on SIGTERM (the
    # parent's flag handler, inherited through fork, would keep them running). A half-done run is
    # never stored either way.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    # The sweep prints the first point's scenario warnings once; a copy per run is noise.
    import warnings

    from ..errors import ScenarioWarning

    warnings.simplefilter("ignore", ScenarioWarning)
    die_with_parent(parent)


def die_with_parent(parent: int, poll_s: float = 1.0) -> None:
    """End this (worker) process when `parent` dies, even by SIGKILL: the kernel's parent-death
    signal on Linux, and everywhere a daemon thread that notices the process was re-parented."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            PR_SET_PDEATHSIG = 1
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:  # the parent died before the signal was armed
        os._exit(1)

    def watch() -> None:
        while True:
            time.sleep(poll_s)
            if os.getppid() != parent:
                os._exit(1)

    import threading

    threading.Thread(target=watch, name="fabricsim-parent-watch", daemon=True).start()


class _LiveManifest:
    """Keeps DIR/manifest.json current while runs finish, so that a reader in the middle of a long
    sweep sees the runs done so far; rewritten at most every `interval_s` (the whole point list is
    rewritten each time), and once more, unconditionally, when the batch ends."""

    def __init__(self, store, points: list, status: dict[str, str], interval_s: float = 5.0):
        self.store, self.points, self.status, self.interval_s = store, points, status, interval_s
        self.last = -float("inf")

    def record(self, key: str, status: str) -> None:
        self.status[key] = status
        if time.monotonic() - self.last >= self.interval_s:
            self.write()

    def write(self) -> None:
        self.store.write_manifest(self.points, self.status)
        self.last = time.monotonic()


class _Progress:
    def __init__(self, total: int, enabled: bool, desc: str, on_record=None):
        self.bar = None
        self.on_record = on_record
        self.done = self.failed = 0
        if enabled and total:
            from tqdm import tqdm

            self.bar = tqdm(total=total, unit="run", desc=desc, file=sys.stderr, dynamic_ncols=True)

    def update(self, key: str, status: str, running: int) -> None:
        if self.on_record is not None:
            self.on_record(key, status)
        if status == "done":
            self.done += 1
        else:
            self.failed += 1
        if self.bar is not None:
            self.bar.set_postfix_str(f"done {self.done}, failed {self.failed}, running {running}", refresh=False)
            self.bar.update()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _local(out: str, todo: list[Point], workers: int, progress: _Progress, result: SweepRun) -> None:
    # Ctrl-C and SIGTERM only raise a flag here, read between waits: raised as an exception they
    # could land inside the pool's fork handlers or its threads' bookkeeping (printed as
    # "Exception ignored", or lost), and a process-directed signal can be delivered to any of our
    # threads. Workers forked before their initializer runs inherit this handler, which then only
    # sets a flag in the worker's own memory.
    stop: list[int] = []
    held = {}
    if _main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM):
            held[sig] = signal.signal(sig, lambda signum, frame: stop.append(signum))

    def check() -> None:
        if stop:
            raise KeyboardInterrupt

    pending = list(todo)
    ex = None
    try:
        while pending:
            check()
            ex = ProcessPoolExecutor(max_workers=workers, initializer=_worker_signals, initargs=(os.getpid(),))
            futs = {ex.submit(execute_point, out, p.key, p.scenario, p.params): p for p in pending}
            pending = []
            live = set(futs)
            while live:
                finished, live = wait(live, timeout=0.1, return_when=FIRST_COMPLETED)
                check()
                for f in finished:
                    try:
                        _record(f.result(), result, progress, len(live))
                    except BrokenProcessPool:
                        # A worker died (crash, OOM kill) and took the pool down: the runs that
                        # were in flight are recorded as failed (retried next time); the ones that
                        # never started go to a fresh pool.
                        for g in list(live) + [f]:
                            if g.running() or g.done():
                                _record({"key": futs[g].key, "status": "failed",
                                         "error": "a worker process died while this run was in flight"}, result, progress, 0)
                            else:
                                pending.append(futs[g])
                        live = set()
                        break
            ex.shutdown(wait=True)
            ex = None
    except BaseException:
        if ex is not None:
            _stop_pool(ex)
        raise
    finally:
        for sig, old in held.items():
            signal.signal(sig, old)


def _stop_pool(ex: ProcessPoolExecutor) -> None:
    procs = list((getattr(ex, "_processes", None) or {}).values())
    # Taken before shutdown, which forgets it.
    manager = getattr(ex, "_executor_manager_thread", None)
    ex.shutdown(wait=False, cancel_futures=True)
    for proc in procs:
        if proc.is_alive():
            proc.terminate()
    # The manager thread closes its wake-up pipe once it sees the workers gone; the interpreter's
    # exit hook writes to that pipe, and racing the close it printed "Exception ignored ... Bad
    # file descriptor" after a Ctrl-C early in a sweep. Let the close finish first.
    if manager is not None:
        manager.join(timeout=10)


def _dask_die_with(pid: int) -> None:
    """In a Dask worker of our own LocalCluster: end when the sweep's process `pid` is gone."""
    import threading

    def watch() -> None:
        while True:
            time.sleep(1.0)
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                os._exit(1)
            except PermissionError:
                pass

    threading.Thread(target=watch, name="fabricsim-sweep-watch", daemon=True).start()


def _dask(out: str, todo: list[Point], workers: int, scheduler: Optional[str], client, progress: _Progress, result: SweepRun) -> None:
    try:
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise RuntimeError("the Dask executor needs dask.distributed: pip install 'dask[distributed]' (or fabricsim[dask])") from None
    own = client is None
    cluster = None
    if own:
        if scheduler:
            client = Client(scheduler)
        else:
            cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None)
            client = Client(cluster)
            # Our own cluster's workers are our children: they go when we go, even by SIGKILL.
            client.run(_dask_die_with, os.getpid())
    futs = []
    try:
        futs = [client.submit(execute_point, out, p.key, p.scenario, p.params, key=f"fabricsim-{p.key}", pure=False) for p in todo]
        by_key = {f.key: p for f, p in zip(futs, todo)}
        running = len(futs)
        for f in as_completed(futs):
            running -= 1
            try:
                r = f.result()
            except Exception as e:  # noqa: BLE001 - KilledWorker and friends: record, go on
                r = {"key": by_key[f.key].key, "status": "failed", "error": f"{type(e).__name__}: {e}"}
            _record(r, result, progress, running)
    except BaseException:
        for f in futs:
            f.cancel()
        raise
    finally:
        if own:
            client.close()
            if cluster is not None:
                cluster.close()


def _record(r: dict, result: SweepRun, progress: _Progress, running: int) -> None:
    if r["status"] == "done":
        result.done.append(r["key"])
    else:
        result.failed[r["key"]] = r.get("error", "")
    progress.update(r["key"], r["status"], running)


def run_sweep(sweep: Sweep, output: str | os.PathLike, *, executor: str = "local", workers: Optional[int] = None,
              scheduler: Optional[str] = None, client=None, progress: Optional[bool] = None, retry_failed: bool = True,
              overwrite: bool = False) -> SweepRun:
    """Run every point of `sweep` not yet finished in the store at `output`.

    executor: "local" (a process pool of `workers`, default all cores) or "dask" (an existing
    `client`, a scheduler address such as "tcp://host:8786" — e.g. from dask-jobqueue's
    SLURMCluster — or a LocalCluster of `workers` processes). Failed points are recorded in the
    store and retried on the next invocation unless retry_failed is False. Ctrl-C or SIGTERM stops
    the sweep; finished runs stay, and the next invocation completes the rest.

    The store belongs to one sweep: another sweep or an edited base scenario is refused with a
    SweepError unless `overwrite` (which empties the store first); a second writer at the same
    time is refused too (the store is locked for the whole call).
    """
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        from ..errors import UsageError

        raise UsageError(f"workers {workers!r} is not a count of processes; give 1 or more (or None for all cores)")
    points = sweep.points()
    # Absolute: Dask workers may run elsewhere, with another working directory.
    store = Store(Path(output).resolve())
    definition = sweep.describe()
    store.lock()
    try:
        store.prepare(definition, overwrite=overwrite)
        return _run_locked(sweep, points, store, executor, workers, scheduler, client, progress, retry_failed)
    finally:
        store.unlock()


def _run_locked(sweep, points, store, executor, workers, scheduler, client, progress, retry_failed) -> SweepRun:
    done = store.done_keys()
    failed_before = store.failed()
    todo = [p for p in points if p.key not in done and (retry_failed or p.key not in failed_before)]
    result = SweepRun(total=len(points), skipped=len(points) - len(todo))
    workers = workers or os.cpu_count() or 1
    if progress is None:
        progress = sys.stderr.isatty()
    status = {k: "done" for k in done} | {k: "failed" for k in failed_before if k not in done}
    manifest = _LiveManifest(store, points, status)
    manifest.write()
    bar = _Progress(len(todo), progress, sweep.name, on_record=manifest.record)
    t0 = time.perf_counter()
    old_term = signal.getsignal(signal.SIGTERM)

    def on_term(signum, frame):
        raise KeyboardInterrupt

    in_main = _main_thread()
    if in_main:
        signal.signal(signal.SIGTERM, on_term)
    try:
        if executor == "local":
            _local(str(store.dir), todo, workers, bar, result)
        elif executor == "dask":
            _dask(str(store.dir), todo, workers, scheduler, client, bar, result)
        else:
            raise ValueError(f"executor '{executor}' is not 'local' or 'dask'")
    except KeyboardInterrupt:
        result.interrupted = True
    finally:
        # A second Ctrl-C while the manifest and the table are written would leave a traceback
        # and a store whose manifest lags its runs: these few writes finish first.
        old_int = signal.signal(signal.SIGINT, signal.SIG_IGN) if in_main else None
        try:
            if in_main:
                signal.signal(signal.SIGTERM, old_term)
            bar.close()
            result.wall_s = time.perf_counter() - t0
            status.update({k: "done" for k in result.done})
            status.update({k: "failed" for k in result.failed})
            manifest.write()
            store.combined()
        finally:
            if in_main:
                signal.signal(signal.SIGINT, old_int)
    return result


def _main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()
