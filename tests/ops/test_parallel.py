"""ops.parallel's split calls on the pool threads of ops.part_threads: ranges, order, errors,
calls that find the threads busy, and the threads' end."""
from __future__ import annotations

import threading

import numpy as np
import pytest

from ops import accel, parallel, part_threads
from ops.part_threads import Crew

from ._helpers import require_accelerator, with_threads

WORK = 1 << 30  # always worth splitting


@pytest.fixture(params=[2, 3], ids=lambda n: f"threads{n}")
def threads(request):
    yield from with_threads(request)


def test_ranges_cover_in_order_and_the_others_run_on_pool_threads(threads):
    caller = threading.get_ident()
    seen = parallel.map_parts(lambda a, b: (a, b, threading.get_ident()), 10, work=WORK)
    assert [(a, b) for a, b, _ in seen] == parallel.split(10, threads)
    idents = [ident for _, _, ident in seen]
    assert idents[0] == caller
    assert caller not in idents[1:] and len(set(idents)) == threads


def test_the_same_threads_serve_every_call(threads):
    first = {ident for *_, ident in parallel.map_parts(lambda a, b: (a, threading.get_ident()), 8, work=WORK)}
    for _ in range(50):
        again = {ident for *_, ident in parallel.map_parts(lambda a, b: (a, threading.get_ident()), 8, work=WORK)}
        assert again == first


@pytest.mark.parametrize("failing", ["caller", "pool"])
def test_an_error_is_raised_once_every_range_has_finished(failing, threads):
    finished = []
    release = threading.Event()

    def part(a: int, b: int):
        if (a == 0) == (failing == "caller"):
            raise ValueError(f"range {a}")
        release.wait(5)  # the other ranges are still running when the failing one raises
        finished.append(a)
        return a

    release_later = threading.Timer(0.05, release.set)
    release_later.start()
    with pytest.raises(ValueError, match="range"):
        parallel.map_parts(part, 12, work=WORK)
    release_later.join()
    others = [a for a, _ in parallel.split(12, threads) if (a == 0) != (failing == "caller")]
    assert sorted(finished) == sorted(others)
    # the threads serve the next call as before
    assert parallel.map_parts(lambda a, b: b - a, 12, work=WORK) == [b - a for a, b in parallel.split(12, threads)]


def test_a_range_that_splits_again_runs_its_ranges_itself(threads):
    def outer(a: int, b: int):
        mine = threading.get_ident()
        inner = parallel.map_parts(lambda c, d: (c, d, threading.get_ident()), 6, work=WORK)
        assert [(c, d) for c, d, _ in inner] == parallel.split(6, threads)
        return {ident for *_, ident in inner} == {mine}

    assert parallel.map_parts(outer, 6, work=WORK) == [True] * threads


def test_calls_from_two_threads_at_once_both_get_every_range(threads):
    results: dict[str, list] = {}
    barrier = threading.Barrier(2)

    def call(name: str) -> None:
        barrier.wait(5)
        results[name] = [parallel.map_parts(lambda a, b: list(range(a, b)), 1000, work=WORK) for _ in range(200)]

    workers = [threading.Thread(target=call, args=(name,)) for name in ("one", "two")]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    expected = [list(range(a, b)) for a, b in parallel.split(1000, threads)]
    assert set(results) == {"one", "two"}
    assert all(got == expected for runs in results.values() for got in runs)


def test_set_threads_ends_the_old_threads():
    before = parallel.threads()
    try:
        parallel.set_threads(3)
        idents = {ident for *_, ident in parallel.map_parts(lambda a, b: (a, threading.get_ident()), 9, work=WORK)}
        pool_threads = [t for t in threading.enumerate() if t.ident in idents and t is not threading.current_thread()]
        assert len(pool_threads) == 2
        parallel.set_threads(2)  # waits for the old threads to end
        assert not any(t.is_alive() for t in pool_threads)
        assert len(parallel.map_parts(lambda a, b: a, 9, work=WORK)) == 2
    finally:
        parallel.set_threads(before)


