"""Shared fixtures: tables built once per test run with draughts_tb.generate."""

import shutil
from pathlib import Path

import pytest

import draughts_tb

# Every material of up to 3 pieces, plus two 4-piece families: the 16-move
# endings KKK-K and KKM-K (distance tables) and KK-KK (a WLD table).
EXTRA_MATERIALS = ["KKM-K", "KK-KK"]


@pytest.fixture(scope="session")
def table_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory of fmjd tables (built once per test run)."""
    path = tmp_path_factory.mktemp("tables")
    draughts_tb.generate(path, pieces=3, progress=False)
    draughts_tb.generate(path, materials=EXTRA_MATERIALS, progress=False)
    return path


@pytest.fixture(scope="session")
def tb(table_dir: Path) -> draughts_tb.Tablebase:
    """The tables of `table_dir`, opened once."""
    return draughts_tb.Tablebase(table_dir)


@pytest.fixture()
def table_copy(table_dir: Path, tmp_path: Path) -> Path:
    """A private copy of the tables, free to damage."""
    copy = tmp_path / "tables"
    shutil.copytree(table_dir, copy)
    return copy
