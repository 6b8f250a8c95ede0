//! A second solver for the materials with men, independent of the
//! generator, and a value-for-value comparison with the tables.
//!
//! The brute-force solver of `tests/simple_solver.rs` keeps every position
//! in a hash map with its list of children: it covers three pieces and the
//! four-piece counted endings, not the hundreds of millions of positions of
//! a five-piece material. This one scales to five pieces and still shares
//! nothing with the generator but the move generator (`rules`):
//! * its own index: a material and its mirror as one array, one byte per
//!   slot; a slot is the side to move and each kind of piece's squares
//!   ranked over all 50 squares (colexicographic), so some slots are not
//!   positions (a square used twice, a man on its crowning row);
//! * its own board geometry for the king moves played backwards;
//! * its own order and propagation: men placements from the most advanced
//!   down (a man move only advances, so it leads to a placement already
//!   solved), and inside a placement a plain retrograde count over king
//!   moves (a position is lost once every king move leads to a won
//!   position and nothing else saves it);
//! * exits (captures, crownings) read through the prober from the tables
//!   of other materials, entered with a fresh draw count: no material here
//!   is a counted ending, and every way into one starts its count.
//!
//! Every position of both tables is then probed and compared, capture
//! positions included, and the number of positions must match the number
//! of slots the solver found legal.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use format::{Material, MaterialIndex, RuleSet, Wdl};
use gen::{generate, GenOptions};
use probe::Tablebase;
use rayon::prelude::*;
use rules::{Color, Position, Role, SquareSet};

const INVALID: u8 = 0;
const UNSOLVED: u8 = 1;
const WIN: u8 = 2;
const LOSS: u8 = 3;
const DRAW: u8 = 4;

/// Binomial coefficients C(n, k) for n <= 50, k <= 7.
struct Binomials([[u64; 8]; 51]);

impl Binomials {
    fn new() -> Binomials {
        let mut c = [[0u64; 8]; 51];
        for n in 0..=50 {
            c[n][0] = 1;
            for k in 1..8 {
                c[n][k] = if n == 0 {
                    0
                } else {
                    c[n - 1][k - 1] + c[n - 1][k]
                };
            }
        }
        Binomials(c)
    }

    fn get(&self, n: u32, k: u32) -> u64 {
        self.0[n as usize][k as usize]
    }

    /// Colexicographic rank of a set of squares (bit `s - 1` for square s).
    fn rank(&self, mask: u64) -> u64 {
        let mut rank = 0;
        let mut rest = mask;
        let mut i = 1;
        while rest != 0 {
            rank += self.get(rest.trailing_zeros(), i);
            rest &= rest - 1;
            i += 1;
        }
        rank
    }

    /// The set of `k` squares with this colexicographic rank.
    fn unrank(&self, mut rank: u64, k: u32) -> u64 {
        let mut mask = 0;
        for i in (1..=k).rev() {
            let mut bit = i - 1;
            while self.get(bit + 1, i) <= rank {
                bit += 1;
            }
            rank -= self.get(bit, i);
            mask |= 1 << bit;
        }
        mask
    }
}

/// The squares along each of the four diagonal directions from each
/// square, nearest first (index `square - 1`), from our own geometry:
/// square s sits on row (s - 1) / 5, on the dark column of that row.
fn rays() -> Vec<[Vec<u8>; 4]> {
    let at = |row: i32, col: i32| -> Option<u8> {
        let on_board = (0..10).contains(&row) && (0..10).contains(&col);
        (on_board && (row + col) % 2 == 1).then(|| (row * 5 + col / 2 + 1) as u8)
    };
    (1..=50i32)
        .map(|s| {
            let row = (s - 1) / 5;
            let col = 2 * ((s - 1) % 5) + if row % 2 == 0 { 1 } else { 0 };
            [(-1, -1), (-1, 1), (1, -1), (1, 1)].map(|(dr, dc)| {
                (1..10)
                    .map_while(|step| at(row + dr * step, col + dc * step))
                    .collect()
            })
        })
        .collect()
}

fn mask_of(set: SquareSet) -> u64 {
    set.iter().fold(0, |m, s| m | 1 << (s.number() - 1))
}