def test_a_stopped_crew_refuses_claims_and_a_call_holding_it_runs_its_ranges_itself(monkeypatch):
    """A caller that fetched the crew just before set_threads replaced it must not hand parts to
    threads that have ended (it would wait for them for ever)."""
    before = parallel.threads()
    try:
        parallel.set_threads(2)
        stale = parallel._get_pool()
        parallel.set_threads(2)  # stops ``stale``
        assert not stale.claim()
        caller = threading.get_ident()
        monkeypatch.setattr(parallel, "_get_pool", lambda: stale)
        seen = parallel.map_parts(lambda a, b: (a, b, threading.get_ident()), 10, work=WORK)
        monkeypatch.undo()
        assert [(a, b) for a, b, _ in seen] == parallel.split(10, 2)
        assert {ident for *_, ident in seen} == {caller}
    finally:
        parallel.set_threads(before)


def test_a_claimed_crew_refuses_a_second_claim_until_released():
    crew = Crew(1)
    try:
        assert crew.claim()
        assert not crew.claim()
        crew.start(0, lambda a, b: a + b, 2, 3)
        assert crew.join(0, spin_ns=0) == (5, None)
        crew.release()
        assert crew.claim()
        crew.release()
    finally:
        crew.stop()


def test_set_threads_while_a_split_call_splits_again_finishes(monkeypatch):
    """set_threads from another thread while a split call runs, one of whose ranges then has
    more work split (asking for the pool) and waits for it: both finish. (Stopping the old pool
    under the pool lock kept that split waiting for the lock while the stop waited for the call.)"""
    before = parallel.threads()
    parallel.set_threads(2)
    inside, stopping = threading.Event(), threading.Event()
    real_stop = Crew.stop

    def stop(crew: Crew) -> None:
        stopping.set()  # set_threads has reached the old pool's stop
        real_stop(crew)

    monkeypatch.setattr(Crew, "stop", stop)
    seen = []

    def outer(a: int, b: int):
        if a == 0:
            inside.set()
            assert stopping.wait(10)
        # the nested split in a helper the range waits for, with a time limit: a deadlock
        # fails the test instead of hanging it
        nested = threading.Thread(target=lambda: seen.append(parallel.map_parts(lambda c, d: d - c, 4, work=WORK)),
                                  daemon=True)
        nested.start()
        nested.join(10)
        return a

    def change() -> None:
        assert inside.wait(10)
        parallel.set_threads(2)

    changer = threading.Thread(target=change, daemon=True)
    try:
        changer.start()
        assert parallel.map_parts(outer, 4, work=WORK) == [0, 2]
        changer.join(10)
        assert not changer.is_alive()
        assert len(seen) == 2 and all(sum(parts) == 4 for parts in seen)
    finally:
        stopping.set()
        changer.join(10)
        monkeypatch.undo()
        parallel.set_threads(before)


def _one_part(crew: Crew, fn, start: int, stop: int, spin_ns: int = 0) -> tuple:
    """Claim ``crew``, run ``fn(start, stop)`` on its thread 0, join it and release the crew:
    the join's ``(result, exception)``."""
    assert crew.claim()
    crew.start(0, fn, start, stop)
    outcome = crew.join(0, spin_ns=spin_ns)
    crew.release()
    return outcome


class _RecordingWait:
    """An idle wait (:func:`ops.part_threads.set_idle_wait`) that polls in Python, for up to
    60 s, until the word it watches changes, and records why each wait ended: a pool thread's
    wait (given ``done``, which it bumps first) in ``ended``, a claimant's in ``joins``."""

    def __init__(self, hold_bump: threading.Event | None = None) -> None:
        self.ended: list[str] = []
        self.joins: list[str] = []
        self.claimant_waits = threading.Semaphore(0)  # released as each claimant's wait begins
        self.hold_bump = hold_bump  # when given, a pool thread's wait bumps only once it is set
        self.lock = threading.Lock()

    def __call__(self, words, i, seen, done=None) -> None:
        if done is not None:
            if self.hold_bump is not None:
                assert self.hold_bump.wait(60)
            done[i] += 1
        else:
            self.claimant_waits.release()
        changed = threading.Event()
        for _ in range(600_000):
            if int(words[i]) != seen:
                changed.set()
                break
            changed.wait(1e-4)
        with self.lock:
            (self.ended if done is not None else self.joins).append("changed" if changed.is_set() else "time up")


