//! The answer to a probe: a position's value, its distances and every
//! move's, and its principal line. Built here once for the command line,
//! the explorer, Python and C, which only word or convert it.
//!
//! Each distance has its own name and meaning:
//! * `dtc`: distance to conversion, the plies until the next capture or
//!   man move on the best path (see [`Tablebase::probe_dtc`]);
//! * `counted_threshold`: in a 16-move or 5-move ending under the FMJD
//!   limits, the plies that must be left on the count for the result to
//!   hold;
//! * `lone_king_plies`: in a lone-king ending under `pure`, the plies until
//!   the game ends or leaves those endings with the result settled;
//! * a [`Line`]'s length: plies to the end of the game.

use format::{kings_only_plies_after, kings_only_rule_applies, Material, RuleSet, Wdl};
use rules::{CountedEnding, Position};

use crate::error::ProbeError;
use crate::kings_only::DrawCounts;
use crate::tablebase::{MoveValue, Tablebase};

/// The distances of a position or a move, each in plies, by metric; `None`
/// where the metric does not apply (or for a draw).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Distances {
    /// Distance to conversion.
    pub dtc: Option<u32>,
    /// Plies the count must have left (counted endings, FMJD limits).
    pub counted_threshold: Option<u32>,
    /// Plies until the lone-king endings are left with the result settled
    /// or the game ends (`pure`).
    pub lone_king_plies: Option<u32>,
}

impl Distances {
    /// Splits a table distance by what it means in `class` under `rules`.
    fn of(
        rules: RuleSet,
        class: Option<CountedEnding>,
        plies: Option<u32>,
        dtc: Option<u32>,
    ) -> Distances {
        let limited = rules.has_move_limits() && class.is_some();
        Distances {
            dtc,
            counted_threshold: plies.filter(|_| limited),
            lone_king_plies: plies.filter(|_| !limited),
        }
    }
}

/// One move of an [`Answer`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct MoveAnswer {
    /// The move in PDN.
    pub pdn: String,
    /// Its value for the side that plays it.
    pub value: MoveValue,
    /// The distances through it.
    pub distances: Distances,
    /// The position it reaches, in PDN.
    pub after: String,
    /// The king-only plies after it, where the 25-move rule applies.
    pub kings_only_plies_after: Option<u32>,
}

/// A probed position: its value and every move's.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Answer {
    /// The position in canonical PDN.
    pub fen: String,
    /// Its result for the side to move, under both draw counts.
    pub wdl: Wdl,
    /// Its distances.
    pub distances: Distances,
    /// Every legal move with its value, best first.
    pub moves: Vec<MoveAnswer>,
    /// The counted ending it is in, if any.
    pub counted: Option<CountedEnding>,
    /// The plies the count of a counted ending allows here (caps applied),
    /// where such a count runs.
    pub plies_left: Option<u32>,
    /// The king-only plies played, where the 25-move rule applies
    /// (`fmjd` and `fmjd-diagonal`, outside the counted endings).
    pub kings_only_plies: Option<u32>,
    /// Whether the DTC files are there for its material (`dtb gen --dtc`).
    pub dtc_available: bool,
}

/// The DTC of `pos`, `Ok(None)` also when the DTC files are missing; the
/// flag says whether they are there.
fn dtc_if_built(tb: &Tablebase, pos: &Position) -> Result<(Option<u32>, bool), ProbeError> {
    let available = tb.has_dtc(format::table_position(pos).0);
    match tb.probe_dtc(pos) {
        Ok(d) => Ok((d, available)),
        Err(e) if e.is_missing_table() => Ok((None, false)),
        Err(e) => Err(e),
    }
}

