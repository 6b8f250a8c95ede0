//! PDN positions ("FEN"): `W:W31,32,K28:B1,2,K12`.
//!
//! Read: side to move, then the two colour lists in either order, each
//! a comma-separated list of squares, `K` before a square (or a range)
//! for a king, ranges such as `31-35`. Spaces are ignored, letters may be
//! lower case, a trailing `.` is allowed, and so is the PDN tag form
//! `[FEN "..."]`. Written: the canonical form, squares in increasing order.

use std::fmt;
use std::str::FromStr;

use crate::board::{Square, SquareSet};
use crate::error::FenError;
use crate::position::{Color, Position};

impl FromStr for Position {
    type Err = FenError;

    fn from_str(text: &str) -> Result<Position, FenError> {
        parse_fen(text)
    }
}

/// Strips the optional `[FEN "..."]` wrapping and quotes.
fn unwrap_tag(text: &str) -> &str {
    let t = text.trim();
    let t = match t.strip_prefix("[FEN") {
        Some(rest) => rest.trim_end().strip_suffix(']').unwrap_or(rest),
        None => t,
    };
    let t = t.trim();
    t.strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .unwrap_or(t)
}

fn parse_fen(text: &str) -> Result<Position, FenError> {
    let body = unwrap_tag(text);
    // Keep 1-based positions of the characters for error messages.
    let chars: Vec<(usize, char)> = body
        .chars()
        .enumerate()
        .map(|(i, c)| (i + 1, c))
        .filter(|(_, c)| !c.is_whitespace())
        .collect();
    if chars.is_empty() {
        return Err(FenError::Empty);
    }
    for &(pos, ch) in &chars {
        if !(ch.is_ascii_digit()
            || matches!(
                ch.to_ascii_uppercase(),
                'W' | 'B' | 'K' | ':' | ',' | '-' | '.'
            ))
        {
            return Err(FenError::UnexpectedChar { ch, pos });
        }
    }
    let mut compact: String = chars.iter().map(|&(_, c)| c.to_ascii_uppercase()).collect();
    if compact.ends_with('.') {
        compact.pop();
    }
    if let Some(i) = compact.find('.') {
        let (pos, ch) = chars[i];
        return Err(FenError::UnexpectedChar { ch, pos });
    }
    let mut fields = compact.split(':');
    let side = match fields.next().unwrap_or("") {
        "W" => Color::White,
        "B" => Color::Black,
        other => return Err(FenError::BadSideToMove(other.to_string())),
    };
    let mut lists: [Option<(SquareSet, SquareSet)>; 2] = [None, None];
    for field in fields {
        let (colour, items) = match field.chars().next() {
            Some('W') => (0, &field[1..]),
            Some('B') => (1, &field[1..]),
            _ => return Err(FenError::BadColourList(field.to_string())),
        };
        if lists[0].is_some() && lists[1].is_some() {
            return Err(FenError::TooManyFields);
        }
        if lists[colour].is_some() {
            return Err(FenError::ColourTwice(if colour == 0 {
                "white"
            } else {
                "black"
            }));
        }
        lists[colour] = Some(parse_list(items)?);
    }
    let (white, white_kings) = lists[0].ok_or_else(|| FenError::BadColourList(String::new()))?;
    let (black, black_kings) = lists[1].ok_or_else(|| FenError::BadColourList(String::new()))?;
    if let Some(sq) = (white & black).iter().next() {
        return Err(crate::error::PositionError::SquareTwice(sq.number()).into());
    }
    Ok(Position::from_parts(
        side,
        white,
        black,
        white_kings | black_kings,
    )?)
}

/// Parses `31,32,K28,35-38`: all pieces, and the kings among them.
fn parse_list(items: &str) -> Result<(SquareSet, SquareSet), FenError> {
    let mut all = SquareSet::EMPTY;
    let mut kings = SquareSet::EMPTY;
    if items.is_empty() {
        return Ok((all, kings));
    }
    for item in items.split(',') {
        let (is_king, rest) = match item.strip_prefix('K') {
            Some(rest) => (true, rest),
            None => (false, item),
        };
        let (lo, hi) = match rest.split_once('-') {
            Some((a, b)) => (parse_square(a)?, parse_square(b)?),
            None => {
                let s = parse_square(rest)?;
                (s, s)
            }
        };
        if lo > hi {
            return Err(FenError::EmptyRange(lo as u32, hi as u32));
        }
        for n in lo..=hi {
            let sq = Square::new(n).expect("checked range");
            if all.contains(sq) {
                return Err(crate::error::PositionError::SquareTwice(n).into());
            }
            all.insert(sq);
            if is_king {
                kings.insert(sq);
            }
        }
    }
    Ok((all, kings))
}

fn parse_square(text: &str) -> Result<u8, FenError> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(FenError::NotANumber(text.to_string()));
    }
    let n: u32 = text
        .parse()
        .map_err(|_| FenError::SquareOutOfRange(u32::MAX))?;
    if (1..=50).contains(&n) {
        Ok(n as u8)
    } else {
        Err(FenError::SquareOutOfRange(n))
    }
}

