//! Legal move generation under the FMJD rules and making moves.
//!
//! Captures are compulsory and the majority rule applies: only the capture
//! chains that take the most pieces are legal. Captured pieces stay on the
//! board until the move ends (they block and cannot be jumped twice); the
//! start square of the capturing piece counts as empty. A man is crowned
//! only when it ends its move on its crowning row. Chains with the same
//! start, end and set of captured pieces are one move.

use crate::board::{
    nearest, open_ray, step, step_by, Square, SquareSet, NEIGHBOUR, NONE, RAY, VALID,
};
use crate::position::{Color, Position};

/// A legal move: where the piece starts, where it ends, and what it takes.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Move {
    pub(crate) from: u8,
    pub(crate) to: u8,
    pub(crate) captured: u64,
}

impl Move {
    /// The square the moving piece starts on.
    pub fn from(&self) -> Square {
        Square::from_bit(self.from as u32)
    }

    /// The square the moving piece ends on (the start square again for a
    /// king that captures round a loop).
    pub fn to(&self) -> Square {
        Square::from_bit(self.to as u32)
    }

    /// The pieces this move takes.
    pub fn captured(&self) -> SquareSet {
        SquareSet(self.captured)
    }

    /// Whether the move takes anything.
    pub fn is_capture(&self) -> bool {
        self.captured != 0
    }

    /// How many pieces the move takes.
    pub fn capture_count(&self) -> u32 {
        self.captured.count_ones()
    }
}

/// Men step in these two directions: up for White, down for Black.
#[inline(always)]
const fn forward_dirs(white: bool) -> [usize; 2] {
    if white {
        [0, 1]
    } else {
        [2, 3]
    }
}

/// The pieces as seen by the side to move.
#[derive(Clone, Copy)]
struct Sides {
    men: u64,
    kings: u64,
    opp: u64,
    empty: u64,
    white: bool,
}

impl Sides {
    #[inline(always)]
    fn of(pos: &Position) -> Sides {
        let (own, opp, white) = match pos.side {
            Color::White => (pos.white, pos.black, true),
            Color::Black => (pos.black, pos.white, false),
        };
        Sides {
            men: own & !pos.kings,
            kings: own & pos.kings,
            opp,
            empty: VALID & !(own | opp),
            white,
        }
    }

    /// Whether any man can jump an adjacent enemy piece.
    #[inline(always)]
    fn man_can_capture(&self) -> bool {
        self.men != 0 && self.man_capturers() != 0
    }

    /// The men that have at least one capture.
    #[inline(always)]
    fn man_capturers(&self) -> u64 {
        let mut capturers = 0;
        for d in 0..4 {
            let back = 3 - d;
            // Enemy pieces whose neighbour in direction d is empty, then the
            // men standing just before them.
            let victims = step(self.empty, back) & self.opp;
            capturers |= step(victims, back) & self.men;
        }
        capturers
    }

    /// Whether any king can capture. In each direction the kings slide over
    /// the empty squares together (an occluded fill that doubles its reach
    /// three times: seven squares, the longest slide that still leaves
    /// room for a victim and a landing square); there is a capture when
    /// the first piece met is an enemy with an empty square beyond it.
    /// Squares off the board land on ghost bits, never empty.
    #[inline(always)]
    fn king_can_capture(&self) -> bool {
        if self.kings == 0 {
            return false;
        }
        let mut landings = 0;
        for d in 0..4 {
            let mut reach = self.kings;
            let mut open = self.empty;
            reach |= open & step(reach, d);
            open &= step(open, d);
            reach |= open & step_by(reach, d, 2);
            open &= step_by(open, d, 2);
            reach |= open & step_by(reach, d, 4);
            let victims = step(reach, d) & self.opp;
            landings |= step(victims, d) & self.empty;
        }
        landings != 0
    }

    /// [`Sides::king_can_capture`] ray by ray, king by king: the reference
    /// the fill is checked against.
    #[cfg(test)]
    fn king_can_capture_by_rays(&self) -> bool {
        let occupied = VALID & !self.empty;
        let mut ks = self.kings;
        while ks != 0 {
            let k = ks.trailing_zeros() as usize;
            ks &= ks - 1;
            for d in 0..4 {
                let blockers = RAY[d][k] & occupied;
                if blockers == 0 {
                    continue;
                }
                let first = nearest(blockers, d);
                if self.opp >> first & 1 == 1 {
                    let beyond = NEIGHBOUR[d][first];
                    if beyond != NONE && self.empty >> beyond & 1 == 1 {
                        return true;
                    }
                }
            }
        }
        false
    }

    #[inline(always)]
    fn can_capture(&self) -> bool {
        self.man_can_capture() || self.king_can_capture()
    }

