"""Where a match's games run: in this process, in threads, in a process pool or as Ray tasks, streamed back as they finish.

Every backend takes a function and its jobs (one game each) and yields
(job index, outcome) in finishing order, the outcome being the function's
return value or the exception it raised (the caller decides what a failure
means); `cancel()` stops every job still queued or running, so a caller
that has seen enough (an SPRT decision, Ctrl-C) ends the stream early.
search.arena.runner.run_match and tne_ai.referee.match's referee both play through them.

- `SerialBackend`: one job after another in this process.
- `ThreadBackend(jobs)`: threads, for games that wait on engine processes
  (the referee's default).
- `ProcessBackend(jobs)`: a spawned process pool (the arena's default for
  jobs > 1); cancel terminates it. Needs no Ray. The jobs a dead worker
  takes down are played again in a fresh pool, and one at a time once a
  pool finishes none of them; only the one that keeps killing its process
  is a `JobLost`.
- `RayBackend(address)`: one Ray task per job (`pip install -e '.[cluster]'`),
  on a local Ray instance or a cluster (docs/cluster.md). A job whose worker
  process dies is replayed on another worker (Ray's task retries, `retries`
  times); once retries are exhausted its outcome is a `JobLost` and the
  other jobs go on. The function and the jobs must be importable by the
  workers (module-level functions, classes, functools.partial).
"""
from __future__ import annotations

import concurrent.futures
import contextlib
import multiprocessing as mp
import os
import queue
import threading
from typing import Callable, Iterable, Iterator, Optional

POLL = 0.25              # seconds between calls of a stream's poll() while nothing finishes
CANCEL_GRACE = 3.0       # seconds a cancelled Ray task has to clean up before its worker is killed
SANITIZER_VARS = ("LD_PRELOAD", "ASAN_OPTIONS", "UBSAN_OPTIONS")
BACKENDS = ("process", "ray")


class JobLost(Exception):
    """A job produced no result: its worker died (after every replay) or it was cancelled."""


class BackendError(RuntimeError):
    """The backend cannot run any job (its worker processes cannot start)."""


class Backend:
    """Runs jobs and streams their outcomes back as they finish."""

    name = "serial"

    def stream(self, fn: Callable, jobs: Iterable, poll: Optional[Callable] = None) -> Iterator[tuple]:
        """Run fn(job) for every job; yield (index, result or exception) as each finishes."""
        raise NotImplementedError

    def cancel(self) -> None:
        """Stop every job not yet finished; the stream then ends."""

    def close(self) -> None:
        """Release the workers (the stream must be finished or cancelled)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


class SerialBackend(Backend):
    """Play the jobs one after another in this process."""

    name = "serial"

    def __init__(self):
        self._cancelled = False

    def stream(self, fn, jobs, poll=None):
        """Run each job in turn; an exception is yielded as the job's outcome."""
        for i, job in enumerate(jobs):
            if self._cancelled:
                return
            try:
                out = fn(job)
            except Exception as e:  # noqa: BLE001 - the caller decides what a failed job means
                out = e
            yield i, out
            if poll is not None:
                poll()

    def cancel(self):
        """Start no further job."""
        self._cancelled = True


class _QueueBackend(Backend):
    """Shared streaming: workers put (index, outcome) on a queue that stream() drains."""

    def _drain(self, results: queue.Queue, pending: set, poll):
        while pending and not self._cancelled:
            try:
                i, out = results.get(timeout=POLL)
            except queue.Empty:
                if poll is not None:
                    poll()
                continue
            pending.discard(i)
            yield i, out
            if poll is not None:
                poll()


