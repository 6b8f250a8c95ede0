//! Values and their encodings on disk.
//!
//! Every value is from the view of the side to move.
//!
//! * **WLD tables** store 2 bits per position: 0 loss, 1 draw, 2 win.
//! * **Distance tables** (the counted endings, and the lone-king endings in
//!   `pure`) store one byte per position: 0 draw; 1..=127 a win whose
//!   distance is the byte; 128..=255 a loss whose distance is byte - 128.
//!   The distance of a counted ending is the smallest number of plies left
//!   on the draw counter at which the result is forced (see
//!   `rules::CountedEnding`); in `pure` it is the number of plies, within
//!   the lone-king endings, until the game ends or leaves them with the
//!   result settled.
//! * Capture positions (the side to move must capture) are "don't care":
//!   the prober resolves them by search and never reads them. The writer
//!   fills them with the value before them, which compresses best.

use std::fmt;
use std::str::FromStr;

use crate::error::FormatError;

/// Win, draw or loss for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Wdl {
    /// The side to move loses.
    Loss,
    /// Neither side can force a win.
    Draw,
    /// The side to move wins.
    Win,
}

impl Wdl {
    /// The value from the other side's view.
    pub const fn flipped(self) -> Wdl {
        match self {
            Wdl::Loss => Wdl::Win,
            Wdl::Draw => Wdl::Draw,
            Wdl::Win => Wdl::Loss,
        }
    }

    /// The 2-bit code of a WLD table.
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// The value of a 2-bit code (3 is invalid).
    pub const fn from_code(code: u8) -> Option<Wdl> {
        match code {
            0 => Some(Wdl::Loss),
            1 => Some(Wdl::Draw),
            2 => Some(Wdl::Win),
            _ => None,
        }
    }

    /// `"win"`, `"draw"` or `"loss"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Wdl::Loss => "loss",
            Wdl::Draw => "draw",
            Wdl::Win => "win",
        }
    }
}

impl fmt::Display for Wdl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A result with its distance in plies (`None` for draws).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DistanceValue {
    /// The result once the distance is reached.
    pub wdl: Wdl,
    /// Plies; meaningful only for wins and losses.
    pub plies: u8,
}

impl DistanceValue {
    /// A draw at any distance.
    pub const DRAW: DistanceValue = DistanceValue {
        wdl: Wdl::Draw,
        plies: 0,
    };

    /// The largest distance a byte can hold for a win (127) or a loss (127).
    pub const MAX_PLIES: u8 = 127;

    /// The byte stored for this value.
    pub const fn encode(self) -> u8 {
        match self.wdl {
            Wdl::Draw => 0,
            Wdl::Win => self.plies,
            Wdl::Loss => 128 + self.plies,
        }
    }

    /// The value of a stored byte.
    pub const fn decode(byte: u8) -> DistanceValue {
        match byte {
            0 => DistanceValue::DRAW,
            1..=127 => DistanceValue {
                wdl: Wdl::Win,
                plies: byte,
            },
            _ => DistanceValue {
                wdl: Wdl::Loss,
                plies: byte - 128,
            },
        }
    }
}

/// The rules a table was built under.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RuleSet {
    /// No move limits: only repetition draws (the classic databases).
    Pure,
    /// The FMJD 16-move and 5-move limits.
    Fmjd,
    /// `Fmjd` plus the long-diagonal cap: in a 16-move ending, once the lone
    /// king is the only piece on the long diagonal 46-5, at most 5 more
    /// moves each.
    FmjdDiagonal,
}

impl RuleSet {
    /// All rule sets.
    pub const ALL: [RuleSet; 3] = [RuleSet::Fmjd, RuleSet::FmjdDiagonal, RuleSet::Pure];

