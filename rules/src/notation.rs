//! PDN move notation: `32-28` for a step, `28x39` for a capture written
//! start and end, and the full form `46x37x28` with every landing square,
//! which is printed only where two legal captures share start and end.

use crate::board::{nearest, open_ray, Square, NEIGHBOUR, NONE, RAY, VALID};
use crate::error::MoveError;
use crate::movegen::Move;
use crate::position::Position;

impl Position {
    /// Every route (the landing squares after the start, ending on the end
    /// square) by which the capture `mv` can be played here.
    pub fn capture_routes(&self, mv: &Move) -> Vec<Vec<Square>> {
        let mut routes = Vec::new();
        if !mv.is_capture() {
            return routes;
        }
        let from = mv.from as usize;
        let is_king = self.kings >> from & 1 == 1;
        let occupied = (self.white | self.black) & !(1u64 << from) & VALID;
        let mut walk = RouteWalk {
            occupied,
            target: mv.captured,
            end: mv.to as usize,
            is_king,
            path: Vec::new(),
            routes: &mut routes,
        };
        walk.go(from, 0, 4);
        routes
    }

    /// The move in PDN: `32-28`, `28x39`, or `46x37x28` when another legal
    /// capture shares start and end but takes other pieces.
    pub fn move_to_pdn(&self, mv: &Move) -> String {
        if !mv.is_capture() {
            return format!("{}-{}", mv.from(), mv.to());
        }
        let ambiguous = self
            .legal_moves()
            .iter()
            .any(|m| m.from == mv.from && m.to == mv.to && m.captured != mv.captured);
        if ambiguous {
            if let Some(route) = self.capture_routes(mv).into_iter().next() {
                return full_form(mv.from(), &route);
            }
        }
        format!("{}x{}", mv.from(), mv.to())
    }

    /// Reads a move in PDN and finds the legal move it names.
    pub fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        let squares = parse_squares(text)?;
        let (first, last) = (squares[0], *squares.last().expect("two or more"));
        let between = &squares[1..squares.len() - 1];
        let candidates: Vec<Move> = self
            .legal_moves()
            .into_iter()
            .filter(|m| m.from() == first && m.to() == last)
            .filter(|m| {
                between.is_empty()
                    || self
                        .capture_routes(m)
                        .iter()
                        .any(|route| is_subsequence(between, &route[..route.len() - 1]))
            })
            .collect();
        match candidates.len() {
            0 => Err(MoveError::Illegal(text.trim().to_string())),
            1 => Ok(candidates[0]),
            _ => {
                let options: Vec<String> = candidates
                    .iter()
                    .filter_map(|m| {
                        self.capture_routes(m)
                            .into_iter()
                            .next()
                            .map(|r| full_form(m.from(), &r))
                    })
                    .collect();
                Err(MoveError::Ambiguous(
                    text.trim().to_string(),
                    options.join(" or "),
                ))
            }
        }
    }
}

fn full_form(from: Square, route: &[Square]) -> String {
    let mut s = from.to_string();
    for sq in route {
        s.push('x');
        s.push_str(&sq.to_string());
    }
    s
}

fn is_subsequence(needle: &[Square], hay: &[Square]) -> bool {
    let mut it = hay.iter();
    needle.iter().all(|n| it.any(|h| h == n))
}

/// Splits `32-28`, `28x39`, `46x37x28` into squares.
fn parse_squares(text: &str) -> Result<Vec<Square>, MoveError> {
    let t = text.trim();
    let syntax = || MoveError::Syntax(t.to_string());
    if t.is_empty() {
        return Err(syntax());
    }
    let parts: Vec<&str> = t.split(['-', 'x', 'X', ':']).collect();
    if parts.len() < 2 {
        return Err(syntax());
    }
    let mut squares = Vec::with_capacity(parts.len());
    for part in parts {
        let part = part.trim();
        if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
            return Err(syntax());
        }
        let n: u32 = part.parse().unwrap_or(u32::MAX);
        let sq = u8::try_from(n)
            .ok()
            .and_then(Square::new)
            .ok_or(MoveError::SquareOutOfRange(n))?;
        squares.push(sq);
    }
    Ok(squares)
}

