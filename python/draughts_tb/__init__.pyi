"""Type stubs of draughts_tb (the extension module draughts_tb._draughts_tb)."""

import os
from pathlib import Path
from typing import List, Literal, Optional, Protocol, Sequence, Tuple, Union, final

from typing_extensions import deprecated

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

__version__: str
BOARD_COUNTERS: str
"""The board attribute read for the draw counter: ``"_endgame_remaining"``."""

_Result = Literal["win", "draw", "loss"]
_RuleSetName = Literal["fmjd", "fmjd-diagonal", "pure"]

class _FenAttribute(Protocol):
    """A board with a ``fen`` attribute or property, such as a py-draughts ``Board``."""

    @property
    def fen(self) -> str: ...

class _FenMethod(Protocol):
    """A board with a ``fen()`` method."""

    def fen(self) -> str: ...

_Position = Union[str, _FenAttribute, _FenMethod]
"""A PDN FEN (``"W:WK46,K47,28:BK5"`` or ``'[FEN "..."]'``) or a board."""

class TablebaseError(Exception):
    """Base class of the table errors (bad input is a ValueError, I/O an OSError)."""

class MissingTableError(TablebaseError):
    """A table the answer needs is not in the directory."""

    material: str
    """The material whose table is missing, e.g. ``"KKM-K"``."""
    path: str
    """Where the table was looked for."""

class CorruptedTableError(TablebaseError):
    """A table file is damaged, or holds another material or rule set than its name says."""

    path: str
    """The file."""

@final
class ProbedMove:
    """A legal move with the result it leads to for the side playing it."""

    @property
    def move(self) -> str:
        """PDN: ``32-28``, ``28x39``, or ``46x37x28`` where two captures share start and end."""
    @property
    def result(self) -> _Result:
        """The result for the side playing the move."""
    @property
    def wdl(self) -> int:
        """1 win, 0 draw, -1 loss (for the side playing the move)."""
    @property
    def dtc(self) -> Optional[int]:
        """Distance to conversion through this move, in plies (1 if it converts); None
        for a draw or without DTC files."""
    @property
    def counted_threshold(self) -> Optional[int]:
        """In a 16- or 5-move ending under the FMJD limits: the plies the count must
        have left for this move's result to hold; else None."""
    @property
    def lone_king_plies(self) -> Optional[int]:
        """Under ``pure``, in the lone-king endings: plies through this move until the
        game ends or leaves them with the result settled; else None."""
    @property
    def plies_left_after(self) -> Optional[int]:
        """The plies left on the 16- or 5-move count after the move; None where none runs."""
    @property
    def kings_only_plies_after(self) -> Optional[int]:
        """The king-only plies of the 25-move rule after the move (0 after a capture
        or a man move); None where the rule does not apply."""
    @property
    @deprecated("use counted_threshold, lone_king_plies or dtc")
    def plies(self) -> Optional[int]:
        """Deprecated: ``counted_threshold`` or ``lone_king_plies``."""
    @property
    def fen(self) -> str:
        """The position after the move (canonical PDN)."""
    @property
    def from_square(self) -> int:
        """The start square (1-50)."""
    @property
    def to_square(self) -> int:
        """The end square (1-50)."""
    @property
    def captures(self) -> List[int]:
        """The squares of the captured pieces, ascending (empty for a non-capture)."""

@final
class ProbeResult:
    """The answer of :meth:`Tablebase.probe`."""

    @property
    def fen(self) -> str:
        """The position (canonical PDN)."""
    @property
    def result(self) -> _Result:
        """The result for the side to move, with the draw counter given."""
    @property
    def wdl(self) -> int:
        """1 win, 0 draw, -1 loss."""
    @property
    def dtc(self) -> Optional[int]:
        """Distance to conversion in plies: plies, the conversion included, to the
        next capture or man move on the best path (winner shortest, loser longest);
        None for a draw or without DTC files (``dtb gen --dtc``)."""
    @property
    def counted_threshold(self) -> Optional[int]:
        """In a 16- or 5-move ending under the FMJD limits: the plies the count must
        have left for the result to hold; else None."""
    @property
    def lone_king_plies(self) -> Optional[int]:
        """Under ``pure``, in the lone-king endings: plies until the game ends or
        leaves them with the result settled; else None."""
    @property
    @deprecated("use counted_threshold, lone_king_plies or dtc")
    def plies(self) -> Optional[int]:
        """Deprecated: ``counted_threshold`` or ``lone_king_plies``."""
    @property
    def distance(self) -> Optional[int]:
        """The plies the table's win or loss needs on the draw counter, also when
        fewer are left (and the result is a draw); None for draws and WLD tables."""
    @property
    def counted_ending(self) -> Optional[Literal[16, 5]]:
        """16 or 5 in the FMJD 16- or 5-move ending (rules with move limits), else None."""
    @property
    def plies_left(self) -> Optional[int]:
        """The draw counter the answer assumes; None outside counted endings."""
    @property
    def kings_only_plies(self) -> Optional[int]:
        """The king-only plies of the 25-move rule the answer assumes; None where the
        rule does not apply (counted endings, ``pure``)."""
    @property
    def dtc_available(self) -> bool:
        """Whether the DTC files of the position's material are there."""
    @property
    def line(self) -> Optional[List[str]]:
        """With ``probe(..., line=True)``: the principal line to the end of the game
        (PDN moves); None for a draw or when not asked for."""
    @property
    def moves(self) -> Tuple[ProbedMove, ...]:
        """Every legal move, best first: wins (shortest first), draws, losses (longest first)."""

