"""Every error comes back as the documented Python exception with a clear
message."""

import struct
from pathlib import Path

import pytest

import draughts_tb

FRESH = "W:WK46,K47:BK5"


@pytest.mark.parametrize(
    "fen, message",
    [
        ("", "bad FEN"),
        ("W:W31,32:B1,x", "bad FEN"),
        ("X:W31:B1", "bad FEN"),
        ("W:W31,31:B1", "bad FEN"),
        ("W:W51:B1", "bad FEN"),
        ("W:W3:B40", "bad FEN"),  # a white man on its crowning row
        ("W:WK1:B", "already over"),
        ("W:W31-40:BK1", "pieces"),
    ],
)
def test_bad_positions_are_value_errors(tb: draughts_tb.Tablebase, fen: str, message: str) -> None:
    for call in (tb.probe, tb.wdl, tb.best_move, tb.wdl_if_cached):
        with pytest.raises(ValueError, match=message):
            call(fen)


def test_bad_fen_names_the_input(tb: draughts_tb.Tablebase) -> None:
    with pytest.raises(ValueError, match=r'bad FEN "W:WK46,Q:BK5"'):
        tb.probe("W:WK46,Q:BK5")
    with pytest.raises(ValueError):
        draughts_tb.normalize_fen("nonsense")


def test_bad_position_types(tb: draughts_tb.Tablebase) -> None:
    class NotAString:
        fen = 42

    with pytest.raises(TypeError, match="FEN string or an object with a fen attribute"):
        tb.probe(42)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="must be a string"):
        tb.probe(NotAString())  # type: ignore[arg-type]


@pytest.mark.parametrize("plies_left", [-1, 11, 256, 10**20, -(10**40)])
def test_bad_plies_left(tb: draughts_tb.Tablebase, plies_left: int) -> None:
    # A 5-move ending: at most 10 plies left; any int out of range is a
    # ValueError that says so.
    with pytest.raises(ValueError, match="plies"):
        tb.probe(FRESH, plies_left=plies_left)
    with pytest.raises(TypeError, match="plies_left must be an int"):
        tb.probe(FRESH, plies_left="5")  # type: ignore[arg-type]


def test_unknown_rule_set(table_dir: Path) -> None:
    for call in (
        lambda: draughts_tb.Tablebase(table_dir, rules="fmjd-strict"),
        lambda: draughts_tb.generate(table_dir, rules="fmjd-strict", progress=False),
        lambda: draughts_tb.verify(table_dir, rules="fmjd-strict", progress=False),
    ):
        with pytest.raises(ValueError, match="unknown rule set"):
            call()


def test_bad_generate_arguments(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="pieces must be between 2 and"):
        draughts_tb.generate(tmp_path, pieces=1, progress=False)
    with pytest.raises(ValueError, match="pieces must be between 2 and"):
        draughts_tb.generate(tmp_path, pieces=11, progress=False)
    with pytest.raises(ValueError, match="bad material"):
        draughts_tb.generate(tmp_path, materials=["KKQ-K"], progress=False)
    with pytest.raises(ValueError, match="threads"):
        draughts_tb.generate(tmp_path, pieces=2, threads=0, progress=False)
    with pytest.raises(ValueError, match="bad material"):
        draughts_tb.verify(tmp_path, materials=["nonsense"], progress=False)


def test_bad_material_name(tb: draughts_tb.Tablebase) -> None:
    with pytest.raises(ValueError, match="bad material"):
        tb.has_table("KKQ-K")


def test_missing_directories(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError) as e:
        draughts_tb.Tablebase(tmp_path / "nowhere")
    assert e.value.filename == str(tmp_path / "nowhere")
    with pytest.raises(FileNotFoundError, match="no pure tables"):
        draughts_tb.Tablebase(tmp_path, rules="pure")
    with pytest.raises(FileNotFoundError, match="no fmjd tables"):
        draughts_tb.verify(tmp_path, progress=False)


def test_missing_table(tb: draughts_tb.Tablebase, table_dir: Path) -> None:
    with pytest.raises(draughts_tb.MissingTableError, match="missing table KMM-K") as e:
        tb.probe("W:WK46,28,33:BK5")
    assert isinstance(e.value, draughts_tb.TablebaseError)
    assert e.value.material == "KMM-K"
    assert Path(e.value.path) == table_dir / "fmjd" / "KMM-K.dtb"
    # Black to move: the colour-flipped table.
    with pytest.raises(draughts_tb.MissingTableError) as e:
        tb.wdl("B:WK46:BK5,18,17")
    assert e.value.material == "KMM-K"
    # A table reached only through a move is missing too.
    with pytest.raises(draughts_tb.MissingTableError):
        tb.best_move("W:WK46,K47,37,38:BK5")


def test_missing_table_found_once_built(table_copy: Path) -> None:
    tb = draughts_tb.Tablebase(table_copy)
    with pytest.raises(draughts_tb.MissingTableError):
        tb.wdl("W:WK46,28,33:BK5")
    draughts_tb.generate(table_copy, materials=["KMM-K"], progress=False)
    assert tb.wdl("W:WK46,28,33:BK5") in (-1, 0, 1)


def table_file(root: Path, material: str) -> Path:
    return root / "fmjd" / f"{material}.dtb"


def damage_blocks(path: Path) -> None:
    """Overwrites every compressed block (between the 128-byte header and
    the block index) with garbage, leaving header and index intact."""
    data = bytearray(path.read_bytes())
    (index_offset,) = struct.unpack_from("<Q", data, 48)
    data[128:index_offset] = bytes(b ^ 0x5A for b in data[128:index_offset])
    path.write_bytes(bytes(data))


