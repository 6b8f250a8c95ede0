"""Type stubs of draughts_tb (the extension module draughts_tb._draughts_tb)."""

import os
from pathlib import Path
from typing import List, Literal, Optional, Protocol, Sequence, Tuple, Union, final

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
    def plies(self) -> Optional[int]:
        """Plies to the result through this move where the table keeps distances, else None."""
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
    def plies(self) -> Optional[int]:
        """Plies to the result where the table keeps distances (counted endings;
        lone-king endings under ``pure``); None for draws and WLD tables."""
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
    def probe(self, position: _Position, plies_left: Optional[int] = None) -> ProbeResult:
        """The result, distances and every move's value.

        ``plies_left``: plies left on the FMJD draw counter of a 16- or 5-move
        ending (None: just entered, or, for a board, its own counters).
        Raises ``ValueError`` (bad FEN, finished game, more than 10 pieces,
        bad ``plies_left``), ``MissingTableError``, ``CorruptedTableError``.
        """
    def wdl(self, position: _Position, plies_left: Optional[int] = None) -> int:
        """1 (win), 0 (draw) or -1 (loss) for the side to move."""
    def wdl_if_cached(
        self, position: _Position, plies_left: Optional[int] = None
    ) -> Optional[int]:
        """Like :meth:`wdl`, but None when a table block would have to be read."""
    def best_move(
        self, position: _Position, plies_left: Optional[int] = None
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
) -> GenerateReport:
    """Build every table of up to ``pieces`` pieces (or the named ``materials``
    and what they depend on) into ``path/<rules>/``; valid tables already there
    are kept. Raises ``ValueError`` for bad arguments, ``OSError`` for I/O."""

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
