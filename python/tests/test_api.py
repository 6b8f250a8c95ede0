"""Round trips through the Python API: opening, probing, the draw counter,
generation and verification."""

from pathlib import Path
from typing import List, Optional, Union

import pytest

import draughts_tb
from helpers import child_plies_left, random_positions

RESULT_OF = {1: "win", 0: "draw", -1: "loss"}


def test_open(tb: draughts_tb.Tablebase, table_dir: Path) -> None:
    assert Path(tb.path) == table_dir
    assert tb.rules == "fmjd"
    assert tb.max_pieces == 3
    assert "KKM-K" in tb.materials() and "K-KKM" in tb.materials()
    assert "KMM-K" not in tb.materials()
    assert tb.has_table("KKK-K") and not tb.has_table("KMM-K")
    assert "fmjd" in repr(tb)
    same = draughts_tb.Tablebase(str(table_dir), rules="fmjd", cache_mb=1)
    assert same.probe("W:WK46,K47:BK5").fen == tb.probe("W:WK46,K47:BK5").fen


def test_probe_fields(tb: draughts_tb.Tablebase) -> None:
    r = tb.probe("W:WK47,K46:BK5")
    assert r.fen == "W:WK46,K47:BK5"
    assert r.result == RESULT_OF[r.wdl]
    assert r.counted_ending == 5 and r.plies_left == 10
    assert [m.move for m in r.moves] == [str(m) for m in r.moves]
    assert len({m.move for m in r.moves}) == len(r.moves)
    for m in r.moves:
        assert m.result == RESULT_OF[m.wdl]
        assert m.fen == draughts_tb.normalize_fen(m.fen)
        assert m.move.startswith(f"{m.from_square}-") and m.move.endswith(f"-{m.to_square}")
        assert m.captures == []
    assert "ProbeResult" in repr(r) and "ProbedMove" in repr(r.moves[0])
    assert r.moves is r.moves  # made once, immutable


def test_values_agree_with_moves(tb: draughts_tb.Tablebase) -> None:
    """A position is worth its best move, and a move the opposite of the
    position it leads to (with the counter the move leaves)."""
    counted = 0
    for i, fen in enumerate(random_positions(tb, 400, seed=1)):
        plies_left = [None, 3, 7][i % 3]
        r = tb.probe(fen, plies_left=plies_left)
        assert tb.wdl(fen, plies_left) == r.wdl
        if not r.moves:
            assert r.result == "loss"  # blocked
            continue
        assert r.wdl == max(m.wdl for m in r.moves)
        best = tb.best_move(fen, plies_left)
        assert best is not None and best.move == r.moves[0].move
        for m in r.moves:
            child = tb.probe(m.fen)
            child = tb.probe(m.fen, plies_left=child_plies_left(r, child))
            assert m.wdl == -child.wdl, (fen, plies_left, m.move)
            if m.counted_threshold is not None and child.counted_threshold is not None:
                assert m.counted_threshold == child.counted_threshold + 1
        counted += r.counted_ending is not None
    assert 50 < counted < 350


def test_moves_best_first(tb: draughts_tb.Tablebase) -> None:
    for fen in random_positions(tb, 200, seed=2, materials=["KKM-K", "KKK-K", "K-KKM"]):
        moves = tb.probe(fen).moves
        order = [(-m.wdl, m.counted_threshold if m.wdl == 1 else -(m.counted_threshold or 0) if m.wdl == -1 else 0) for m in moves]
        assert order == sorted(order)


def test_capture_moves(tb: draughts_tb.Tablebase) -> None:
    # The king on 46 must take both pieces on its diagonal (majority rule)
    # and may stop on any free square behind the second: Black is left
    # with nothing, so every move wins at once.
    r = tb.probe("W:WK46:B37,K23")
    assert sorted(m.move for m in r.moves) == ["46x10", "46x14", "46x19", "46x5"]
    for m in r.moves:
        assert m.captures == [23, 37] and m.from_square == 46
        assert m.move == f"46x{m.to_square}"
        assert (m.result, m.counted_threshold) == ("win", 1)
        assert m.fen == f"B:WK{m.to_square}:B"
    assert (r.result, r.counted_threshold) == ("win", 1)