    /// The name used on the command line and as the directory name.
    pub const fn name(self) -> &'static str {
        match self {
            RuleSet::Pure => "pure",
            RuleSet::Fmjd => "fmjd",
            RuleSet::FmjdDiagonal => "fmjd-diagonal",
        }
    }

    /// The byte stored in the header.
    pub const fn code(self) -> u8 {
        match self {
            RuleSet::Pure => 0,
            RuleSet::Fmjd => 1,
            RuleSet::FmjdDiagonal => 2,
        }
    }

    /// The rule set of a header byte.
    pub const fn from_code(code: u8) -> Option<RuleSet> {
        match code {
            0 => Some(RuleSet::Pure),
            1 => Some(RuleSet::Fmjd),
            2 => Some(RuleSet::FmjdDiagonal),
            _ => None,
        }
    }

    /// Whether the 16-move and 5-move limits apply.
    pub const fn has_move_limits(self) -> bool {
        !matches!(self, RuleSet::Pure)
    }
}

impl fmt::Display for RuleSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for RuleSet {
    type Err = FormatError;
    fn from_str(s: &str) -> Result<RuleSet, FormatError> {
        RuleSet::ALL
            .into_iter()
            .find(|r| r.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| FormatError::UnknownRuleSet(s.to_string()))
    }
}

/// What a table stores per position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ValueKind {
    /// 2-bit win/draw/loss.
    Wdl,
    /// One byte: result and distance.
    Distance,
    /// One byte: the distance to conversion of a won or lost position (see
    /// [`dtc_byte`]); the result itself is in the material's main table.
    Dtc,
}

impl ValueKind {
    /// The byte stored in the header.
    pub const fn code(self) -> u8 {
        match self {
            ValueKind::Wdl => 0,
            ValueKind::Distance => 1,
            ValueKind::Dtc => 2,
        }
    }

    /// The kind of a header byte.
    pub const fn from_code(code: u8) -> Option<ValueKind> {
        match code {
            0 => Some(ValueKind::Wdl),
            1 => Some(ValueKind::Distance),
            2 => Some(ValueKind::Dtc),
            _ => None,
        }
    }

    /// Bytes of the uncompressed stream for `positions` values.
    pub const fn raw_len(self, positions: u64) -> u64 {
        match self {
            ValueKind::Wdl => positions.div_ceil(4),
            ValueKind::Distance | ValueKind::Dtc => positions,
        }
    }

    /// `"wld"`, `"distance"` or `"dtc"`.
    pub const fn name(self) -> &'static str {
        match self {
            ValueKind::Wdl => "wld",
            ValueKind::Distance => "distance",
            ValueKind::Dtc => "dtc",
        }
    }
}

/// The DTC byte of a DTC of 255 plies or more.
pub const DTC_SATURATED: u8 = 255;

/// The byte a DTC file stores for a DTC of `plies`.
///
/// Distance to conversion (DTC), in plies: how many plies, counting the
/// conversion itself, until the next capture or man move (a crowning is a
/// man move) on the best path that keeps the result: the winner takes the
/// shortest, the loser the longest; either side's conversion counts. The
/// end of the game counts as a conversion: a position whose side to move
/// has no move has DTC 0, and a capture position (every move converts)
/// DTC 1. Draws have none.
///
/// Inside the counted endings the result a path must keep is the result
/// with a freshly entered count, and the DTC counts plies as if the count
/// did not run out first; whether it does is what the ending's distance
/// (the counter threshold) says. Elsewhere the count plays no part.
///
/// A DTC file stores one byte per position: the DTC, or [`DTC_SATURATED`]
/// for 255 plies or more; draws and capture positions hold "don't care".
pub const fn dtc_byte(plies: u32) -> u8 {
    if plies >= DTC_SATURATED as u32 {
        DTC_SATURATED
    } else {
        plies as u8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_bytes_round_trip() {
        for byte in 0..=255u8 {
            let v = DistanceValue::decode(byte);
            assert_eq!(v.encode(), byte);
        }
        let win = DistanceValue {
            wdl: Wdl::Win,
            plies: 31,
        };
        assert_eq!(win.encode(), 31);
        let loss = DistanceValue {
            wdl: Wdl::Loss,
            plies: 0,
        };
        assert_eq!(loss.encode(), 128);
    }

    #[test]
    fn rule_set_names() {
        for r in RuleSet::ALL {
            assert_eq!(r.name().parse::<RuleSet>().unwrap(), r);
            assert_eq!(RuleSet::from_code(r.code()), Some(r));
        }
        assert!("fide".parse::<RuleSet>().is_err());
    }
}
