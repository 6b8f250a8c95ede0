"""Helpers of the tests: random positions of the materials at hand."""

import random
from typing import Iterator, List, Optional, Sequence, Tuple

import draughts_tb


def material_counts(name: str) -> List[Tuple[int, int]]:
    """(kings, men) of White and Black in a material name such as KKM-K."""
    white, black = name.split("-")
    return [(side.count("K"), side.count("M")) for side in (white, black)]


def random_position(rng: random.Random, material: str, white_to_move: bool) -> str:
    """A random placement of `material` (men off their crowning row), as a FEN."""
    squares = list(range(1, 51))
    rng.shuffle(squares)
    lists = []
    for colour, (kings, men) in zip("WB", material_counts(material)):
        pieces = []
        for _ in range(kings):
            pieces.append(f"K{squares.pop()}")
        crowning = range(1, 6) if colour == "W" else range(46, 51)
        for _ in range(men):
            sq = next(s for s in squares if s not in crowning)
            squares.remove(sq)
            pieces.append(str(sq))
        lists.append(colour + ",".join(pieces))
    side = "W" if white_to_move else "B"
    return f"{side}:{lists[0]}:{lists[1]}"


def random_positions(
    tb: draughts_tb.Tablebase, count: int, seed: int, materials: Optional[Sequence[str]] = None
) -> Iterator[str]:
    """`count` random positions of the materials in `tb` (or `materials`)."""
    rng = random.Random(seed)
    names = materials or tb.materials()
    for _ in range(count):
        yield random_position(rng, rng.choice(names), rng.random() < 0.5)


def child_plies_left(
    parent: draughts_tb.ProbeResult, child: draughts_tb.ProbeResult
) -> Optional[int]:
    """The draw counter a move leaves, by the FMJD rules as docs/cli.md
    states them: one ply less in the same counted ending or a smaller one
    (a 16-move ending turned 5-move keeps the earlier deadline, at most 10),
    a fresh count in an ending just entered, none outside."""
    if child.counted_ending is None:
        return None
    if parent.counted_ending is None:
        return 2 * child.counted_ending
    assert parent.plies_left is not None
    return min(parent.plies_left - 1, 2 * child.counted_ending)