def test_plies_left(tb: draughts_tb.Tablebase) -> None:
    """In a 16-move ending a win needs `distance` plies on the counter."""
    won: Optional[draughts_tb.ProbeResult] = None
    for fen in random_positions(tb, 300, seed=3, materials=["KKM-K"]):
        r = tb.probe(fen)
        if r.result == "win" and r.distance and r.distance > 3:
            won = r
            break
    assert won is not None and won.distance is not None
    distance = won.distance
    fresh = tb.probe(won.fen)
    assert fresh.counted_ending == 16 and fresh.plies_left == 32
    assert fresh.counted_threshold == fresh.distance
    enough = tb.probe(won.fen, plies_left=distance)
    assert enough.result == "win" and enough.plies_left == distance
    short = tb.probe(won.fen, plies_left=distance - 1)
    assert short.result == "draw" and short.counted_threshold is None and short.distance == distance
    assert tb.wdl(won.fen, plies_left=distance - 1) == 0
    assert tb.wdl(won.fen, distance) == 1
    # The best move keeps the win only with the counter the move leaves.
    best = tb.best_move(won.fen, plies_left=distance)
    assert best is not None and best.result == "win" and best.counted_threshold == distance
    drawn = tb.best_move(won.fen, plies_left=distance - 1)
    assert drawn is not None and drawn.result == "draw"


def test_wdl_if_cached(tb: draughts_tb.Tablebase) -> None:
    fen = "W:WK46,K47:BK5"
    tb.wdl(fen)
    assert tb.wdl_if_cached(fen) == tb.wdl(fen)


def test_position_objects(tb: draughts_tb.Tablebase) -> None:
    class WithAttribute:
        fen = '[FEN "W:WK46,K47:BK5"]'

    class WithMethod:
        def fen(self) -> str:
            return "W:WK46,K47:BK5"

    expected = tb.probe("W:WK46,K47:BK5")
    positions: List[Union[WithAttribute, WithMethod]] = [WithAttribute(), WithMethod()]
    for position in positions:
        r = tb.probe(position)
        assert (r.fen, r.result, r.counted_threshold) == (expected.fen, expected.result, expected.counted_threshold)
        assert tb.wdl(position) == expected.wdl
        best = tb.best_move(position)
        assert best is not None and best.move == expected.moves[0].move
    assert draughts_tb.normalize_fen(WithMethod()) == "W:WK46,K47:BK5"


def test_normalize_fen() -> None:
    assert draughts_tb.normalize_fen(' [FEN "w:bk5:wk47,K46"] ') == "W:WK46,K47:BK5"
    assert draughts_tb.normalize_fen("B:W31-33:B1,2") == "B:W31,32,33:B1,2"


def test_generate_report_and_resume(tmp_path: Path) -> None:
    report = draughts_tb.generate(tmp_path, pieces=2, progress=False, threads=1)
    assert {b.material for b in report.built} == {"K-K", "K-M", "M-K", "M-M"}
    for b in report.built:
        assert Path(b.path).is_file() and Path(b.path).stat().st_size == b.bytes
        assert b.positions > 0 and b.seconds >= 0
    assert report.skipped == [] and report.seconds >= 0 and "GenerateReport" in repr(report)
    again = draughts_tb.generate(tmp_path, pieces=2, progress=False)
    assert again.built == [] and sorted(again.skipped) == ["K-K", "K-M", "M-K", "M-M"]
    pure = draughts_tb.generate(tmp_path, pieces=2, rules="pure", progress=False)
    assert len(pure.built) == 4
    assert draughts_tb.Tablebase(tmp_path, rules="pure").rules == "pure"