def test_corrupted_block(table_copy: Path, tb: draughts_tb.Tablebase) -> None:
    damage_blocks(table_file(table_copy, "KK-K"))
    damaged = draughts_tb.Tablebase(table_copy)
    with pytest.raises(draughts_tb.CorruptedTableError, match="checksum") as e:
        damaged.probe("W:WK46,K47:BK5")
    assert isinstance(e.value, draughts_tb.TablebaseError)
    assert Path(e.value.path) == table_file(table_copy, "KK-K")
    # Other tables still answer.
    assert damaged.wdl("W:WK46:BK5") == tb.wdl("W:WK46:BK5")


def test_corrupted_header(table_copy: Path) -> None:
    path = table_file(table_copy, "K-K")
    data = bytearray(path.read_bytes())
    data[30] ^= 1
    path.write_bytes(bytes(data))
    with pytest.raises(draughts_tb.CorruptedTableError):
        draughts_tb.Tablebase(table_copy).wdl("W:WK46:BK5")


def test_truncated_table(table_copy: Path) -> None:
    path = table_file(table_copy, "K-K")
    path.write_bytes(path.read_bytes()[:100])
    with pytest.raises(draughts_tb.CorruptedTableError, match="K-K.dtb"):
        draughts_tb.Tablebase(table_copy).probe("W:WK46:BK5")


def test_positioned_reads_answer_alike_and_refuse_a_bad_mode(table_dir: Path) -> None:
    mapped = draughts_tb.Tablebase(table_dir)
    read = draughts_tb.Tablebase(table_dir, storage="pread")
    for fen in ("W:WK46:BK5", "W:WK46,K47:BK5", "B:W28:BK5", "W:WK1,28:BK50", "B:WK1,K2:B27"):
        assert read.probe(fen).wdl == mapped.probe(fen).wdl, fen
    with pytest.raises(ValueError, match="storage"):
        draughts_tb.Tablebase(table_dir, storage="mapped")  # type: ignore[arg-type]


def test_truncated_table_under_positioned_reads(table_copy: Path) -> None:
    tb = draughts_tb.Tablebase(table_copy, storage="pread")
    path = table_file(table_copy, "KK-K")
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 3])
    with pytest.raises(draughts_tb.CorruptedTableError, match="KK-K.dtb"):
        tb.probe("W:WK1,K2:BK50")
    # The other tables still answer.
    assert tb.wdl("W:WK46:BK5") == draughts_tb.Tablebase(table_copy).wdl("W:WK46:BK5")


def test_wrong_material_and_rule_set(table_copy: Path, tmp_path: Path) -> None:
    table_file(table_copy, "M-K").write_bytes(table_file(table_copy, "K-M").read_bytes())
    with pytest.raises(draughts_tb.CorruptedTableError, match="holds material K-M"):
        draughts_tb.Tablebase(table_copy).wdl("W:W28:BK5")
    pure = tmp_path / "pure"
    draughts_tb.generate(pure, pieces=2, rules="pure", progress=False)
    table_file(table_copy, "K-K").write_bytes((pure / "pure" / "K-K.dtb").read_bytes())
    with pytest.raises(draughts_tb.CorruptedTableError, match="rule set pure"):
        draughts_tb.Tablebase(table_copy).wdl("W:WK46:BK5")


def test_verify_reports_damage(table_copy: Path) -> None:
    damage_blocks(table_file(table_copy, "KK-K"))
    report = draughts_tb.verify(table_copy, progress=False, materials=["KK-K", "K-K"])
    assert not report.ok
    checks = {t.material: t for t in report.tables}
    assert not checks["KK-K"].ok and "checksum" in (checks["KK-K"].problem or "")
    assert checks["K-K"].ok and checks["K-K"].problem is None
    assert "ok=False" in repr(report)
    # Checking K-KK reads KK-K, where its moves lead: K-KK fails, naming it.
    report = draughts_tb.verify(table_copy, progress=False, materials=["K-KK"])
    (check,) = report.tables
    assert not report.ok and not check.ok
    assert "KK-K.dtb" in (check.problem or "")


def test_verify_samples_and_refuses_a_bad_fraction(table_copy: Path) -> None:
    full = draughts_tb.verify(table_copy, progress=False, materials=["KK-K"])
    tenth = draughts_tb.verify(table_copy, progress=False, materials=["KK-K"], sample=0.1)
    assert full.ok and tenth.ok
    assert full.positions // 20 < tenth.positions < full.positions // 5
    for bad in (0.0, 1.5, -1.0, float("nan")):
        with pytest.raises(ValueError, match="sample"):
            draughts_tb.verify(table_copy, progress=False, sample=bad)


SIGBUS_CHECK = """
import sys
import draughts_tb


def catches_sigbus():
    for line in open("/proc/self/status"):
        if line.startswith("SigCgt:"):
            return int(line.split()[1], 16) >> 6 & 1 == 1  # bit 6: SIGBUS (7)
    raise SystemExit("no SigCgt line")


tb = draughts_tb.Tablebase(sys.argv[1])
tb.probe("W:WK46,K47:BK5")
print(catches_sigbus(), draughts_tb.install_sigbus_guard(), catches_sigbus())
"""


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="Linux only")
def test_no_sigbus_handler_unless_asked(table_dir: Path) -> None:
    """Importing and probing leave SIGBUS alone; the guard takes it when asked."""
    import os
    import subprocess
    import sys

    # faulthandler would catch SIGBUS itself: keep it off in the child.
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONFAULTHANDLER", "PYTHONDEVMODE")
    }
    out = subprocess.run(
        [sys.executable, "-c", SIGBUS_CHECK, str(table_dir)],
        check=True,
        env=env,
        capture_output=True,
        text=True,
    ).stdout.split()
    assert out == ["False", "True", "True"]
