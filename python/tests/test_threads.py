"""One Tablebase shared by many threads; the GIL released while working."""

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import List

import draughts_tb
from helpers import random_positions


def answers(tb: draughts_tb.Tablebase, fens: List[str]) -> List[object]:
    out: List[object] = []
    for fen in fens:
        r = tb.probe(fen)
        out.append((r.fen, r.wdl, r.counted_threshold, tuple((m.move, m.wdl, m.counted_threshold) for m in r.moves)))
        out.append(tb.wdl(fen))
    return out


def test_shared_between_threads(table_dir: Path) -> None:
    fens = list(random_positions(draughts_tb.Tablebase(table_dir), 300, seed=7))
    expected = answers(draughts_tb.Tablebase(table_dir), fens)
    # A small cache, so that threads evict and decode blocks concurrently.
    shared = draughts_tb.Tablebase(table_dir, cache_mb=0)
    chunks = [fens[i::8] for i in range(8)] * 4
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda chunk: answers(shared, chunk), chunks))
    for chunk, got in zip(chunks, results):
        assert got == answers(draughts_tb.Tablebase(table_dir), chunk)
    assert answers(shared, fens) == expected


def test_generate_releases_the_gil(tmp_path: Path) -> None:
    """While generate() runs in a thread, this thread keeps running Python."""
    draughts_tb.generate(tmp_path, pieces=3, progress=False)
    outcome: List[object] = []

    def build() -> None:
        try:
            outcome.append(draughts_tb.generate(tmp_path, materials=["KKM-K"], progress=False))
        except BaseException as e:  # reported below, not lost in the thread
            outcome.append(e)

    worker = threading.Thread(target=build)
    ticks = 0
    start = time.perf_counter()
    worker.start()
    while worker.is_alive():
        ticks += 1
        time.sleep(0.001)
    elapsed = time.perf_counter() - start
    assert len(outcome) == 1 and not isinstance(outcome[0], BaseException), outcome
    assert elapsed > 0.05, "the build was too short to tell"
    # Holding the GIL would have stopped this loop for the whole build (a
    # tick or two); free, it ticks about once a millisecond (at least every
    # 100 ms even on a loaded machine).
    assert ticks > 10 * elapsed