/// Probes `pos` and every move under both draw counts.
///
/// # Errors
/// As [`Tablebase::probe_wdl_with`].
pub fn answer(tb: &Tablebase, pos: &Position, counts: DrawCounts) -> Result<Answer, ProbeError> {
    let wdl = tb.probe_wdl_with(pos, counts)?;
    let probe = tb.probe_counted(pos, counts.plies_left)?;
    let class = Material::of(pos).counted_ending();
    let rules = tb.rule_set();
    let kings_only = kings_only_rule_applies(rules, class).then_some(counts.kings_only_plies);
    let (dtc, dtc_available) = match wdl {
        Wdl::Draw => (None, tb.has_dtc(format::table_position(pos).0)),
        _ => dtc_if_built(tb, pos)?,
    };
    let plies = probe.plies.filter(|_| wdl != Wdl::Draw);
    let moves = tb
        .move_values_with(pos, counts)?
        .into_iter()
        .map(|m| MoveAnswer {
            pdn: pos.move_to_pdn(&m.mv),
            distances: Distances::of(rules, class, m.plies, m.dtc),
            after: pos.play(&m.mv).to_string(),
            kings_only_plies_after: kings_only
                .map(|n| kings_only_plies_after(pos, &m.mv, n.into())),
            value: m,
        })
        .collect();
    Ok(Answer {
        fen: pos.to_string(),
        wdl,
        distances: Distances::of(rules, class, plies, dtc),
        moves,
        counted: class,
        plies_left: tb.plies_available(pos, counts.plies_left),
        kings_only_plies: kings_only.map(u32::from),
        dtc_available,
    })
}

/// A principal line: best moves for both sides from a position to the end
/// of the game.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Line {
    /// The moves in PDN, in order.
    pub moves: Vec<String>,
    /// Whether White moves first (for move numbers).
    pub white_first: bool,
}

/// The most plies a line may take before it is taken for a fault.
const MAX_LINE_PLIES: usize = 5000;

/// Plays [`Tablebase::best_move_with`] for both sides from `pos` to the
/// end of the game (the side to move has no move), carrying both draw
/// counts along. Needs the DTC files where results are bare (else a winner
/// may wander); `None` for a draw.
///
/// # Errors
/// As [`Tablebase::probe_wdl_with`], and [`ProbeError::InvalidPosition`]
/// if the line does not end within 5,000 plies.
pub fn principal_line(
    tb: &Tablebase,
    pos: &Position,
    counts: DrawCounts,
) -> Result<Option<Line>, ProbeError> {
    if tb.probe_wdl_with(pos, counts)? == Wdl::Draw {
        return Ok(None);
    }
    let mut line = Line {
        moves: Vec::new(),
        white_first: pos.side_to_move() == rules::Color::White,
    };
    let (mut pos, mut counts) = (*pos, counts);
    while let Some(best) = best_of(tb, &pos, counts)? {
        if line.moves.len() == MAX_LINE_PLIES {
            return Err(ProbeError::InvalidPosition(format!(
                "the line did not end within {MAX_LINE_PLIES} plies"
            )));
        }
        line.moves.push(pos.move_to_pdn(&best.mv));
        let played = kings_only_plies_after(&pos, &best.mv, counts.kings_only_plies.into());
        // A decided line converts before the 50th king-only ply.
        counts = DrawCounts::new(best.plies_left_after, played.min(49) as u8);
        pos = pos.play(&best.mv);
    }
    Ok(Some(line))
}

/// The best move, or `None` when the game is over.
fn best_of(
    tb: &Tablebase,
    pos: &Position,
    counts: DrawCounts,
) -> Result<Option<MoveValue>, ProbeError> {
    if pos.pieces(pos.side_to_move()).is_empty()
        || pos.pieces(pos.side_to_move().opponent()).is_empty()
    {
        return Ok(None);
    }
    tb.best_move_with(pos, counts)
}

impl Line {
    /// The line in PDN movetext: `1. 26x19 42-37 2. 19-14`, or `1... 23-28`
    /// when Black starts.
    pub fn pdn(&self) -> String {
        let mut out = Vec::new();
        let offset = usize::from(!self.white_first);
        for (i, mv) in self.moves.iter().enumerate() {
            let ply = i + offset;
            let number = ply / 2 + 1;
            if ply % 2 == 0 {
                out.push(format!("{number}. {mv}"));
            } else if i == 0 {
                out.push(format!("{number}... {mv}"));
            } else {
                out.push(mv.clone());
            }
        }
        out.join(" ")
    }
}