def test_pool_threads_wait_between_parts_and_each_start_or_stop_ends_the_wait(monkeypatch):
    """A thread in its idle wait after a part takes the next part as soon as it is started,
    and stop ends the wait too: every wait ends because its signal word changed, none by
    running out of time (which would take a minute)."""
    wait = _RecordingWait()
    monkeypatch.setattr(part_threads, "_idle_wait", wait)
    crew = Crew(1)
    try:
        for n in range(5):
            assert _one_part(crew, lambda a, b: a * b, n, 7) == (7 * n, None)
    finally:
        crew.stop()
    assert wait.ended == ["changed"] * 5


def test_a_join_on_a_running_part_waits_for_the_threads_finish_word(monkeypatch):
    """A claimant joining a part that is still running polls the thread's finish word with the
    idle wait (holding no GIL, with the compiled one), which the thread bumps from its own idle
    wait after the part: the join's wait ends because that word changed, well before its
    minute is up, and the join returns the part's result."""
    wait = _RecordingWait()
    monkeypatch.setattr(part_threads, "_idle_wait", wait)
    crew = Crew(1)
    running, go_on = threading.Event(), threading.Event()

    def part(a, b):
        running.set()
        assert go_on.wait(60)
        return a + b

    outcome = []
    try:
        for n in range(3):
            running.clear()
            go_on.clear()
            assert crew.claim()
            crew.start(0, part, n, 40)
            assert running.wait(60)
            joiner = threading.Thread(target=lambda: outcome.append(crew.join(0, spin_ns=1)))
            joiner.start()
            assert wait.claimant_waits.acquire(timeout=60)  # the claimant is polling the finish word
            go_on.set()
            joiner.join(60)
            assert not joiner.is_alive()
            crew.release()
    finally:
        go_on.set()
        crew.stop()
    assert outcome == [(40, None), (41, None), (42, None)]
    assert wait.joins == ["changed"] * 3


def test_a_join_waits_for_its_own_parts_bump_when_the_last_parts_came_late(monkeypatch):
    """The thread bumps its finish word after it has released ``done``, so a claimant that
    joined the last part at once (through ``done``) may start the next part before that bump.
    Joining the next part, it waits past the late bump for the bump of the part it joins."""
    hold_bump = threading.Event()
    wait = _RecordingWait(hold_bump)
    monkeypatch.setattr(part_threads, "_idle_wait", wait)
    crew = Crew(1)
    go_on = threading.Event()
    outcome = []
    try:
        assert _one_part(crew, lambda a, b: a + b, 1, 2) == (3, None)  # through done: the bump is still held
        assert crew.claim()
        crew.start(0, lambda a, b: go_on.wait(60) and a * b, 4, 5)
        joiner = threading.Thread(target=lambda: outcome.append(crew.join(0, spin_ns=1)))
        joiner.start()
        assert wait.claimant_waits.acquire(timeout=60)  # waiting, with the last part's bump owed
        hold_bump.set()  # the late bump: not this part's
        assert wait.claimant_waits.acquire(timeout=60)  # so it waits again
        go_on.set()
        joiner.join(60)
        assert not joiner.is_alive()
        crew.release()
    finally:
        hold_bump.set()
        go_on.set()
        crew.stop()
    assert outcome == [(20, None)]
    assert wait.joins == ["changed", "changed"]


def test_without_an_idle_wait_a_join_polls_the_finished_flag(monkeypatch):
    """No idle wait (numba missing): the thread bumps its finish word in Python and blocks on
    its lock; a claimant's join polls ``finished`` and returns the part's result."""
    monkeypatch.setattr(part_threads, "_idle_wait", None)
    crew = Crew(1)
    try:
        for n in range(3):
            assert _one_part(crew, lambda a, b: a * b, n, 3, spin_ns=10**9) == (3 * n, None)
        assert int(crew._finishes[0]) == 3
    finally:
        crew.stop()