@final
class Tablebase:
    """Endgame tables of one rule set in one directory (``path/<rules>/``).

    Raises ``FileNotFoundError`` when the directory or its folder for these
    rules does not exist, ``ValueError`` for an unknown rule set. Thread-safe;
    the GIL is released while probing.
    """

    def __new__(
        cls,
        path: Union[str, "os.PathLike[str]"],
        rules: str = "fmjd",
        *,
        cache_mb: int = 64,
        storage: Literal["mmap", "pread"] = "mmap",
    ) -> "Tablebase": ...
    @property
    def path(self) -> Path:
        """The directory given when opening."""
    @property
    def rules(self) -> _RuleSetName:
        """The rule set."""
    @property
    def max_pieces(self) -> int:
        """The largest n such that every table of up to n pieces is present."""
    def materials(self) -> List[str]:
        """The materials whose table files are present."""
    def has_table(self, material: str) -> bool:
        """Whether the table of ``material`` (e.g. ``"KKM-K"``) is present and valid."""
    def probe(
        self,
        position: _Position,
        plies_left: Optional[int] = None,
        *,
        kings_only_plies: int = 0,
        line: bool = False,
    ) -> ProbeResult:
        """The result, distances and every move's value; ``line=True`` adds the
        principal line.

        ``plies_left``: plies left on the FMJD draw counter of a 16- or 5-move
        ending (None: just entered, or, for a board, its own counters).
        ``kings_only_plies``: plies played in a row with only kings moving
        (0-49; the 25-move rule draws a win that cannot convert by the 50th;
        above 0 a decided position needs its DTC file).
        Raises ``ValueError`` (bad FEN, finished game, more than 10 pieces,
        bad ``plies_left`` or ``kings_only_plies``), ``MissingTableError``,
        ``CorruptedTableError``.
        """
    def wdl(
        self, position: _Position, plies_left: Optional[int] = None, *, kings_only_plies: int = 0
    ) -> int:
        """1 (win), 0 (draw) or -1 (loss) for the side to move."""
    def wdl_if_cached(
        self, position: _Position, plies_left: Optional[int] = None
    ) -> Optional[int]:
        """Like :meth:`wdl`, but None when a table block would have to be read."""
    def best_move(
        self, position: _Position, plies_left: Optional[int] = None, *, kings_only_plies: int = 0
    ) -> Optional[ProbedMove]:
        """The shortest win or longest defence (distance tables), or a move that
        keeps the result (WLD tables); None when there is no legal move."""

@final
class BuiltTableInfo:
    """One table written by :func:`generate`."""

    @property
    def material(self) -> str: ...
    @property
    def path(self) -> Path: ...
    @property
    def positions(self) -> int: ...
    @property
    def bytes(self) -> int: ...
    @property
    def seconds(self) -> float: ...

@final
class GenerateReport:
    """What :func:`generate` did."""

    @property
    def built(self) -> List[BuiltTableInfo]: ...
    @property
    def skipped(self) -> List[str]: ...
    @property
    def seconds(self) -> float: ...
    @property
    def peak_memory_bytes(self) -> Optional[int]: ...

@final
class Mismatch:
    """A stored value that the values of its moves contradict."""

    @property
    def fen(self) -> str: ...
    @property
    def stored(self) -> Tuple[_Result, Optional[int]]: ...
    @property
    def expected(self) -> Tuple[_Result, Optional[int]]: ...

@final
class TableCheckInfo:
    """The verdict of :func:`verify` on one table."""

    @property
    def material(self) -> str: ...
    @property
    def path(self) -> Path: ...
    @property
    def ok(self) -> bool: ...
    @property
    def checked(self) -> int: ...
    @property
    def mismatches(self) -> List[Mismatch]: ...
    @property
    def mismatch_count(self) -> int: ...
    @property
    def problem(self) -> Optional[str]: ...
    @property
    def seconds(self) -> float: ...

@final
class VerifyReport:
    """What :func:`verify` found."""

    @property
    def ok(self) -> bool: ...
    @property
    def tables(self) -> List[TableCheckInfo]: ...
    @property
    def manifest_problems(self) -> List[str]: ...
    @property
    def positions(self) -> int: ...

def generate(
    path: Union[str, "os.PathLike[str]"],
    pieces: int = 4,
    rules: str = "fmjd",
    progress: bool = True,
    *,
    materials: Optional[Sequence[str]] = None,
    threads: Optional[int] = None,
    dtc: bool = False,
) -> GenerateReport:
    """Build every table of up to ``pieces`` pieces (or the named ``materials``
    and what they depend on) into ``path/<rules>/``; valid tables already there
    are kept; ``dtc`` also writes the distance-to-conversion files. Raises
    ``ValueError`` for bad arguments, ``OSError`` for I/O."""

def verify(
    path: Union[str, "os.PathLike[str]"],
    rules: str = "fmjd",
    progress: bool = True,
    *,
    materials: Optional[Sequence[str]] = None,
    threads: Optional[int] = None,
    sample: Optional[float] = None,
) -> VerifyReport:
    """Check checksums, the manifest and every stored value against its moves.
    Every table gets its verdict in the report (``problem`` says why one
    failed, a missing or damaged neighbour included). ``sample`` (above 0, at
    most 1) checks only about that fraction of each table's positions, the
    same ones on every run. Raises ``FileNotFoundError`` when there are no
    tables of these rules, ``ValueError`` for a bad ``sample``."""

def install_sigbus_guard() -> bool:
    """Install the SIGBUS guard (a process-wide SIGBUS handler): a table file
    cut short by another process during a probe raises ``CorruptedTableError``
    instead of ending the interpreter. Signals that are not the prober's go to
    the handler installed before. Not installed unless asked for. Returns
    whether the guard was installed (only Linux has one)."""

def normalize_fen(position: _Position) -> str:
    """The canonical PDN FEN of ``position``; ``ValueError`` for a bad FEN."""
