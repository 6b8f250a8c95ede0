//! Materials: how many men and kings each side has, their names, and the
//! order in which they are built.
//!
//! # Names
//! One token per side, White first, joined by `-`: kings as `K`, men as
//! `M`, kings before men. `KKM-K` is two white kings and a white man
//! against a black king; `M-M` is a man each. Table files are named
//! `<name>.dtb`. Parsing also accepts lower case, `v` or `_` as the
//! separator, letters in any order, and counts such as `2K1M-K`.

use std::fmt;
use std::str::FromStr;

use rules::{Color, CountedEnding, PieceCounts, Position};

use crate::counting::placement_counts;
use crate::error::MaterialError;

/// The most pieces one side may have in a material name.
pub const MAX_PIECES_PER_SIDE: u8 = 20;

/// Men and kings per side. Each side has at least one piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Material {
    /// White men.
    pub white_men: u8,
    /// White kings.
    pub white_kings: u8,
    /// Black men.
    pub black_men: u8,
    /// Black kings.
    pub black_kings: u8,
}

impl Material {
    /// A material from its four counts, checking each side has a piece and
    /// the men fit on their squares.
    pub fn new(
        white_men: u8,
        white_kings: u8,
        black_men: u8,
        black_kings: u8,
    ) -> Result<Material, MaterialError> {
        let m = Material {
            white_men,
            white_kings,
            black_men,
            black_kings,
        };
        // Sums in u16: the counts may come from a damaged header.
        let white = u16::from(white_men) + u16::from(white_kings);
        let black = u16::from(black_men) + u16::from(black_kings);
        if white == 0 || black == 0 {
            return Err(MaterialError::EmptySide(m.to_string()));
        }
        if white > u16::from(MAX_PIECES_PER_SIDE) || black > u16::from(MAX_PIECES_PER_SIDE) {
            return Err(MaterialError::TooManyPieces(m.to_string()));
        }
        if placement_counts(white_men, white_kings, black_men, black_kings).is_none() {
            return Err(MaterialError::TooManyPositions(m.to_string()));
        }
        Ok(m)
    }

    /// The material of a position, as it stands (no colour flip).
    pub fn of(pos: &Position) -> Material {
        Material::from_counts(pos.piece_counts())
    }

    /// The material with these piece counts (sides may be empty).
    pub const fn from_counts(c: PieceCounts) -> Material {
        Material {
            white_men: c.white_men,
            white_kings: c.white_kings,
            black_men: c.black_men,
            black_kings: c.black_kings,
        }
    }

    /// The piece counts of this material.
    pub const fn counts(self) -> PieceCounts {
        PieceCounts {
            white_men: self.white_men,
            white_kings: self.white_kings,
            black_men: self.black_men,
            black_kings: self.black_kings,
        }
    }

    /// The material with the colours swapped: the table of `self` with
    /// White to move also answers `mirrored()` with Black to move.
    pub const fn mirrored(self) -> Material {
        Material {
            white_men: self.black_men,
            white_kings: self.black_kings,
            black_men: self.white_men,
            black_kings: self.white_kings,
        }
    }

    /// Whether the material is its own mirror.
    pub fn is_symmetric(self) -> bool {
        self == self.mirrored()
    }

    /// All pieces.
    pub const fn pieces(self) -> u32 {
        self.white_men as u32
            + self.white_kings as u32
            + self.black_men as u32
            + self.black_kings as u32
    }

    /// All men.
    pub const fn men(self) -> u32 {
        self.white_men as u32 + self.black_men as u32
    }

    /// Pieces of one side.
    pub const fn side_pieces(self, color: Color) -> u32 {
        match color {
            Color::White => self.white_men as u32 + self.white_kings as u32,
            Color::Black => self.black_men as u32 + self.black_kings as u32,
        }
    }

    /// The counted-ending class (16-move or 5-move limit), if any.
    pub fn counted_ending(self) -> Option<CountedEnding> {
        CountedEnding::of(self.counts())
    }

    /// The file name of this material's table: `<name>.dtb`.
    pub fn file_name(self) -> String {
        format!("{self}.dtb")
    }

    /// Every material of 2..=`max_pieces` pieces in build order: fewer
    /// pieces first; for the same number of pieces, fewer men first (a
    /// crowning turns a man into a king, so the material it crowns into has
    /// one man less), each material next to its mirror.
    pub fn all_up_to(max_pieces: u32) -> Vec<Material> {
        let mut all = Vec::new();
        let max_side = (max_pieces.min(MAX_PIECES_PER_SIDE as u32 + 1)) as u8;
        for wm in 0..=max_side {
            for wk in 0..=max_side - wm {
                for bm in 0..=max_side {
                    for bk in 0..=max_side - bm {
                        if let Ok(m) = Material::new(wm, wk, bm, bk) {
                            if m.pieces() <= max_pieces {
                                all.push(m);
                            }
                        }
                    }
                }
            }
        }
        all.sort_by_key(|m| m.build_key());
        all
    }

    /// Sort key of the build order.
    pub fn build_key(self) -> (u32, u32, Material, bool) {
        let pair = self.min(self.mirrored());
        (self.pieces(), self.men(), pair, self != pair)
    }