impl fmt::Display for Position {
    /// Writes the canonical FEN: `W:W31,32,K28:B1,2,K12`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side = match self.side {
            Color::White => 'W',
            Color::Black => 'B',
        };
        write!(f, "{side}")?;
        for (letter, color) in [('W', Color::White), ('B', Color::Black)] {
            write!(f, ":{letter}")?;
            let kings = self.kings(color);
            for (i, sq) in self.pieces(color).iter().enumerate() {
                if i > 0 {
                    write!(f, ",")?;
                }
                if kings.contains(sq) {
                    write!(f, "K")?;
                }
                write!(f, "{}", sq.number())?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::PositionError;

    fn err(fen: &str) -> FenError {
        fen.parse::<Position>().unwrap_err()
    }

    #[test]
    fn reads_and_writes_the_canonical_form() {
        let p: Position = "W:W31,32,K28:B1,2,K12".parse().unwrap();
        assert_eq!(p.to_string(), "W:WK28,31,32:B1,2,K12");
        assert_eq!(p.side_to_move(), Color::White);
        assert_eq!(p.kings(Color::White).len(), 1);
    }

    #[test]
    fn accepts_ranges_spaces_order_case_and_trailing_dot() {
        let a: Position = "B:W31-35,K28:B1-3".parse().unwrap();
        let b: Position = " b : b 1 , 2 , 3 : w 31,32,33,34,35,k28 .".parse().unwrap();
        assert_eq!(a, b);
        let c: Position = "[FEN \"B:W31-35,K28:B1-3\"]".parse().unwrap();
        assert_eq!(a, c);
        let kings: Position = "W:WK31-33:B1".parse().unwrap();
        assert_eq!(kings.kings(Color::White).len(), 3);
    }

    #[test]
    fn initial_position_round_trip() {
        let p = Position::initial();
        let text = p.to_string();
        assert_eq!(text.parse::<Position>().unwrap(), p);
        assert_eq!(
            "W:W31-50:B1-20".parse::<Position>().unwrap(),
            Position::initial()
        );
    }

    #[test]
    fn empty_side_is_allowed() {
        let p: Position = "B:W31:B".parse().unwrap();
        assert!(p.pieces(Color::Black).is_empty());
    }

    #[test]
    fn errors_name_the_problem() {
        assert_eq!(err(""), FenError::Empty);
        assert_eq!(err("   "), FenError::Empty);
        assert_eq!(
            err("W:W31:B1?"),
            FenError::UnexpectedChar { ch: '?', pos: 9 }
        );
        assert_eq!(
            err("X:W31:B1"),
            FenError::UnexpectedChar { ch: 'X', pos: 1 }
        );
        assert_eq!(err("K:W31:B1"), FenError::BadSideToMove("K".into()));
        assert_eq!(err("W:W0:B1"), FenError::SquareOutOfRange(0));
        assert_eq!(err("W:W51:B1"), FenError::SquareOutOfRange(51));
        assert_eq!(
            err("W:W99999999999:B1"),
            FenError::SquareOutOfRange(u32::MAX)
        );
        assert_eq!(
            err("W:W31,31:B1"),
            FenError::Position(PositionError::SquareTwice(31))
        );
        assert_eq!(
            err("W:W31:B31"),
            FenError::Position(PositionError::SquareTwice(31))
        );
        assert_eq!(
            err("W:W30-32,31:B1"),
            FenError::Position(PositionError::SquareTwice(31))
        );
        assert_eq!(
            err("W:W3:B20"),
            FenError::Position(PositionError::WhiteManOnCrowningRow(3))
        );
        assert_eq!(
            err("W:W30:B47"),
            FenError::Position(PositionError::BlackManOnCrowningRow(47))
        );
        assert_eq!(err("W:W31:W32"), FenError::ColourTwice("white"));
        assert_eq!(err("W:W31"), FenError::BadColourList(String::new()));
        assert_eq!(err("W:W31:B1:B2"), FenError::TooManyFields);
        assert_eq!(err("W:31:B1"), FenError::BadColourList("31".into()));
        assert_eq!(err("W:W31,:B1"), FenError::NotANumber(String::new()));
        assert_eq!(err("W:WKK31:B1"), FenError::NotANumber("K31".into()));
        assert_eq!(err("W:W35-31:B1"), FenError::EmptyRange(35, 31));
        assert_eq!(
            err("W:W31.:B1"),
            FenError::UnexpectedChar { ch: '.', pos: 6 }
        );
        // Kings may stand anywhere, even on the crowning rows.
        assert!("W:WK3:BK47".parse::<Position>().is_ok());
    }

    #[test]
    fn error_messages_are_readable() {
        assert_eq!(
            err("W:W3:B20").to_string(),
            "white man on square 3: a white man cannot stand on its crowning row 1-5"
        );
        assert_eq!(
            err("W:W51:B1").to_string(),
            "square 51 does not exist (squares are 1-50)"
        );
    }
}
