"""Endgame tablebases for international draughts (10x10, FMJD rules).

Probe tables built by draughts-tb, or build them, from Python::

    import draughts_tb

    draughts_tb.generate("tables", pieces=4)          # about 5 s on two cores
    tb = draughts_tb.Tablebase("tables")
    r = tb.probe("W:WK46,K47,28:BK5")
    print(r.result, r.plies, [(m.move, m.result, m.plies) for m in r.moves])
    print(tb.best_move("W:WK46,K47,28:BK5").move)

A position is a PDN FEN string or any object with a ``fen`` attribute (a
py-draughts board, for example). Values are from the view of the side to
move; ``wdl`` answers 1 (win), 0 (draw) or -1 (loss).

The FMJD draw counter of the 16- and 5-move endings: pass ``plies_left``
(the plies that may still be played; None means the ending was just
entered). For a board object probed without ``plies_left``, the board's own
counters are used where it has them: for py-draughts boards, the attribute
named by ``BOARD_COUNTERS`` (``board._endgame_remaining``, a pair of plies
left in the 16-move and in the 5-move ending, -1 where none runs); the
smaller running counter is taken, capped at the ending's limit (32 or 10).

Errors: a bad FEN, rule set, material name or ``plies_left`` is a
``ValueError``; a table that is not there a ``MissingTableError``; a damaged
one a ``CorruptedTableError`` (both ``TablebaseError``); a missing table
directory a ``FileNotFoundError``.

The GIL is released while probing, building and verifying; one
``Tablebase`` can be shared by all threads.

Tables are memory-mapped, and importing this module installs no signal
handler: a table file cut short by another process in the middle of a probe
ends the interpreter with SIGBUS, as any mapped file would, unless
``install_sigbus_guard()`` was called (it turns that into a
``CorruptedTableError``; see its documentation).
"""

from ._draughts_tb import (
    BOARD_COUNTERS,
    BuiltTableInfo,
    CorruptedTableError,
    GenerateReport,
    Mismatch,
    MissingTableError,
    ProbedMove,
    ProbeResult,
    TableCheckInfo,
    Tablebase,
    TablebaseError,
    VerifyReport,
    __version__,
    generate,
    install_sigbus_guard,
    normalize_fen,
    verify,
)

__all__ = [
    "BOARD_COUNTERS",
    "BuiltTableInfo",
    "CorruptedTableError",
    "GenerateReport",
    "Mismatch",
    "MissingTableError",
    "ProbedMove",
    "ProbeResult",
    "TableCheckInfo",
    "Tablebase",
    "TablebaseError",
    "VerifyReport",
    "__version__",
    "generate",
    "install_sigbus_guard",
    "normalize_fen",
    "verify",
]