    /// Number of non-capturing moves (valid only when no capture exists).
    #[inline(always)]
    fn count_quiet(&self) -> usize {
        let mut n = 0;
        for d in forward_dirs(self.white) {
            n += (step(self.men, d) & self.empty).count_ones() as usize;
        }
        let occupied = VALID & !self.empty;
        let mut ks = self.kings;
        while ks != 0 {
            let k = ks.trailing_zeros() as usize;
            ks &= ks - 1;
            for d in 0..4 {
                n += open_ray(k, d, occupied).count_ones() as usize;
            }
        }
        n
    }

    fn push_quiet(&self, out: &mut Vec<Move>) {
        for d in forward_dirs(self.white) {
            let mut targets = step(self.men, d) & self.empty;
            while targets != 0 {
                let to = targets.trailing_zeros();
                targets &= targets - 1;
                let from = (to as i32 - crate::board::Direction::ALL[d].shift()) as u8;
                out.push(Move {
                    from,
                    to: to as u8,
                    captured: 0,
                });
            }
        }
        let occupied = VALID & !self.empty;
        let mut ks = self.kings;
        while ks != 0 {
            let k = ks.trailing_zeros() as usize;
            ks &= ks - 1;
            for d in 0..4 {
                let mut targets = open_ray(k, d, occupied);
                while targets != 0 {
                    let to = targets.trailing_zeros();
                    targets &= targets - 1;
                    out.push(Move {
                        from: k as u8,
                        to: to as u8,
                        captured: 0,
                    });
                }
            }
        }
    }

    /// Pushes every maximal capture; returns the number of pieces each takes.
    fn push_captures(&self, out: &mut Vec<Move>) -> u32 {
        let base = out.len();
        let mut search = CaptureSearch {
            opp: self.opp,
            empty: self.empty,
            occupied: 0,
            from: 0,
            best: 0,
            base,
            piece_base: base,
            out,
        };
        let mut men = if self.men == 0 {
            0
        } else {
            self.man_capturers()
        };
        while men != 0 {
            let m = men.trailing_zeros() as usize;
            men &= men - 1;
            search.start(m);
            search.man(m, 0, 0);
        }
        let mut kings = self.kings;
        while kings != 0 {
            let k = kings.trailing_zeros() as usize;
            kings &= kings - 1;
            search.start(k);
            search.king(k, 0, 0, 4);
        }
        search.best
    }
}

/// Depth-first search over capture chains, keeping only the longest.
struct CaptureSearch<'a> {
    /// Enemy pieces (captured ones stay here; the chain tracks them).
    opp: u64,
    /// Empty squares of the position (without the moving piece's square).
    empty: u64,
    /// Occupied squares while the current piece moves (its start is free).
    occupied: u64,
    from: u8,
    best: u32,
    base: usize,
    /// Where the current piece's moves begin in `out` (duplicates can only
    /// come from one piece, so only that stretch is searched).
    piece_base: usize,
    out: &'a mut Vec<Move>,
}

impl CaptureSearch<'_> {
    fn start(&mut self, from: usize) {
        self.from = from as u8;
        self.occupied = VALID & !self.empty & !(1u64 << from);
        self.piece_base = self.out.len();
    }

    #[inline(always)]
    fn is_free(&self, b: u8) -> bool {
        b != NONE && (self.occupied >> b) & 1 == 0
    }

    fn man(&mut self, cur: usize, captured: u64, n: u32) {
        let mut extended = false;
        for neighbour in NEIGHBOUR.iter() {
            let v = neighbour[cur];
            if v == NONE {
                continue;
            }
            let vb = 1u64 << v;
            if self.opp & !captured & vb == 0 {
                continue;
            }
            let landing = neighbour[v as usize];
            if !self.is_free(landing) {
                continue;
            }
            extended = true;
            self.man(landing as usize, captured | vb, n + 1);
        }
        if !extended && n > 0 {
            self.record(cur, captured, n);
        }
    }

    /// `came` is the direction of the previous jump (4 at the start): going
    /// straight back would meet the piece just jumped, which blocks.
    fn king(&mut self, cur: usize, captured: u64, n: u32, came: usize) {
        let mut extended = false;
        for (d, ray) in RAY.iter().enumerate() {
            if d + came == 3 {
                continue;
            }
            let blockers = ray[cur] & self.occupied;
            if blockers == 0 {
                continue;
            }
            let first = nearest(blockers, d);
            let fb = 1u64 << first;
            if self.opp & !captured & fb == 0 {
                continue;
            }
            let mut landings = open_ray(first, d, self.occupied);
            if landings == 0 {
                continue;
            }
            extended = true;
            while landings != 0 {
                let l = landings.trailing_zeros() as usize;
                landings &= landings - 1;
                self.king(l, captured | fb, n + 1, d);
            }
        }
        if !extended && n > 0 {
            self.record(cur, captured, n);
        }
    }

    fn record(&mut self, to: usize, captured: u64, n: u32) {
        if n < self.best {
            return;
        }
        if n > self.best {
            self.best = n;
            self.out.truncate(self.base);
            self.piece_base = self.base;
        }
        let mv = Move {
            from: self.from,
            to: to as u8,
            captured,
        };
        // Two routes can take the same pieces between the same squares (a
        // king round a loop); they are one move.
        if n >= 2 && self.out[self.piece_base..].contains(&mv) {
            return;
        }
        self.out.push(mv);
    }
}

