"""Probe overhead from Python, measured with timeit.

    python python/bench/probe_overhead.py [TABLE_DIR]

Builds the tables of up to 3 pieces into a temporary directory unless one
is given, warms the block cache, then times cached probes of FEN strings
(the best of 5 runs of 200,000 calls each; probe(fen).moves, the whole
answer as Python objects, of 20,000).
"""

import sys
import tempfile
import timeit
from typing import Callable

import draughts_tb

POSITIONS = {
    "kings, 5-move ending": "W:WK46,K47:BK5",
    "king and man against man": "W:WK46,28:B10",
    "capture position": "B:W28,32:B19",
}


def best_ns(call: Callable[[], object], number: int) -> float:
    return min(timeit.repeat(call, number=number, repeat=5)) / number * 1e9


def main() -> None:
    if len(sys.argv) > 1:
        tables = sys.argv[1]
    else:
        tables = tempfile.mkdtemp()
        draughts_tb.generate(tables, pieces=3, progress=False)
    tb = draughts_tb.Tablebase(tables)
    print(f"{'position':<26} {'wdl(fen)':>9} {'probe(fen).moves':>17} {'moves':>6}")
    for name, fen in POSITIONS.items():
        moves = len(tb.probe(fen).moves)  # warms the cache
        wdl = best_ns(lambda: tb.wdl(fen), 200_000)
        probe = best_ns(lambda: tb.probe(fen).moves, 20_000)
        print(f"{name:<26} {wdl:7.0f} ns {probe / 1000:14.2f} us {moves:6}")
    call = best_ns(lambda: None, 200_000)
    print(f"(an empty Python call through the lambda: {call:.0f} ns)")


if __name__ == "__main__":
    main()
