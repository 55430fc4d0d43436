"""The GIL is released during work, and Ctrl-C interrupts a long call at once."""

import signal
import threading
import time

import numpy as np
import pytest

import urbanflow


def grid(side: int) -> urbanflow.Graph:
    idx = np.arange(side * side).reshape(side, side)
    right = (idx[:, :-1].ravel(), idx[:, 1:].ravel())
    down = (idx[:-1, :].ravel(), idx[1:, :].ravel())
    tails = np.concatenate([right[0], right[1], down[0], down[1]])
    heads = np.concatenate([right[1], right[0], down[1], down[0]])
    weights = np.random.default_rng(1).integers(1, 100, len(tails))
    return urbanflow.Graph.from_edges(tails, heads, weights)


def test_ctrl_c_interrupts_a_long_call():
    g = grid(120)
    # Far more trees than the test waits for: SIGINT after 0.3 s must end the call within 0.5 s.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.setitimer(signal.ITIMER_REAL, 0.3)
    signal.signal(signal.SIGALRM, lambda *_: signal.raise_signal(signal.SIGINT))
    start = time.perf_counter()
    try:
        with pytest.raises(KeyboardInterrupt):
            g.distances(np.arange(5000), method="trees", backend="cpu", threads=1)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGINT, previous)
    assert time.perf_counter() - start < 0.8


def test_other_threads_run_during_a_call():
    g = grid(200)
    ticks = []
    stop = threading.Event()

    def tick():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.005)

    t = threading.Thread(target=tick)
    t.start()
    start = time.perf_counter()
    g.distances(np.arange(40), backend="cpu", threads=1)
    elapsed = time.perf_counter() - start
    stop.set()
    t.join()
    during = [x for x in ticks if start <= x <= start + elapsed]
    assert elapsed < 0.05 or len(during) >= 3, (elapsed, len(during))


def test_ctrl_c_stops_an_assignment_inside_the_solve():
    """After Ctrl-C the solver's thread stops at the end of its iteration: the process stops burning
    CPU (a solve to gap 1e-14 on Sioux Falls would otherwise run for its whole iteration cap)."""
    from conftest import DATA

    net = urbanflow.Network.from_tntp(DATA / "SiouxFalls_net.tntp")
    trips = urbanflow.Demand.from_tntp(DATA / "SiouxFalls_trips.tntp", net)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGALRM, lambda *_: signal.raise_signal(signal.SIGINT))
    signal.setitimer(signal.ITIMER_REAL, 0.3)
    try:
        with pytest.raises(KeyboardInterrupt):
            urbanflow.assign(net, trips, algorithm="msa", gap=1e-14, max_iters=10_000_000, backend="cpu", threads=1)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGINT, previous)
    time.sleep(0.1)  # the iteration under way ends
    cpu = time.process_time()
    time.sleep(0.5)
    assert time.process_time() - cpu < 0.25


def test_progress_of_many_trees():
    g = grid(60)
    seen = []
    rows = g.distances(np.arange(600), method="trees", backend="cpu", progress=lambda done, total: seen.append((done, total)))
    assert rows.shape == (600, 3600)
    assert seen and seen[-1] == (600, 600)
    assert all(b[0] >= a[0] for a, b in zip(seen, seen[1:])) and all(t == 600 for _, t in seen)
    with pytest.raises(urbanflow.errors.UrbanflowError, match="cancelled by the progress callback"):
        g.distances(np.arange(3000), method="trees", backend="cpu", threads=1, progress=lambda done, total: False)