def test_verify(table_dir: Path) -> None:
    report = draughts_tb.verify(table_dir, progress=False, materials=["KKK-K", "K-KK"])
    assert report.ok and report.manifest_problems == []
    assert [t.material for t in report.tables] == ["K-KK", "KKK-K"]
    assert all(t.ok and t.checked > 0 and t.mismatch_count == 0 for t in report.tables)
    assert report.positions == sum(t.checked for t in report.tables)
    assert "ok=True" in repr(report)


@pytest.fixture(scope="module")
def dtc_tb(tmp_path_factory: pytest.TempPathFactory) -> draughts_tb.Tablebase:
    """Tables with DTC files: KK-KK (kings only, no count) and what it needs."""
    path = tmp_path_factory.mktemp("dtc")
    draughts_tb.generate(path, materials=["KK-KK"], progress=False, dtc=True)
    return draughts_tb.Tablebase(path)


def longest_decided(tb: draughts_tb.Tablebase, result: str) -> draughts_tb.ProbeResult:
    """Among random KK-KK positions, a `result` with the longest DTC."""
    found: Optional[draughts_tb.ProbeResult] = None
    for fen in random_positions(tb, 3000, seed=11, materials=["KK-KK"]):
        r = tb.probe(fen)
        if r.result == result and r.dtc is not None and (found is None or r.dtc > (found.dtc or 0)):
            found = r
    assert found is not None and found.dtc is not None, result
    return found


@pytest.mark.parametrize("result", ["win", "loss"])
def test_the_25_move_rule(dtc_tb: draughts_tb.Tablebase, result: str) -> None:
    """A result with DTC d holds with 50 - d king-only plies played, not 51 - d
    (random KK-KK positions: wins of 2 plies or more, losses of 1 ply)."""
    r = longest_decided(dtc_tb, result)
    assert r.dtc is not None and r.dtc_available and r.kings_only_plies == 0
    d = r.dtc
    held = dtc_tb.probe(r.fen, kings_only_plies=50 - d, line=True)
    assert (held.result, held.dtc, held.kings_only_plies) == (result, d, 50 - d)
    assert held.line is not None and len(held.line) >= d
    assert dtc_tb.wdl(r.fen, kings_only_plies=50 - d) == r.wdl
    if result == "win":
        assert d >= 2
        dropped = dtc_tb.probe(r.fen, kings_only_plies=51 - d, line=True)
        assert (dropped.result, dropped.dtc, dropped.line) == ("draw", None, None)
        assert dtc_tb.wdl(r.fen, kings_only_plies=51 - d) == 0
    # A king move passes the count on; the best move keeps a win.
    best = dtc_tb.best_move(r.fen, kings_only_plies=50 - d)
    assert best is not None and best.kings_only_plies_after in (0, 51 - d)
    if result == "win":
        assert best.result == "win" and best.dtc == d
    for m in held.moves:
        if m.kings_only_plies_after == 51 - d < 50 and m.dtc is not None:
            child = dtc_tb.wdl(m.fen, kings_only_plies=51 - d)
            assert child == -m.wdl


def test_counted_endings_and_pure_ignore_the_25_move_rule(tb: draughts_tb.Tablebase) -> None:
    r = tb.probe("W:WK46,K47:BK5", kings_only_plies=49)
    assert r.kings_only_plies is None and r.result == tb.probe("W:WK46,K47:BK5").result


@pytest.mark.parametrize("bad", [-1, 50, 10**6, 10**20, -(10**40)])
def test_bad_kings_only_plies(tb: draughts_tb.Tablebase, bad: int) -> None:
    with pytest.raises(ValueError, match="kings_only_plies"):
        tb.wdl("W:WK46,K47:BK5", kings_only_plies=bad)


def test_plies_is_a_deprecated_alias(tb: draughts_tb.Tablebase) -> None:
    r = tb.probe("W:WK46:B37,K23")
    with pytest.warns(DeprecationWarning):
        assert r.plies == r.counted_threshold == 1
    with pytest.warns(DeprecationWarning):
        assert r.moves[0].plies == r.moves[0].counted_threshold