fn code_name(code: u8) -> &'static str {
    ["not a position", "unsolved", "win", "loss", "draw"][code as usize]
}

fn wdl_code(wdl: Wdl) -> u8 {
    match wdl {
        Wdl::Win => WIN,
        Wdl::Loss => LOSS,
        Wdl::Draw => DRAW,
    }
}

/// A material and its mirror: White holds `material`'s first side, both
/// sides to move.
struct Pair {
    counts: [u32; 4],
    sizes: [u64; 4],
    slice_len: usize,
    binomials: Binomials,
    rays: Vec<[Vec<u8>; 4]>,
}

/// One slot's pieces: men and kings of each colour, and the side to move.
#[derive(Clone, Copy)]
struct Slot {
    white_men: u64,
    black_men: u64,
    white_kings: u64,
    black_kings: u64,
    side: Color,
}

impl Pair {
    fn new(material: Material) -> Pair {
        let counts = [
            material.white_men,
            material.black_men,
            material.white_kings,
            material.black_kings,
        ]
        .map(u32::from);
        let binomials = Binomials::new();
        let sizes = counts.map(|k| binomials.get(50, k));
        Pair {
            counts,
            sizes,
            slice_len: (2 * sizes[2] * sizes[3]) as usize,
            binomials,
            rays: rays(),
        }
    }

    fn slices(&self) -> usize {
        (self.sizes[0] * self.sizes[1]) as usize
    }

    fn len(&self) -> usize {
        self.slices() * self.slice_len
    }

    /// The men of a slice, or `None` where they cannot stand together.
    fn men(&self, slice: usize) -> Option<(u64, u64)> {
        let slice = slice as u64;
        let white = self.binomials.unrank(slice / self.sizes[1], self.counts[0]);
        let black = self.binomials.unrank(slice % self.sizes[1], self.counts[1]);
        const CROWNING_ROW_OF_WHITE: u64 = 0b11111;
        const CROWNING_ROW_OF_BLACK: u64 = 0b11111 << 45;
        let legal = white & black == 0
            && white & CROWNING_ROW_OF_WHITE == 0
            && black & CROWNING_ROW_OF_BLACK == 0;
        legal.then_some((white, black))
    }

    /// How far the men of a slice have advanced, in rows: a man move adds one.
    fn advancement(&self, white_men: u64, black_men: u64) -> u32 {
        let rows = |mask: u64, of: &dyn Fn(u32) -> u32| {
            (0..50).filter(|b| mask >> b & 1 == 1).map(of).sum::<u32>()
        };
        rows(white_men, &|b| 9 - b / 5) + rows(black_men, &|b| b / 5)
    }

    fn slot(&self, (white_men, black_men): (u64, u64), slot: usize) -> Slot {
        let per_side = self.slice_len / 2;
        let kings = (slot % per_side) as u64;
        Slot {
            white_men,
            black_men,
            white_kings: self.binomials.unrank(kings / self.sizes[3], self.counts[2]),
            black_kings: self.binomials.unrank(kings % self.sizes[3], self.counts[3]),
            side: if slot < per_side {
                Color::White
            } else {
                Color::Black
            },
        }
    }

    fn index_in_slice(&self, s: &Slot) -> usize {
        let kings =
            self.binomials.rank(s.white_kings) * self.sizes[3] + self.binomials.rank(s.black_kings);
        let side = if s.side == Color::White { 0 } else { 1 };
        side * self.slice_len / 2 + kings as usize
    }

    fn slice_of(&self, white_men: u64, black_men: u64) -> usize {
        (self.binomials.rank(white_men) * self.sizes[1] + self.binomials.rank(black_men)) as usize
    }

    /// The array index of a position of this pair.
    fn index(&self, pos: &Position) -> usize {
        let s = Slot {
            white_men: mask_of(pos.men(Color::White)),
            black_men: mask_of(pos.men(Color::Black)),
            white_kings: mask_of(pos.kings(Color::White)),
            black_kings: mask_of(pos.kings(Color::Black)),
            side: pos.side_to_move(),
        };
        self.slice_of(s.white_men, s.black_men) * self.slice_len + self.index_in_slice(&s)
    }