/// Depth-first walk over the routes of one known capture.
struct RouteWalk<'a> {
    occupied: u64,
    target: u64,
    end: usize,
    is_king: bool,
    path: Vec<Square>,
    routes: &'a mut Vec<Vec<Square>>,
}

impl RouteWalk<'_> {
    fn go(&mut self, cur: usize, taken: u64, came: usize) {
        if taken == self.target {
            if cur == self.end {
                self.routes.push(self.path.clone());
            }
            return;
        }
        for d in 0..4 {
            if d + came == 3 {
                continue;
            }
            let (victim, landings) = if self.is_king {
                let blockers = RAY[d][cur] & self.occupied;
                if blockers == 0 {
                    continue;
                }
                let first = nearest(blockers, d);
                (first, open_ray(first, d, self.occupied))
            } else {
                let v = NEIGHBOUR[d][cur];
                if v == NONE {
                    continue;
                }
                let l = NEIGHBOUR[d][v as usize];
                let free = l != NONE && self.occupied >> l & 1 == 0;
                (v as usize, if free { 1u64 << l } else { 0 })
            };
            let vb = 1u64 << victim;
            if self.target & !taken & vb == 0 {
                continue;
            }
            let mut ls = landings;
            while ls != 0 {
                let l = ls.trailing_zeros();
                ls &= ls - 1;
                self.path.push(Square::from_bit(l));
                self.go(l as usize, taken | vb, d);
                self.path.pop();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{MoveError, Position};

    fn pos(fen: &str) -> Position {
        fen.parse().unwrap()
    }

    #[test]
    fn steps_and_captures_print_start_and_end() {
        let p = Position::initial();
        let m = p.parse_move("32-28").unwrap();
        assert_eq!(p.move_to_pdn(&m), "32-28");
        let p = pos("W:W28:B33");
        let m = p.parse_move("28x39").unwrap();
        assert_eq!(p.move_to_pdn(&m), "28x39");
        assert_eq!(p.parse_move("28-39").unwrap(), m);
    }

    #[test]
    fn landing_squares_only_when_needed() {
        // The king on 4 can take 13, 32, 37 and 20 by two routes of equal
        // length that share start and end.
        let p = pos("W:WK4:B13,32,37,20");
        let moves = p.legal_moves();
        assert_eq!(moves.len(), 2);
        let texts: Vec<String> = moves.iter().map(|m| p.move_to_pdn(m)).collect();
        for (m, t) in moves.iter().zip(&texts) {
            assert_eq!(p.parse_move(t).unwrap(), *m, "{t}");
        }
        if moves[0].from() == moves[1].from() && moves[0].to() == moves[1].to() {
            assert!(
                texts.iter().all(|t| t.matches('x').count() > 1),
                "{texts:?}"
            );
            let short = format!("{}x{}", moves[0].from(), moves[0].to());
            assert!(matches!(
                p.parse_move(&short),
                Err(MoveError::Ambiguous(..))
            ));
        }
    }

    #[test]
    fn full_form_is_accepted() {
        let p = pos("W:W28:B33");
        assert!(p.parse_move("28x39").is_ok());
        let p = pos("W:W11:B7,8");
        assert_eq!(
            p.parse_move("11x2x13").unwrap(),
            p.parse_move("11x13").unwrap()
        );
        assert!(matches!(
            p.parse_move("11x3x13"),
            Err(MoveError::Illegal(_))
        ));
    }

    #[test]
    fn bad_moves_are_named() {
        let p = Position::initial();
        assert_eq!(
            p.parse_move("31-27x"),
            Err(MoveError::Syntax("31-27x".into()))
        );
        assert_eq!(p.parse_move(""), Err(MoveError::Syntax(String::new())));
        assert_eq!(p.parse_move("32"), Err(MoveError::Syntax("32".into())));
        assert_eq!(p.parse_move("a-b"), Err(MoveError::Syntax("a-b".into())));
        assert_eq!(p.parse_move("0-5"), Err(MoveError::SquareOutOfRange(0)));
        assert_eq!(p.parse_move("32-51"), Err(MoveError::SquareOutOfRange(51)));
        assert_eq!(
            p.parse_move("32-26"),
            Err(MoveError::Illegal("32-26".into()))
        );
        assert_eq!(
            p.parse_move("32-26").unwrap_err().to_string(),
            "32-26 is not a legal move in this position"
        );
    }
}