def test_the_compiled_idle_wait_sees_another_threads_store():
    """The accelerator's poll (an acquire load in a compiled loop, no GIL) returns True once
    another thread changes the word, however many polls it was given; False when the polls run
    out unchanged. A plain load hoisted out of the loop would return False at once."""
    require_accelerator()
    wait_for_change = accel._load()["wait_for_change"]
    signals = np.zeros(2, dtype=np.int64)
    assert wait_for_change(signals, 1, 0, 1000, accel.NO_DONE) is False
    outcome = []
    waiter = threading.Thread(target=lambda: outcome.append(wait_for_change(signals, 1, 0, 1 << 62, accel.NO_DONE)))
    waiter.start()
    signals[1] = 1
    waiter.join(60)
    assert not waiter.is_alive() and outcome == [True]


def test_the_compiled_idle_wait_bumps_the_done_word_before_it_polls():
    """Given ``done``, the compiled wait bumps ``done[i]`` (the pool thread's finish word), and
    only that word, even when the polls run out; a ``done`` without that word is left alone."""
    require_accelerator()
    wait_for_change = accel._load()["wait_for_change"]
    flags, done = np.zeros(3, dtype=np.int64), np.zeros(3, dtype=np.int64)
    assert wait_for_change(flags, 1, 0, 10, done) is False
    assert done.tolist() == [0, 1, 0]
    flags[2] = 5
    assert wait_for_change(flags, 2, 0, 10, done) is True
    assert done.tolist() == [0, 1, 1]
    short = np.zeros(1, dtype=np.int64)
    assert wait_for_change(flags, 2, 0, 10, short) is True and short.tolist() == [0]


def test_the_accelerator_installs_its_idle_wait_for_pool_threads():
    require_accelerator()
    accel._load()
    assert part_threads._idle_wait is not None
    signals = np.zeros(1, dtype=np.int64)
    signals[0] = 3
    part_threads._idle_wait(signals, 0, 2)  # already changed: returns at once


def test_a_failing_idle_wait_leaves_the_threads_serving(monkeypatch):
    def broken(words, i, seen, done=None):
        raise RuntimeError("no wait here")

    monkeypatch.setattr(part_threads, "_idle_wait", broken)
    crew = Crew(1)
    try:
        for n in range(3):
            assert _one_part(crew, lambda a, b: a - b, 10, n) == (10 - n, None)
    finally:
        crew.stop()


def test_map_woken_starts_a_polling_pool_thread_only_once_the_caller_bumps_its_signal(monkeypatch):
    """``map_woken`` hands the pool thread its call without bumping the thread's signal word:
    a thread in its idle wait (here one that polls for a minute) starts only when the caller's
    call bumps ``words[0, 0..wake)``, which a shared kernel does once it no longer holds the GIL.
    The caller's call gets ``wake = 1``, the pool thread's ``wake = 0``; the results come back
    caller first."""
    wait = _RecordingWait()
    monkeypatch.setattr(part_threads, "_idle_wait", wait)
    before = parallel.threads()
    parallel.set_threads(2)
    try:
        parallel.map_woken(lambda words, wake: None, 2)  # the pool thread is now in its idle wait
        pool_started = threading.Event()
        seen_before_bump = []

        def call(words, wake):
            if wake == 0:
                pool_started.set()
                return ("pool", threading.get_ident())
            # the pool thread polls its word and does not start, however long it is given: its
            # go lock is released, but it only takes that after its wait, which ends with the word
            seen_before_bump.append(pool_started.wait(0.2))
            words[0, :wake] += 1
            assert pool_started.wait(60)
            return ("caller", threading.get_ident(), wake)

        results = parallel.map_woken(call, 2)
        assert seen_before_bump == [False]
        assert results[0] == ("caller", threading.get_ident(), 1)
        assert results[1][0] == "pool" and results[1][1] != threading.get_ident()
        assert wait.ended[-1] == "changed"
    finally:
        monkeypatch.undo()
        parallel.set_threads(before)


def test_map_woken_runs_every_call_here_when_the_pool_is_busy(threads):
    """A crew already claimed (here by the test, as by a split call of another thread): every
    one of the ``parts`` calls runs in the calling thread, each with nothing to wake."""
    crew = parallel._get_pool()
    assert crew.claim()
    try:
        seen = parallel.map_woken(lambda words, wake: (threading.get_ident(), wake, words.shape), threads)
    finally:
        crew.release()
    assert seen == [(threading.get_ident(), 0, (3, 1))] * threads