    fn holds(&self, pos: &Position) -> bool {
        let m = Material::of(pos);
        [m.white_men, m.black_men, m.white_kings, m.black_kings].map(u32::from) == self.counts
    }
}

impl Slot {
    fn position(&self) -> Option<Position> {
        let white = self.white_men | self.white_kings;
        let black = self.black_men | self.black_kings;
        let kings = self.white_kings | self.black_kings;
        let distinct = white & black == 0
            && self.white_men & self.white_kings == 0
            && self.black_men & self.black_kings == 0;
        if !distinct {
            return None;
        }
        Position::from_dense_masks(self.side, white, black, kings).ok()
    }

    fn occupied(&self) -> u64 {
        self.white_men | self.black_men | self.white_kings | self.black_kings
    }
}

/// The solver's state for one men placement (both sides to move).
struct SliceState {
    value: Vec<u8>,
    /// King moves not yet known to lead to a position the opponent wins.
    king_moves_left: Vec<u8>,
    must_capture: Vec<bool>,
    drawn_exit: Vec<bool>,
    queue: Vec<usize>,
}

struct Solver<'a> {
    pair: &'a Pair,
    tb: &'a Tablebase,
    /// Final values of the slices solved so far.
    values: &'a [u8],
}

impl Solver<'_> {
    /// The value, for its side to move, of a position one move away.
    fn child_value(&self, child: &Position) -> u8 {
        if child.pieces(child.side_to_move()).is_empty() {
            return LOSS;
        }
        if self.pair.holds(child) {
            let v = self.values[self.pair.index(child)];
            assert!(v >= WIN, "{child}: a man move into an unsolved placement");
            return v;
        }
        let wdl = self
            .tb
            .probe_wdl(child, None)
            .unwrap_or_else(|e| panic!("probing {child}: {e}"));
        wdl_code(wdl)
    }

    /// The values of one slice's slots.
    fn solve_slice(&self, slice: usize) -> Vec<u8> {
        let len = self.pair.slice_len;
        let Some(men) = self.pair.men(slice) else {
            return vec![INVALID; len];
        };
        let mut state = SliceState {
            value: vec![INVALID; len],
            king_moves_left: vec![0; len],
            must_capture: vec![false; len],
            drawn_exit: vec![false; len],
            queue: Vec::new(),
        };
        for i in 0..len {
            if let Some(pos) = self.pair.slot(men, i).position() {
                self.start(&mut state, i, &pos);
            }
        }
        while let Some(i) = state.queue.pop() {
            let slot = self.pair.slot(men, i);
            let value = state.value[i];
            self.propagate(&mut state, &slot, value);
        }
        for v in &mut state.value {
            if *v == UNSOLVED {
                *v = DRAW;
            }
        }
        state.value
    }

    /// A slot's value from the moves that leave the slice, and its count of
    /// king moves.
    fn start(&self, state: &mut SliceState, i: usize, pos: &Position) {
        let moves = pos.legal_moves();
        let capture = moves.first().is_some_and(|m| m.is_capture());
        let mut kings = 0u32;
        let mut wins = false;
        let mut drawn = false;
        for mv in &moves {
            let king = matches!(pos.piece_at(mv.from()), Some((_, Role::King)));
            if king && !capture {
                kings += 1;
                continue;
            }
            match self.child_value(&pos.play(mv)) {
                LOSS => wins = true,
                DRAW => drawn = true,
                _ => {}
            }
        }
        state.must_capture[i] = capture;
        state.drawn_exit[i] = drawn;
        state.king_moves_left[i] = u8::try_from(kings).expect("fewer than 256 king moves");
        state.value[i] = if wins {
            WIN
        } else if kings > 0 {
            UNSOLVED
        } else if drawn {
            DRAW
        } else {
            LOSS
        };
        if matches!(state.value[i], WIN | LOSS) {
            state.queue.push(i);
        }
    }

    /// Passes a settled value to every position of the slice with a king
    /// move into it: the mover's king slides back over empty squares.
    fn propagate(&self, state: &mut SliceState, slot: &Slot, value: u8) {
        let mover = slot.side.opponent();
        let kings = match mover {
            Color::White => slot.white_kings,
            Color::Black => slot.black_kings,
        };
        let occupied = slot.occupied();
        for to in (0..50).filter(|b| kings >> b & 1 == 1) {
            for ray in &self.pair.rays[to as usize] {
                for &from in ray {
                    let from_bit = 1u64 << (from - 1);
                    if occupied & from_bit != 0 {
                        break;
                    }
                    let moved = kings & !(1 << to) | from_bit;
                    let mut before = Slot {
                        side: mover,
                        ..*slot
                    };
                    match mover {
                        Color::White => before.white_kings = moved,
                        Color::Black => before.black_kings = moved,
                    }
                    let p = self.pair.index_in_slice(&before);
                    self.settle_predecessor(state, p, value);
                }
            }
        }
    }

    fn settle_predecessor(&self, state: &mut SliceState, p: usize, child: u8) {
        if state.value[p] != UNSOLVED || state.must_capture[p] {
            return;
        }
        if child == LOSS {
            state.value[p] = WIN;
            state.queue.push(p);
            return;
        }
        state.king_moves_left[p] -= 1;
        if state.king_moves_left[p] == 0 {
            state.value[p] = if state.drawn_exit[p] { DRAW } else { LOSS };
            if state.value[p] == LOSS {
                state.queue.push(p);
            }
        }
    }
}