impl Position {
    /// Appends every legal move to `out` (cleared first).
    pub fn generate_moves(&self, out: &mut Vec<Move>) {
        out.clear();
        let sides = Sides::of(self);
        if sides.can_capture() {
            sides.push_captures(out);
        } else {
            sides.push_quiet(out);
        }
    }

    /// Appends every legal move to `out` (cleared first) when the side to
    /// move is known to have a capture (see [`Position::has_capture`]):
    /// what [`Position::generate_moves`] gives then, without checking
    /// again. Without a capture, `out` stays empty.
    pub fn generate_captures(&self, out: &mut Vec<Move>) {
        out.clear();
        Sides::of(self).push_captures(out);
    }

    /// Appends every legal move to `out` (cleared first) when the side to
    /// move is known to have no capture (see [`Position::has_capture`]):
    /// what [`Position::generate_moves`] gives then, without looking for
    /// captures again. With a capture, `out` holds moves that are not
    /// legal.
    pub fn generate_quiet_moves(&self, out: &mut Vec<Move>) {
        out.clear();
        Sides::of(self).push_quiet(out);
    }

    /// Every legal move.
    pub fn legal_moves(&self) -> Vec<Move> {
        let mut out = Vec::with_capacity(32);
        self.generate_moves(&mut out);
        out
    }

    /// Whether the side to move must capture.
    pub fn has_capture(&self) -> bool {
        Sides::of(self).can_capture()
    }

    /// Whether the side to move has no legal move (and so has lost).
    pub fn is_lost_by_no_moves(&self) -> bool {
        let sides = Sides::of(self);
        !sides.can_capture() && sides.count_quiet() == 0
    }

    /// The number of legal moves; `buf` is scratch space for captures.
    pub fn count_moves(&self, buf: &mut Vec<Move>) -> usize {
        let sides = Sides::of(self);
        if sides.can_capture() {
            buf.clear();
            sides.push_captures(buf);
            buf.len()
        } else {
            sides.count_quiet()
        }
    }

    /// The number of quiet moves (men steps and king slides), counted
    /// without listing them. It is the number of legal moves only when the
    /// side to move has no capture.
    pub fn quiet_move_count(&self) -> usize {
        Sides::of(self).count_quiet()
    }

    /// Whether `mv` (a legal move here) is a conversion: a capture, or a
    /// move of a man (a crowning included). Only king moves that capture
    /// nothing are not; they alone keep a position's material and men.
    pub fn is_conversion(&self, mv: &Move) -> bool {
        mv.is_capture() || self.kings & (1u64 << mv.from) == 0
    }

    /// Whether `mv` (a legal move here) crowns a man.
    pub fn is_crowning(&self, mv: &Move) -> bool {
        let from = 1u64 << mv.from;
        self.kings & from == 0 && self.side.crowning_row().0 >> mv.to & 1 == 1
    }

    /// The position after `mv`, which must be a legal move here.
    #[inline]
    pub fn play(&self, mv: &Move) -> Position {
        let from = 1u64 << mv.from;
        let to = 1u64 << mv.to;
        let mut next = *self;
        let moving_king = self.kings & from != 0;
        let (own, opp) = match self.side {
            Color::White => (&mut next.white, &mut next.black),
            Color::Black => (&mut next.black, &mut next.white),
        };
        *own = (*own & !from) | to;
        *opp &= !mv.captured;
        next.kings &= !mv.captured;
        if moving_king {
            next.kings = (next.kings & !from) | to;
        } else if self.side.crowning_row().0 & to != 0 {
            next.kings |= to;
        }
        next.side = self.side.opponent();
        next
    }
}

#[cfg(test)]
mod tests {
    use crate::Position;

    fn pos(fen: &str) -> Position {
        fen.parse().unwrap()
    }

