"""search.arena.backends: the local backends and a real local Ray instance playing arena matches, a killed worker, cancelling.

One Ray instance (2 CPUs) serves the whole module and is shut down at the
end. This directory goes on the workers' PYTHONPATH so that they can import
the agents defined here.
"""
import functools
import os
import signal
import threading
import time

import pytest

from orphans import pids_left_after_sigkill
from search.arena.runner import run_match
from search.arena.backends import (BackendError, JobLost, ProcessBackend, RayBackend, SerialBackend, ThreadBackend, make_backend,
                             start_ray)
from search.baselines import GreedyAgent, RandomAgent
from search.arena.sprt import SprtSpec

HERE = os.path.dirname(os.path.abspath(__file__))
FACTORIES = {"greedy": GreedyAgent, "random": RandomAgent}


def square(x):
    if x < 0:
        raise ValueError("negative")
    return x * x


class KillMe(RandomAgent):
    """A random agent that, the first time one is made (it wins the claim file), writes its pid to `marker` and waits to be killed."""

    def __init__(self, marker: str, seed: int = 0):
        try:
            os.close(os.open(marker + ".claim", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            pass
        else:
            tmp = f"{marker}.{os.getpid()}"
            with open(tmp, "w") as f:
                f.write(str(os.getpid()))
            os.replace(tmp, marker)
            time.sleep(120)
        super().__init__(seed)


class Slow(RandomAgent):
    """A random agent that sleeps before each decision."""

    def choose(self, limits=None):
        time.sleep(0.02)
        return super().choose()


def kill_when_marked(marker: str, timeout: float = 60.0) -> threading.Thread:
    """Kill the process whose pid appears in `marker` (SIGKILL), from a thread."""

    def run():
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if os.path.exists(marker):
                os.kill(int(open(marker).read()), signal.SIGKILL)
                return
            time.sleep(0.05)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


def outcomes(res):
    return [(g.names, g.ranks, g.scores, g.decisions) for g in res.games]


@pytest.mark.parametrize("backend", [SerialBackend, functools.partial(ThreadBackend, 2),
                                     functools.partial(ProcessBackend, 2)])
def test_local_backends_stream_results_and_exceptions(backend):
    with backend() as b:
        got = dict(b.stream(square, [1, 2, -1, 3]))
    assert {i: v for i, v in got.items() if i != 2} == {0: 1, 1: 4, 3: 9}
    assert isinstance(got[2], ValueError)


def die_at_3(job):
    """Square x, except that job 3 kills its own process (every time, or once: while `marker` is absent)."""
    x, marker = job
    if x == 3 and (marker is None or not os.path.exists(marker)):
        if marker is not None:
            open(marker, "w").close()
        os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(0.2)             # the other jobs are running when 3 dies
    return x * x


@pytest.mark.slow
def test_a_dead_pool_worker_replays_only_the_games_it_took_down(tmp_path):
    """Job 3 dies once: the pool breaks, the jobs it took down are played again and every result comes back."""
    marker = str(tmp_path / "died")
    with ProcessBackend(2) as b:
        got = dict(b.stream(die_at_3, [(x, marker) for x in range(6)]))
    assert os.path.exists(marker)
    assert got == {x: x * x for x in range(6)}
    with ProcessBackend(2) as b:               # the pool works after a replay
        assert dict(b.stream(square, [4])) == {0: 16}


@pytest.mark.slow
def test_a_pool_worker_that_dies_for_good_loses_only_its_game():
    with ProcessBackend(2, retries=1) as b:
        got = dict(b.stream(die_at_3, [(x, None) for x in range(6)]))
    assert isinstance(got.pop(3), JobLost)
    assert got == {x: x * x for x in range(6) if x != 3}


@pytest.mark.slow
def test_a_killed_pool_worker_loses_only_its_game_and_the_match_ends(tmp_path):
    """A pool worker killed from outside (SIGKILL) in the middle of a match: its game is played again, the match ends."""
    marker = str(tmp_path / "pid")
    factories = {"a": functools.partial(KillMe, marker), "b": RandomAgent}
    killer = kill_when_marked(marker)
    res = run_match(factories, games=4, players=2, seed=9, backend=ProcessBackend(2))
    killer.join(timeout=1)
    assert os.path.exists(marker)                 # one worker was killed ...
    assert len(res.games) == 4 and res.lost == []  # ... and its game was played again, the rest as they were
    local = run_match(factories, games=4, players=2, seed=9)
    assert outcomes(res) == outcomes(local)


def die_once_then_meet(job):
    """Job 0 kills its own process once (while `marker` is absent); then each job waits to see another one
    running beside it (or that one already did) and returns whether anyone did.

    One job at a time never meets another: each would wait out its 60 s and return False.
    """
    x, marker = job
    if x == 0 and not os.path.exists(marker):
        open(marker, "w").close()
        os.kill(os.getpid(), signal.SIGKILL)
    folder = os.path.dirname(marker)
    mine = os.path.join(folder, f"running-{x}")
    met = os.path.join(folder, "met")
    with open(mine, "w") as f:
        f.write(str(os.getpid()))

    def alive(name):        # a job killed with its pool leaves its file behind
        try:
            os.kill(int(open(os.path.join(folder, name)).read()), 0)   # an empty file: ValueError
            return True
        except (OSError, ValueError):
            return False
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if len([f for f in os.listdir(folder) if f.startswith("running-") and alive(f)]) >= 2:
                open(met, "w").close()
                return True
            if os.path.exists(met):
                return True
            time.sleep(0.01)
        return False
    finally:
        os.remove(mine)


@pytest.mark.slow
def test_after_a_death_the_pool_keeps_running_jobs_side_by_side(tmp_path):
    """One death must not leave the rest of a long match to one process at a time: the replayed jobs overlap."""
    marker = str(tmp_path / "died")
    with ProcessBackend(2) as b:
        got = dict(b.stream(die_once_then_meet, [(x, marker) for x in range(8)]))
    assert os.path.exists(marker)
    assert got == {x: True for x in range(8)}


def worker_pid(rendezvous: str) -> int:
    """Return this worker's pid once two workers have each taken a job (so both are alive, however slow the start)."""
    open(os.path.join(rendezvous, str(os.getpid())), "w").close()
    deadline = time.monotonic() + 120
    while len(os.listdir(rendezvous)) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    return os.getpid()


@pytest.mark.slow
def test_pool_workers_exit_when_their_parent_is_killed(tmp_path):
    """A match killed outright (SIGKILL) leaves no idle pool worker behind."""
    pids, left = pids_left_after_sigkill(
        "import os, signal\n"
        "from search.arena.backends import ProcessBackend\n"
        "from test_backends import worker_pid\n"
        "b = ProcessBackend(2)\n"
        f"d = {str(tmp_path)!r}\n"
        "print(' '.join(str(p) for p in sorted({p for _, p in b.stream(worker_pid, [d] * 6)})), flush=True)\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n")
    assert len(pids) == 2 and left == []


class NoWorkerStarts(ProcessBackend):
    """A process pool whose every worker dies as it starts (as when the main script cannot be imported)."""

    def _new_pool(self, workers):
        import concurrent.futures
        import multiprocessing
        return concurrent.futures.ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                                                      initializer=os._exit, initargs=(3,))


def test_a_pool_whose_workers_cannot_start_fails_at_once_with_one_error():
    with NoWorkerStarts(2) as b:
        with pytest.raises(BackendError, match="workers cannot start"):
            list(b.stream(square, range(5)))


def test_make_backend():
    assert isinstance(make_backend("process", 1), SerialBackend)
    assert isinstance(make_backend("process", 2), ProcessBackend)
    assert isinstance(make_backend("process", 2, threads=True), ThreadBackend)
    with pytest.raises(ValueError):
        make_backend("mpi")
    with pytest.raises(ValueError):
        make_backend("process", 2, address="10.0.0.1:6379")


# ---------------------------------------------------------------- Ray

@pytest.fixture(scope="module")
def ray_instance():
    import ray                 # the [test] extra installs it: no skip
    path = os.pathsep.join(p for p in (HERE, os.environ.get("PYTHONPATH")) if p)
    assert start_ray(num_cpus=2, env={"PYTHONPATH": path})
    yield ray
    ray.shutdown()


@pytest.mark.slow
def test_ray_match_equals_the_local_match(ray_instance):
    local = run_match(FACTORIES, games=4, players=2, seed=5)
    remote = run_match(FACTORIES, games=4, players=2, seed=5, backend=RayBackend())
    assert outcomes(remote) == outcomes(local) and remote.lost == []


@pytest.mark.slow
def test_ray_daemons_do_not_get_the_sanitizer_preload(ray_instance):
    # The debug pass (.ci/run) preloads ASan/UBSan: Ray's daemons run without it, its task workers
    # with it (the debug kernels need it), as start_ray arranges.
    preload = os.environ.get("LD_PRELOAD")
    env = dict(RayBackend().stream(os.environ.get, ["LD_PRELOAD"]))[0]
    assert env == preload
    daemons = 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")[0]
            environ = open(f"/proc/{pid}/environ", "rb").read().split(b"\0")
        except OSError:
            continue
        if os.path.basename(cmdline) in (b"raylet", b"gcs_server"):
            daemons += 1
            # (Ray preloads its own jemalloc into them: only the sanitizers must stay out)
            assert not [v for v in environ if v.startswith(b"LD_PRELOAD=") and b"san" in v]
    assert daemons >= 2


@pytest.mark.slow
def test_a_killed_ray_worker_replays_only_its_game(ray_instance, tmp_path):
    marker = str(tmp_path / "pid")
    factories = {"a": functools.partial(KillMe, marker), "b": RandomAgent}
    killer = kill_when_marked(marker)
    res = run_match(factories, games=4, players=2, seed=9, backend=RayBackend(retries=2))
    killer.join(timeout=1)
    assert os.path.exists(marker)                 # one worker was killed ...
    assert len(res.games) == 4 and res.lost == []  # ... and its game was played again, the rest as they were
    local = run_match(factories, games=4, players=2, seed=9)
    assert outcomes(res) == outcomes(local)


@pytest.mark.slow
def test_a_ray_worker_that_dies_for_good_loses_only_its_game(ray_instance, tmp_path):
    marker = str(tmp_path / "pid")
    factories = {"a": functools.partial(KillMe, marker), "b": RandomAgent}
    killer = kill_when_marked(marker)
    res = run_match(factories, games=4, players=2, seed=9, backend=RayBackend(retries=0))
    killer.join(timeout=1)
    assert len(res.games) == 3 and len(res.lost) == 1
    number, why = res.lost[0]
    assert 1 <= number <= 4 and "WorkerCrashedError" in why
    assert f"lost game {number}" in res.table()


@pytest.mark.slow
def test_ray_match_stops_at_the_sprt_decision(ray_instance):
    res = run_match(FACTORIES, games=200, players=2, seed=1, backend=RayBackend(),
                    sprt=SprtSpec(elo0=0, elo1=100))
    assert res.sprt.decision == "H1"
    assert len(res.games) < 60


@pytest.mark.slow
def test_cancel_stops_every_ray_task(ray_instance):
    b = RayBackend()
    stream = b.stream(time.sleep, [0.1] + [3600] * 5)
    assert next(stream) == (0, None)
    b.cancel()
    assert list(stream) == []
    # every CPU comes back: the hour-long tasks did not run on (the 300 s only guard against a hang)
    deadline = time.monotonic() + 300
    while ray_instance.available_resources().get("CPU", 0) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert ray_instance.available_resources().get("CPU", 0) == 2


@pytest.mark.slow
def test_ctrl_c_cancels_a_ray_match(ray_instance):
    def progress(i, g):
        raise KeyboardInterrupt()

    with pytest.raises(KeyboardInterrupt):
        run_match({"slow": Slow, "random": RandomAgent}, games=8, players=2, seed=2, backend=RayBackend(),
                  progress=progress)
    deadline = time.monotonic() + 300           # only a guard against a hang: no bound on the speed
    while ray_instance.available_resources().get("CPU", 0) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert ray_instance.available_resources().get("CPU", 0) == 2


# ---------------------------------------------------------------- the referee (tne-ai match) on Ray

def fake_engine(name: str, script: str):
    import shlex
    import sys
    from tne_ai.referee.match import parse_engine
    cmd = " ".join(shlex.quote(x) for x in (sys.executable, os.path.join(HERE, "fake_engines", script)))
    return parse_engine(f"name={name} cmd={shlex.quote(cmd)}")


@pytest.mark.slow
def test_a_referee_match_on_ray_equals_the_local_one(ray_instance, tmp_path):
    from tne_ai.referee.match import Control, run_engine_match
    engines = [fake_engine("a", "good_engine.py"), fake_engine("b", "crash_engine.py")]
    local = run_engine_match(engines, 4, 2, seed=3, control=Control(iterations=5))
    remote = run_engine_match(engines, 4, 2, seed=3, control=Control(iterations=5), backend=RayBackend(),
                              record_dir=str(tmp_path))
    assert outcomes(remote) == outcomes(local)
    assert [g.forfeit["kind"] if g.forfeit else None for g in remote.games] == \
        [g.forfeit["kind"] if g.forfeit else None for g in local.games]
    # records are written by the referee, not the workers
    assert sorted(f for f in os.listdir(tmp_path) if f.startswith("game")) == \
        ["game0001-a-b.txt", "game0002-b-a.txt", "game0003-a-b.txt", "game0004-b-a.txt"]


@pytest.mark.slow
def test_an_engine_that_cannot_start_stops_a_ray_match(ray_instance):
    from tne_ai.referee.match import Control, MatchAborted, parse_engine, run_engine_match
    engines = [fake_engine("a", "good_engine.py"), parse_engine("name=bad cmd=/nonexistent/tne-engine")]
    with pytest.raises(MatchAborted) as info:
        run_engine_match(engines, 4, 2, seed=3, control=Control(iterations=5), backend=RayBackend())
    assert info.value.name == "bad" and "cannot start" in info.value.reason