/// Solves a material and its mirror: one byte per slot of [`Pair`].
fn solve_pair(pair: &Pair, tb: &Tablebase) -> Vec<u8> {
    let mut values = vec![INVALID; pair.len()];
    let mut levels: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for slice in 0..pair.slices() {
        if let Some((w, b)) = pair.men(slice) {
            levels
                .entry(pair.advancement(w, b))
                .or_default()
                .push(slice);
        }
    }
    for slices in levels.values().rev() {
        let solved: Vec<(usize, Vec<u8>)> = {
            let solver = Solver {
                pair,
                tb,
                values: &values,
            };
            slices
                .par_iter()
                .map(|&s| (s, solver.solve_slice(s)))
                .collect()
        };
        for (s, v) in solved {
            values[s * pair.slice_len..(s + 1) * pair.slice_len].copy_from_slice(&v);
        }
    }
    values
}

/// The stored values of one table, decoded whole (WLD codes by index).
fn stored_values(dir: &Path, rule_set: RuleSet, table: Material) -> Vec<u8> {
    let path = format::table_path(&format::table_dir(dir, rule_set), table);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let reader = format::TableReader::new(bytes).expect("a readable table");
    reader.decode_all().expect("a decodable table")
}

/// One position of a table against the independent value: its stored value
/// unless it must capture (the file holds a filler there); one capture
/// position in 16 is probed instead, which checks the prober's own capture
/// search.
fn disagreement(pos: &Position, stored: u8, mine: u8, tb: &Tablebase) -> Option<String> {
    let theirs = if !pos.has_capture() {
        wdl_code(Wdl::from_code(stored).expect("a WLD code"))
    } else if pos.key()[0].is_multiple_of(16) {
        wdl_code(tb.probe_wdl(pos, None).expect("probe"))
    } else {
        return None;
    };
    (mine != theirs).then(|| {
        format!(
            "{pos}: tables {}, independent solver {}",
            code_name(theirs),
            code_name(mine)
        )
    })
}