    /// `generate_captures` lists what `generate_moves` does wherever a
    /// capture is due, and nothing elsewhere, and `generate_quiet_moves`
    /// what it does wherever none is, over a game tree with kings.
    #[test]
    fn generate_captures_agrees_with_generate_moves() {
        let (mut all, mut captures, mut quiet) = (Vec::new(), Vec::new(), Vec::new());
        let (mut checked, mut quiet_checked) = (0, 0);
        for fen in [
            "W:WK46,K3,28,33:BK5,K44,22,19,17",
            "B:W31,32,33,K47:B18,19,K2,K40",
        ] {
            let mut layer = vec![pos(fen)];
            for _ in 0..3 {
                let mut next = Vec::new();
                for p in &layer {
                    p.generate_moves(&mut all);
                    p.generate_captures(&mut captures);
                    if p.has_capture() {
                        assert_eq!(captures, all, "{p:?}");
                        checked += 1;
                    } else {
                        assert!(captures.is_empty(), "{p:?}");
                        p.generate_quiet_moves(&mut quiet);
                        assert_eq!(quiet, all, "{p:?}");
                        quiet_checked += 1;
                    }
                    next.extend(all.iter().map(|m| p.play(m)));
                }
                layer = next;
            }
        }
        assert!(checked > 50, "{checked} capture positions");
        assert!(quiet_checked > 50, "{quiet_checked} positions without one");
    }

    /// The fill finds a king capture exactly where the ray-by-ray walk
    /// does, over random placements (1-4 kings, up to 12 other pieces).
    #[test]
    fn king_capture_fill_agrees_with_rays() {
        use super::Sides;
        use crate::board::VALID;
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut random_squares = |count: u32, taken: u64| {
            let mut set = 0u64;
            while set.count_ones() < count {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let bit = 1u64 << (seed % 64);
                if bit & VALID & !taken != 0 {
                    set |= bit;
                }
            }
            set
        };
        let mut found = 0;
        for i in 0..200_000u32 {
            let kings = random_squares(1 + i % 4, 0);
            let men = random_squares(i % 3, kings);
            let opp = random_squares(1 + i % 12, kings | men);
            let sides = Sides {
                men,
                kings,
                opp,
                empty: VALID & !(kings | men | opp),
                white: i % 2 == 0,
            };
            let fill = sides.king_can_capture();
            assert_eq!(
                fill,
                sides.king_can_capture_by_rays(),
                "{kings:x} {men:x} {opp:x}"
            );
            found += u32::from(fill);
        }
        assert!(found > 20_000 && found < 180_000, "{found} captures");
    }

    #[test]
    fn initial_position_has_nine_moves() {
        assert_eq!(Position::initial().legal_moves().len(), 9);
    }

    #[test]
    fn man_captures_backwards() {
        // The black man on 33 stands behind the white man on 28.
        let p = pos("W:W28:B33");
        let moves = p.legal_moves();
        assert_eq!(moves.len(), 1);
        assert_eq!(moves[0].from().number(), 28);
        assert_eq!(moves[0].to().number(), 39);
    }

    #[test]
    fn majority_rule_counts_kings_as_one() {
        // 33x11 takes the man on 28 and the king on 17; the capture over 29
        // takes only one piece.
        let p = pos("W:W33,34:B28,K17,29");
        let moves = p.legal_moves();
        assert!(moves.iter().all(|m| m.capture_count() == 2), "{moves:?}");
    }

    #[test]
    fn man_passing_the_crowning_row_stays_a_man() {
        // 11x13 over 7 (landing on 2) then 8: ends on 13 as a man.
        let p = pos("W:W11:B7,8");
        let moves = p.legal_moves();
        assert_eq!(moves.len(), 1);
        assert_eq!(moves[0].to().number(), 13);
        let after = p.play(&moves[0]);
        assert!(after.kings(crate::Color::White).is_empty());
    }

    #[test]
    fn crowning_at_end_of_move() {
        let p = pos("W:W7:B40");
        let mv = p
            .legal_moves()
            .into_iter()
            .find(|m| m.to().number() == 1)
            .unwrap();
        assert!(p.is_crowning(&mv));
        assert!(p
            .play(&mv)
            .kings(crate::Color::White)
            .contains(crate::Square::new(1).unwrap()));
    }

    #[test]
    fn captured_pieces_block_the_king() {
        // The king on 46 takes 32, 29 and 39; 27 looks open from 43 but the
        // man on 32 is still on the board and blocks.
        let p = pos("W:WK46:B32,29,39,27");
        let moves = p.legal_moves();
        let mut ends: Vec<u8> = moves.iter().map(|m| m.to().number()).collect();
        ends.sort();
        assert_eq!(ends, vec![43, 48]);
        assert!(moves.iter().all(|m| m.capture_count() == 3));
    }
}