class ThreadBackend(_QueueBackend):
    """Play `jobs` jobs at once in threads of this process (for games that wait on engine processes)."""

    name = "thread"

    def __init__(self, jobs: int = 1):
        self.jobs = jobs
        self._pool: Optional[concurrent.futures.ThreadPoolExecutor] = None
        self._futures: list = []
        self._cancelled = False

    def stream(self, fn, jobs, poll=None):
        """Submit every job to the threads; yield outcomes as they finish."""
        results: queue.Queue = queue.Queue()
        self._cancelled = False
        if self._pool is None:
            self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=self.jobs, thread_name_prefix="game")

        def run(i, job):
            try:
                results.put((i, fn(job)))
            except BaseException as e:  # noqa: BLE001
                results.put((i, e))

        jobs = list(jobs)
        self._futures = [self._pool.submit(run, i, job) for i, job in enumerate(jobs)]
        yield from self._drain(results, set(range(len(jobs))), poll)

    def cancel(self):
        """Drop the queued jobs; running ones finish (the caller tells them to stop)."""
        self._cancelled = True
        for fut in self._futures:
            fut.cancel()

    def close(self):
        """Wait for the running threads."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


def _call(fn, job):
    return fn(job)


def _nothing(job):
    return job


PARENT_CHECK = 1.0      # seconds between a pool worker's looks at its parent


def exit_with_parent(parent: int) -> None:
    """Start a thread that ends this pool worker once its parent process is gone."""
    # A parent killed outright (SIGKILL, a crash) cannot shut its pool down, and an
    # idle worker blocked on the job queue would otherwise wait for ever.
    def watch():
        while os.getppid() == parent:
            threading.Event().wait(PARENT_CHECK)
        os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


class ProcessBackend(_QueueBackend):
    """Play `jobs` jobs at once in a spawned process pool (fn and jobs must pickle).

    A worker that dies (killed, out of memory) breaks the pool and every job
    not finished: those jobs go to a fresh pool, and once a pool fails as
    many as the one before they are played one at a time in a fresh single process,
    so the one that kills its process is found and, after `retries` more
    deaths, reported as a `JobLost`; the others go on.
    When a fresh process cannot even run an empty job, no job can run:
    BackendError, before any replay.
    """

    name = "process"

    def __init__(self, jobs: int = 2, retries: int = 1):
        self.jobs = jobs
        self.retries = retries
        self._pool: Optional[concurrent.futures.ProcessPoolExecutor] = None
        self._cancelled = False

    def _new_pool(self, workers: int) -> concurrent.futures.ProcessPoolExecutor:
        return concurrent.futures.ProcessPoolExecutor(workers, mp_context=mp.get_context("spawn"),
                                                      initializer=exit_with_parent, initargs=(os.getpid(),))

    def _wait(self, futures: dict, poll):
        """Yield (future, index) as futures finish; call poll while none does."""
        waiting = set(futures)
        while waiting and not self._cancelled:
            done, waiting = concurrent.futures.wait(waiting, timeout=POLL,
                                                    return_when=concurrent.futures.FIRST_COMPLETED)
            if not done and poll is not None:
                poll()
            for fut in done:
                yield fut, futures[fut]

    def stream(self, fn, jobs, poll=None):
        """Submit every job to the pool; yield outcomes as they finish, replaying those a dead worker took down.

        A death breaks the pool and fails every job not finished, queued ones
        included: they go to a fresh pool of the same size as long as fewer
        fail each time, so one death in a long match does not leave the rest
        of it to a single process; when a pool fails as many as the one
        before, what is left is replayed one job at a time.
        """
        self._cancelled = False
        jobs = list(jobs)
        todo = list(range(len(jobs)))
        failed_before = len(jobs) + 1
        while todo and not self._cancelled:
            if self._pool is None:          # one pool for every stream until close() or cancel()
                self._pool = self._new_pool(self.jobs)
            broken = []
            yield from self._round(fn, jobs, todo, poll, broken)
            if not broken or self._cancelled:
                return
            self._shutdown()
            self._check_workers_start()
            if len(broken) >= failed_before:
                yield from self._replay(fn, jobs, sorted(broken), poll)
                return
            failed_before = len(broken)
            todo = sorted(broken)

    def _round(self, fn, jobs, indices, poll, broken):
        """Run the jobs `indices` in the pool; yield their outcomes and list in `broken` those a dead worker failed."""
        from concurrent.futures.process import BrokenProcessPool
        futures = {self._pool.submit(_call, fn, jobs[i]): i for i in indices}
        for fut, i in self._wait(futures, poll):
            try:
                out = fut.result()
            except BrokenProcessPool:
                broken.append(i)
                continue
            except Exception as e:  # noqa: BLE001 - the caller decides what a failed job means
                out = e
            yield i, out
            if poll is not None:
                poll()

    def _check_workers_start(self):
        """Raise BackendError unless a fresh worker process runs an empty job."""
        from concurrent.futures.process import BrokenProcessPool
        self._pool = self._new_pool(1)
        try:
            self._pool.submit(_call, _nothing, None).result()
        except BrokenProcessPool as e:
            raise BackendError(
                f"the process pool's workers cannot start ({e}); a spawned worker imports the main "
                "script, so run it from a file or with -m, not from standard input") from None
        finally:
            self._shutdown()

    def _replay(self, fn, jobs, indices, poll):
        """Play each job again alone; one whose process dies retries + 1 times in all is lost."""
        from concurrent.futures.process import BrokenProcessPool
        for i in indices:
            deaths = 0
            while not self._cancelled:
                self._pool = self._new_pool(1)
                futures = {self._pool.submit(_call, fn, jobs[i]): i}
                outcome = None
                for fut, _ in self._wait(futures, poll):
                    try:
                        outcome = (fut.result(),)
                    except BrokenProcessPool:
                        deaths += 1
                    except Exception as e:  # noqa: BLE001
                        outcome = (e,)
                self._shutdown()
                if outcome is not None:
                    yield i, outcome[0]
                    break
                if deaths > self.retries:
                    yield i, JobLost(f"job {i}: its worker process died {deaths} times")
                    break

    def _shutdown(self, kill: bool = False):
        pool, self._pool = self._pool, None
        if pool is None:
            return
        if kill:
            for proc in list((getattr(pool, "_processes", None) or {}).values()):
                with contextlib.suppress(Exception):
                    proc.terminate()
        pool.shutdown(wait=True, cancel_futures=True)

    def cancel(self):
        """Terminate the pool's processes."""
        self._cancelled = True
        self._shutdown(kill=True)

    def close(self):
        """Wait for the pool's processes and release them."""
        self._shutdown()


