//! Retro moves: the positions a quiet move could have come from. The
//! retrograde solver walks these backwards from settled positions.

use crate::board::{open_ray, step, Direction, VALID};
use crate::position::{Color, Position};

impl Position {
    /// Appends to `out` every position, with the other side to move, from
    /// which a quiet move of that side (a man stepping forward without
    /// reaching its crowning row, or a king sliding) leads to this one.
    ///
    /// They are not checked for compulsory captures: a predecessor where
    /// its side to move must capture is not a real one, and the caller
    /// skips it.
    pub fn quiet_unmoves(&self, out: &mut Vec<Position>) {
        let mover = self.side.opponent();
        let own = match mover {
            Color::White => self.white,
            Color::Black => self.black,
        };
        let occupied = self.white | self.black;
        let empty = VALID & !occupied;
        let push = |out: &mut Vec<Position>, from: u64, to: u64, king: bool| {
            // The piece stood on `to` before and moved to `from` (here).
            let mut prev = *self;
            let side_set = match mover {
                Color::White => &mut prev.white,
                Color::Black => &mut prev.black,
            };
            *side_set = (*side_set & !from) | to;
            if king {
                prev.kings = (prev.kings & !from) | to;
            }
            prev.side = mover;
            out.push(prev);
        };
        // Men step back: White men came from below, Black men from above.
        let men = own & !self.kings;
        let back_dirs: [usize; 2] = match mover {
            Color::White => [Direction::DownLeft as usize, Direction::DownRight as usize],
            Color::Black => [Direction::UpLeft as usize, Direction::UpRight as usize],
        };
        for d in back_dirs {
            let mut origins = step(men, d) & empty;
            let shift = Direction::ALL[d].shift();
            while origins != 0 {
                let o = origins.trailing_zeros();
                origins &= origins - 1;
                let here = (o as i32 - shift) as u32;
                push(out, 1u64 << here, 1u64 << o, false);
            }
        }
        let mut kings = own & self.kings;
        while kings != 0 {
            let k = kings.trailing_zeros() as usize;
            kings &= kings - 1;
            for d in 0..4 {
                let mut origins = open_ray(k, d, occupied);
                while origins != 0 {
                    let o = origins.trailing_zeros();
                    origins &= origins - 1;
                    push(out, 1u64 << k, 1u64 << o, true);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::Position;

    /// Every retro move undoes a legal quiet move, and every legal quiet
    /// non-crowning move is undone by one.
    fn check(fen: &str) {
        let pos: Position = fen.parse().unwrap();
        let mut prev = Vec::new();
        pos.quiet_unmoves(&mut prev);
        for p in &prev {
            if p.has_capture() {
                continue;
            }
            assert!(
                p.legal_moves().iter().any(|m| p.play(m) == pos),
                "{p} does not lead to {pos}"
            );
        }
        // Forward check from every predecessor candidate of the flipped
        // side: enumerate moves of positions one step back.
        for p in &prev {
            for m in p.legal_moves() {
                let child = p.play(&m);
                if !m.is_capture() && !p.is_crowning(&m) {
                    let mut back = Vec::new();
                    child.quiet_unmoves(&mut back);
                    assert!(back.contains(p), "{child} misses {p}");
                }
            }
        }
    }

    #[test]
    fn unmoves_undo_moves() {
        for fen in [
            "B:W28,K40:B12,K3",
            "W:W28,K40:B12,K3",
            "B:WK46,K5:BK28",
            "W:W6,7:B44,45",
            "B:W31-35:B16-20",
            "W:W31-35:B16-20",
        ] {
            check(fen);
        }
    }
}
