"""Integration with py-draughts (PyPI `py-draughts`, import `draughts`):
positions come from its boards, our legal moves must equal its legal moves,
its endgame counters must agree with ours, and games played with
`best_move` must end as the table says."""

import random
from typing import Dict, FrozenSet, List, Tuple

import draughts
import pytest

import draughts_tb
from helpers import child_plies_left, random_positions

MoveKey = Tuple[int, int, FrozenSet[int]]

COUNTED = ["KKM-K", "KKK-K", "KM-K", "KK-K", "K-KKM", "K-KKK", "K-KM", "K-KK"]


def our_key(m: draughts_tb.ProbedMove) -> MoveKey:
    return (m.from_square, m.to_square, frozenset(m.captures))


def their_key(mv: draughts.Move) -> MoveKey:
    """py-draughts numbers squares from 0 and spells out capture routes."""
    return (mv.square_list[0] + 1, mv.square_list[-1] + 1, frozenset(c + 1 for c in mv.captured_list))


def their_moves(board: draughts.BaseBoard) -> Dict[MoveKey, draughts.Move]:
    moves = {}
    for mv in board.legal_moves:
        assert their_key(mv) not in moves, "py-draughts listed a move twice"
        moves[their_key(mv)] = mv
    return moves


def position_after(board: draughts.BaseBoard, mv: draughts.Move) -> str:
    after = board.copy()
    after.push(mv)
    return draughts_tb.normalize_fen(after)


def test_board_fen_is_read(tb: draughts_tb.Tablebase) -> None:
    board = draughts.Board.from_fen("W:WK46,K47:BK5")
    assert board.fen.startswith("[FEN")
    assert tb.probe(board).fen == draughts_tb.normalize_fen(board.fen) == "W:WK46,K47:BK5"
    assert draughts_tb.normalize_fen(draughts.Board()) == "W:W31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50:B1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20"


def test_legal_moves_match(tb: draughts_tb.Tablebase) -> None:
    """Along random games from random positions, our moves are py-draughts'
    moves (start, end, captured pieces) and lead to the same positions."""
    rng = random.Random(11)
    compared = captures = 0
    for fen in random_positions(tb, 150, seed=11):
        board = draughts.Board.from_fen(fen)
        for _ in range(12):
            r = tb.probe(board)
            theirs = their_moves(board)
            assert sorted(our_key(m) for m in r.moves) == sorted(theirs), board.fen
            for m in r.moves:
                assert m.fen == position_after(board, theirs[our_key(m)])
            compared += 1
            captures += any(m.captures for m in r.moves)
            if not theirs:
                break
            board.push(rng.choice(list(theirs.values())))
    assert compared > 1000 and captures > 50


def test_board_counters_are_used(tb: draughts_tb.Tablebase) -> None:
    """Probing a board in a counted ending uses its own counters, and they
    run as our rules say, move by move along random games, as long as the
    game stays in the counted endings. (Once it leaves them, say king
    against man, and comes back by a crowning, py-draughts keeps its earlier
    clock where our rules start a fresh count: the board's counter is used
    as it is.)"""
    rng = random.Random(13)
    steps = 0
    for fen in random_positions(tb, 100, seed=13, materials=["KKM-K", "KKK-K", "K-KKM"]):
        board = draughts.Board.from_fen(fen)
        expected = tb.probe(board.fen)
        while expected.counted_ending is not None:
            r = tb.probe(board)
            assert r.plies_left == expected.plies_left, board.fen
            explicit = tb.probe(r.fen, plies_left=r.plies_left)
            assert (r.result, r.counted_threshold) == (explicit.result, explicit.counted_threshold)
            assert tb.probe(board, plies_left=0).plies_left == 0
            moves = list(their_moves(board).values())
            if not moves or board.game_over:
                break
            board.push(rng.choice(moves))
            child = tb.probe(draughts_tb.normalize_fen(board))
            expected = tb.probe(child.fen, plies_left=child_plies_left(r, child))
            steps += 1
    assert steps > 400


def pieces(fen: str, colour: str) -> int:
    """The number of pieces of `colour` ("W" or "B") in a canonical FEN."""
    field = next(f for f in fen.split(":")[1:] if f.startswith(colour))
    return len([s for s in field[1:].split(",") if s])


def play_best(
    tb: draughts_tb.Tablebase, board: draughts.BaseBoard, limit: int
) -> List[draughts_tb.ProbeResult]:
    """Plays best moves for both sides until py-draughts says the game is
    over; returns our probe of each position before its move."""
    trace: List[draughts_tb.ProbeResult] = []
    while not board.game_over and len(trace) <= limit:
        trace.append(tb.probe(board))
        best = tb.best_move(board)
        assert best is not None
        board.push(their_moves(board)[our_key(best)])
    return trace


def test_won_games_end_as_the_table_says(tb: draughts_tb.Tablebase) -> None:
    """From won positions of the counted endings, best play for both sides
    (shortest win, longest defence) counts the distance down one ply at a
    time while the game stays in these endings, and py-draughts agrees on
    the end: no draw by its 16- or 5-move counters, the side to move at the
    start wins. Only wins of the stronger side are played: a lone king's
    win leaves the distance tables for WLD ones (king against man), which
    keep the result but promise no progress."""
    games = 0
    for fen in random_positions(tb, 800, seed=12, materials=COUNTED):
        start = tb.probe(fen)
        mover, other = ("W", "B") if start.fen.startswith("W") else ("B", "W")
        if start.result != "win" or pieces(start.fen, mover) <= pieces(start.fen, other):
            continue
        assert start.counted_threshold is not None
        board = draughts.Board.from_fen(fen)
        trace = play_best(tb, board, 2 * start.counted_threshold + 2)
        results = [r.result for r in trace]
        assert results == (["win", "loss"] * len(trace))[: len(trace)], fen
        counted = [r.counted_threshold for r in trace if r.counted_ending is not None]
        assert counted == list(range(start.counted_threshold, start.counted_threshold - len(counted), -1)), fen
        if len(counted) == len(trace):
            assert len(trace) == start.counted_threshold, fen
        assert board.game_over and not board.is_draw, fen
        assert board.result == ("1-0" if mover == "W" else "0-1"), fen
        games += 1
        if games == 60:
            break
    assert games == 60


def test_drawn_games_end_drawn(tb: draughts_tb.Tablebase) -> None:
    """From drawn positions of the kings-only counted endings (which never
    leave the counted endings but to end the game), best play keeps the draw
    until py-draughts declares it by its counters or a repetition, within
    the plies the counter allows."""
    games = 0
    kings_only = ["KKK-K", "KK-K", "K-KKK", "K-KK"]
    for fen in random_positions(tb, 400, seed=14, materials=kings_only):
        start = tb.probe(fen)
        if start.result != "draw" or not start.moves:
            continue
        assert start.plies_left is not None
        board = draughts.Board.from_fen(fen)
        trace = play_best(tb, board, 2 * 32)
        assert {r.result for r in trace} == {"draw"}, fen
        assert board.is_draw and board.result == "1/2-1/2", fen
        assert len(trace) <= start.plies_left, fen
        games += 1
        if games == 30:
            break
    assert games == 30


@pytest.mark.parametrize("material", ["KKM-K", "KK-KK", "M-MM"])
def test_material_positions_probe(tb: draughts_tb.Tablebase, material: str) -> None:
    """Boards of each family probe without error and agree with their FEN."""
    for fen in random_positions(tb, 30, seed=15, materials=[material]):
        board = draughts.Board.from_fen(fen)
        assert tb.wdl(board) == tb.wdl(fen)