/// Compares every position of `material`'s table (and its mirror's) with
/// the independent values; returns the positions compared.
fn compare(
    (dir, rule_set): (&Path, RuleSet),
    material: Material,
    pair: &Pair,
    values: &[u8],
    tb: &Tablebase,
) -> u64 {
    let tables = if material == material.mirrored() {
        vec![material]
    } else {
        vec![material, material.mirrored()]
    };
    let mut compared = 0;
    for table in tables {
        let index = MaterialIndex::new(table);
        let stored = stored_values(dir, rule_set, table);
        assert_eq!(
            stored.len() as u64,
            index.count(),
            "{table}: positions stored"
        );
        let mismatches: Vec<String> = stored
            .par_iter()
            .enumerate()
            .with_min_len(1 << 14)
            .flat_map_iter(|(i, &code)| {
                let pos = index.unrank(i as u64);
                let ours = if pair.holds(&pos) { pos } else { pos.flipped() };
                assert!(pair.holds(&ours), "{pos} is not of {material}");
                // The table stores `pos` for its side to move; a material
                // that is its own mirror also holds the flipped position in
                // another slot, with the same value.
                [ours, ours.flipped()]
                    .into_iter()
                    .filter(|p| pair.holds(p))
                    .filter_map(move |p| disagreement(&p, code, values[pair.index(&p)], tb))
            })
            .collect();
        assert!(
            mismatches.is_empty(),
            "{table}: {} mismatches, first {:?}",
            mismatches.len(),
            &mismatches[..mismatches.len().min(10)]
        );
        compared += index.count();
    }
    let legal = values.iter().filter(|&&v| v != INVALID).count() as u64;
    let expected = if material == material.mirrored() {
        2 * compared
    } else {
        compared
    };
    assert_eq!(
        legal, expected,
        "{material}: slots solved against table positions"
    );
    compared
}

/// The materials of `pieces` pieces with at least `men` men that are not
/// counted endings, one per pair.
fn pairs(pieces: u32, men: u32) -> Vec<Material> {
    let mut out: Vec<Material> = Vec::new();
    for m in Material::all_up_to(pieces) {
        let wanted = m.pieces() == pieces && m.men() >= men && m.counted_ending().is_none();
        if wanted && !out.contains(&m.mirrored()) {
            out.push(m);
        }
    }
    out
}

fn check_pairs(dir: &Path, rule_set: RuleSet, materials: &[Material]) {
    let tb = Tablebase::open(dir, rule_set).expect("tables");
    for &m in materials {
        let start = std::time::Instant::now();
        let pair = Pair::new(m);
        let values = solve_pair(&pair, &tb);
        let solved = start.elapsed().as_secs_f64();
        let compared = compare((dir, rule_set), m, &pair, &values, &tb);
        eprintln!(
            "{rule_set} {m}: {compared} positions agree (solved in {solved:.1} s, compared in {:.1} s)",
            start.elapsed().as_secs_f64() - solved
        );
    }
}

/// The directory with every table up to `pieces` pieces: `DTB_TABLES` if
/// set (built beforehand, to share one build between runs), else built here.
fn tables(rule_set: RuleSet, pieces: u32) -> (Option<tempfile::TempDir>, PathBuf) {
    if let Some(dir) = std::env::var_os("DTB_TABLES") {
        return (None, PathBuf::from(dir));
    }
    let dir = tempfile::tempdir().expect("temp dir");
    generate(&GenOptions::new(dir.path(), rule_set, pieces)).expect("generation");
    let path = dir.path().to_path_buf();
    (Some(dir), path)
}

fn four_pieces(rule_set: RuleSet) {
    let (_keep, dir) = tables(rule_set, 4);
    let mut materials = pairs(3, 1);
    materials.extend(pairs(4, 1));
    check_pairs(&dir, rule_set, &materials);
}

#[test]
fn independent_solver_agrees_up_to_four_pieces_fmjd() {
    four_pieces(RuleSet::Fmjd);
}

fn five_pieces(rule_set: RuleSet) {
    let (_keep, dir) = tables(rule_set, 5);
    check_pairs(&dir, rule_set, &pairs(5, 2));
}

#[test]
#[ignore = "about 10 minutes on 2 cores in release: every five-piece material with two men or more"]
fn independent_solver_agrees_five_pieces_two_men_fmjd() {
    five_pieces(RuleSet::Fmjd);
}

#[test]
#[ignore = "about 10 minutes on 2 cores in release: every five-piece material with two men or more"]
fn independent_solver_agrees_five_pieces_two_men_diagonal() {
    five_pieces(RuleSet::FmjdDiagonal);
}

#[test]
#[ignore = "about 10 minutes on 2 cores in release: every five-piece material with two men or more"]
fn independent_solver_agrees_five_pieces_two_men_pure() {
    five_pieces(RuleSet::Pure);
}