    /// The materials, other than this one and its mirror, that a move of
    /// either side can lead to (captures and crownings), each listed in
    /// both colour orientations. All of them come earlier in the build
    /// order.
    pub fn exits(self) -> Vec<Material> {
        let mut out = Vec::new();
        let mut push = |m: Material| {
            if m.white_men + m.white_kings > 0
                && m.black_men + m.black_kings > 0
                && m != self
                && m != self.mirrored()
                && !out.contains(&m)
            {
                out.push(m);
            }
        };
        // Captures by White of any black pieces, crownings of White.
        for side in [self, self.mirrored()] {
            for men in 0..=side.black_men {
                for kings in 0..=side.black_kings {
                    if men + kings == 0 {
                        continue;
                    }
                    let after = Material {
                        black_men: side.black_men - men,
                        black_kings: side.black_kings - kings,
                        ..side
                    };
                    push(after);
                    push(after.mirrored());
                    if after.white_men > 0 {
                        let crowned = Material {
                            white_men: after.white_men - 1,
                            white_kings: after.white_kings + 1,
                            ..after
                        };
                        push(crowned);
                        push(crowned.mirrored());
                    }
                }
            }
            if side.white_men > 0 {
                let crowned = Material {
                    white_men: side.white_men - 1,
                    white_kings: side.white_kings + 1,
                    ..side
                };
                push(crowned);
                push(crowned.mirrored());
            }
        }
        out
    }
}

fn side_token(f: &mut fmt::Formatter<'_>, men: u8, kings: u8) -> fmt::Result {
    for _ in 0..kings {
        f.write_str("K")?;
    }
    for _ in 0..men {
        f.write_str("M")?;
    }
    Ok(())
}

impl fmt::Display for Material {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        side_token(f, self.white_men, self.white_kings)?;
        f.write_str("-")?;
        side_token(f, self.black_men, self.black_kings)
    }
}

fn parse_side(text: &str, whole: &str) -> Result<(u8, u8), MaterialError> {
    let bad = || MaterialError::BadName(whole.to_string());
    let (mut men, mut kings) = (0u32, 0u32);
    let mut count: Option<u32> = None;
    for ch in text.chars() {
        match ch.to_ascii_uppercase() {
            d @ '0'..='9' => {
                let v = count.unwrap_or(0) * 10 + d.to_digit(10).expect("digit");
                if v > 99 {
                    return Err(bad());
                }
                count = Some(v);
            }
            'K' => kings += count.take().unwrap_or(1),
            'M' => men += count.take().unwrap_or(1),
            _ => return Err(bad()),
        }
    }
    if count.is_some() {
        return Err(bad());
    }
    let too_many = || MaterialError::TooManyPieces(whole.to_string());
    let men = u8::try_from(men).map_err(|_| too_many())?;
    let kings = u8::try_from(kings).map_err(|_| too_many())?;
    Ok((men, kings))
}

impl FromStr for Material {
    type Err = MaterialError;

    fn from_str(text: &str) -> Result<Material, MaterialError> {
        let t = text.trim();
        let t = t.strip_suffix(".dtb").unwrap_or(t);
        let sides: Vec<&str> = t.split(['-', '_', 'v', 'V']).collect();
        if sides.len() != 2 {
            return Err(MaterialError::BadName(text.to_string()));
        }
        let (wm, wk) = parse_side(sides[0], text)?;
        let (bm, bk) = parse_side(sides[1], text)?;
        let total = |a: u8, b: u8| a as u32 + b as u32;
        if total(wm, wk) > MAX_PIECES_PER_SIDE as u32 || total(bm, bk) > MAX_PIECES_PER_SIDE as u32
        {
            return Err(MaterialError::TooManyPieces(text.to_string()));
        }
        Material::new(wm, wk, bm, bk)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        let m = Material::new(1, 2, 0, 1).unwrap();
        assert_eq!(m.to_string(), "KKM-K");
        assert_eq!("KKM-K".parse::<Material>().unwrap(), m);
        assert_eq!("mkk_k".parse::<Material>().unwrap(), m);
        assert_eq!("2K1MvK".parse::<Material>().unwrap(), m);
        assert_eq!("KKM-K.dtb".parse::<Material>().unwrap(), m);
        assert_eq!(m.file_name(), "KKM-K.dtb");
        for m in Material::all_up_to(6) {
            assert_eq!(m.to_string().parse::<Material>().unwrap(), m);
        }
    }

    #[test]
    fn bad_names() {
        assert!(matches!(
            "KK".parse::<Material>(),
            Err(MaterialError::BadName(_))
        ));
        assert!(matches!(
            "K-K-K".parse::<Material>(),
            Err(MaterialError::BadName(_))
        ));
        assert!(matches!(
            "KX-K".parse::<Material>(),
            Err(MaterialError::BadName(_))
        ));
        assert!(matches!(
            "K2-K".parse::<Material>(),
            Err(MaterialError::BadName(_))
        ));
        assert!(matches!(
            "-K".parse::<Material>(),
            Err(MaterialError::EmptySide(_))
        ));
        assert!(matches!(
            "21K-K".parse::<Material>(),
            Err(MaterialError::TooManyPieces(_))
        ));
    }

    #[test]
    fn build_order_puts_exits_first() {
        let all = Material::all_up_to(5);
        let position = |m: &Material| all.iter().position(|x| x == m).unwrap();
        for m in &all {
            for e in m.exits() {
                assert!(
                    position(&e) < position(m).min(position(&m.mirrored())),
                    "{e} before {m}"
                );
            }
            let (a, b) = (position(m), position(&m.mirrored()));
            assert!(a.abs_diff(b) <= 1, "{m} next to its mirror");
        }
        // 2..=5 pieces, each side at least one piece.
        assert_eq!(Material::all_up_to(2).len(), 4);
    }
}