# ---------------------------------------------------------------- Ray

def _ray():
    try:
        import ray
    except ImportError:
        raise RuntimeError("the Ray backend needs Ray: pip install -e '.[cluster]' (or pip install ray)") from None
    return ray


@contextlib.contextmanager
def _without_sanitizer_preload():
    """Hide the debug build's sanitizer preload (.ci/run) from the processes started inside: Ray's own do not take it."""
    saved = {k: os.environ.pop(k) for k in SANITIZER_VARS if k in os.environ}
    try:
        yield saved
    finally:
        os.environ.update(saved)


def start_ray(address: Optional[str] = None, num_cpus: Optional[int] = None, env: Optional[dict] = None) -> bool:
    """Start or join Ray unless this process already has; return True when this call connected it.

    `address` None starts a local instance, or joins the one `ray start`
    left on this machine (or RAY_ADDRESS); "host:port" joins that cluster.
    `num_cpus` applies to a local instance started here. Ray's daemons are
    started without the sanitizer preload of the debug pass (they are no
    code of ours); the task workers get it back through their runtime
    environment, because the debug build of the kernels needs the sanitizer
    runtime loaded first. `env`: more environment variables for the workers.
    """
    ray = _ray()
    if ray.is_initialized():
        return False
    with _without_sanitizer_preload() as preload:
        env_vars = dict(preload)
        env_vars.update(env or {})
        kwargs = {"include_dashboard": False, "log_to_driver": False,
                  "runtime_env": {"env_vars": env_vars} if env_vars else None}
        if address is None and num_cpus is not None and not os.environ.get("RAY_ADDRESS"):
            kwargs["num_cpus"] = num_cpus
        ray.init(address=address, **kwargs)
    return True


class RayBackend(Backend):
    """Play every job as a Ray task (one CPU each) on a local Ray instance or a cluster."""

    name = "ray"

    def __init__(self, address: Optional[str] = None, num_cpus: Optional[int] = None, retries: int = 2):
        """Connect (start_ray) unless connected; a job whose worker dies is replayed up to `retries` times."""
        self.retries = retries
        self._owner = start_ray(address, num_cpus)
        self._remote = None
        self._refs: dict = {}
        self._cancelled = False

    def stream(self, fn, jobs, poll=None):
        """Submit one task per job; yield outcomes as tasks finish (JobLost for a worker that kept dying)."""
        ray = _ray()
        from ray.exceptions import RayTaskError, TaskCancelledError
        self._cancelled = False
        if self._remote is None:
            self._remote = ray.remote(num_cpus=1, max_retries=self.retries, retry_exceptions=False)(_call)
        fn_ref = ray.put(fn)
        self._refs = {self._remote.remote(fn_ref, job): i for i, job in enumerate(jobs)}
        while self._refs and not self._cancelled:
            ready, _ = ray.wait(list(self._refs), num_returns=1, timeout=POLL)
            for ref in ready:
                i = self._refs.pop(ref, None)
                if i is None:
                    continue
                try:
                    out = ray.get(ref)
                except TaskCancelledError as e:
                    out = JobLost(f"cancelled: {e}")
                except RayTaskError as e:
                    out = e.as_instanceof_cause()
                    cause = getattr(e, "cause", None)
                    if isinstance(cause, BaseException):
                        out = cause
                except Exception as e:  # noqa: BLE001 - WorkerCrashedError and kin: the worker died for good
                    out = JobLost(f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
                yield i, out
                if self._cancelled:
                    return
            if poll is not None:
                poll()

    def cancel(self):
        """Cancel every task still queued or running; kill the worker of one still running after CANCEL_GRACE s.

        A running task first gets a KeyboardInterrupt, so its cleanup (the
        referee's killing of its engines) runs; one blocked in C code
        never sees it, hence the kill.
        """
        self._cancelled = True
        ray = _ray()
        refs = list(self._refs)
        self._refs = {}
        for ref in refs:
            try:
                ray.cancel(ref, force=False)
            except Exception:  # noqa: BLE001 - already finished
                pass
        if not refs:
            return
        _, running = ray.wait(refs, num_returns=len(refs), timeout=CANCEL_GRACE)
        for ref in running:
            try:
                ray.cancel(ref, force=True)
            except Exception:  # noqa: BLE001
                pass

    def close(self):
        """Shut Ray down if this backend started it."""
        if self._owner:
            _ray().shutdown()
            self._owner = False


def make_backend(name: str, jobs: int = 1, address: Optional[str] = None, threads: bool = False) -> Backend:
    """Return the backend called `name` ("process" or "ray"); "process" with jobs 1 plays in this process.

    `threads`: the local backend uses threads rather than processes (games
    that only wait on engine processes).
    """
    if name == "ray":
        return RayBackend(address=address, num_cpus=jobs if jobs > 1 else None)
    if name != "process":
        raise ValueError(f"unknown backend {name!r} (backends: {', '.join(BACKENDS)})")
    if address is not None:
        raise ValueError("--ray-address needs --backend ray")
    if jobs <= 1:
        return SerialBackend()
    return ThreadBackend(jobs) if threads else ProcessBackend(jobs)
