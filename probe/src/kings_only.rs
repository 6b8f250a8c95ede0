//! Probing with both draw counts: the plies left on a 16- or 5-move count
//! and the king-only plies of the 25-move rule (RULES.md, "The 25-move
//! rule and the tables").
//!
//! The tables store values for a freshly reset 25-move count. With `n`
//! king-only plies already played, a decided result with distance to
//! conversion `d` holds when `n + d <= 50` and is a draw otherwise; a move
//! passes the count on as `format::kings_only_plies_after` says. So with
//! `n > 0` a decided result needs its DTC file (`dtb gen --dtc`); with
//! `n = 0` the answers are the tables' own (up to 5 pieces the longest
//! DTC is 22 plies, so no reset count ever reaches 50 before a conversion;
//! where the DTC files are there the moves are still checked against the
//! rule).

use format::{holds_under_kings_only_rule, kings_only_plies_after, kings_only_rule_applies};
use format::{Material, Wdl};
use rules::Position;

use crate::error::ProbeError;
use crate::tablebase::{move_order, MoveValue, Tablebase};

/// The state of the draw counts in a position.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct DrawCounts {
    /// Plies left on the count of a 16- or 5-move ending; `None`: the
    /// ending was just entered (32 or 10). Ignored outside those endings
    /// and under `pure`.
    pub plies_left: Option<u8>,
    /// Plies played in a row with only kings moving, no capture and no man
    /// move (0-49). Ignored inside the counted endings (their own count
    /// binds first) and under `pure`.
    pub kings_only_plies: u8,
}

impl DrawCounts {
    /// Both counts.
    pub fn new(plies_left: Option<u8>, kings_only_plies: u8) -> DrawCounts {
        DrawCounts {
            plies_left,
            kings_only_plies,
        }
    }

    fn checked(self) -> Result<DrawCounts, ProbeError> {
        if u32::from(self.kings_only_plies) >= format::KINGS_ONLY_LIMIT {
            return Err(ProbeError::BadKingsOnlyPlies {
                got: self.kings_only_plies.into(),
            });
        }
        Ok(self)
    }
}

impl Tablebase {
    /// Win, draw or loss for the side to move under both draw counts
    /// ([`DrawCounts`]): [`Tablebase::probe_wdl`], then the 25-move rule.
    ///
    /// # Errors
    /// As [`Tablebase::probe_wdl`], and [`ProbeError::BadKingsOnlyPlies`]
    /// for a count of 50 or more; with king-only plies played, a decided
    /// result whose DTC file is missing is [`ProbeError::MissingTable`]
    /// naming it.
    pub fn probe_wdl_with(&self, pos: &Position, counts: DrawCounts) -> Result<Wdl, ProbeError> {
        let counts = counts.checked()?;
        let wdl = self.probe_wdl(pos, counts.plies_left)?;
        let played = u32::from(counts.kings_only_plies);
        let class = Material::of(pos).counted_ending();
        if wdl == Wdl::Draw || played == 0 || !kings_only_rule_applies(self.rule_set(), class) {
            return Ok(wdl);
        }
        let dtc = self.probe_dtc(pos)?.unwrap_or(0);
        Ok(match holds_under_kings_only_rule(played, dtc) {
            true => wdl,
            false => Wdl::Draw,
        })
    }

    /// Every legal move with its value under both draw counts, best first
    /// (as [`Tablebase::move_values`]): a king move that reaches a decided
    /// position too late for the 25-move rule leads to a draw.
    ///
    /// # Errors
    /// As [`Tablebase::probe_wdl_with`].
    pub fn move_values_with(
        &self,
        pos: &Position,
        counts: DrawCounts,
    ) -> Result<Vec<MoveValue>, ProbeError> {
        let counts = counts.checked()?;
        let mut moves = self.move_values(pos, counts.plies_left)?;
        let class = Material::of(pos).counted_ending();
        if !kings_only_rule_applies(self.rule_set(), class) {
            return Ok(moves);
        }
        let played = u32::from(counts.kings_only_plies);
        for m in &mut moves {
            let after = kings_only_plies_after(pos, &m.mv, played);
            if m.wdl == Wdl::Draw || after == 0 {
                continue;
            }
            let child_dtc = match m.dtc {
                Some(d) => d - 1,
                None if played == 0 => continue,
                // Missing DTC files: the error names the file.
                None => self.probe_dtc(&pos.play(&m.mv))?.unwrap_or(0),
            };
            if !holds_under_kings_only_rule(after, child_dtc) {
                m.wdl = Wdl::Draw;
                m.plies = None;
                m.dtc = None;
            }
        }
        moves.sort_by_key(move_order);
        Ok(moves)
    }

    /// A best move under both draw counts: the first of
    /// [`Tablebase::move_values_with`]. A win never slips under the 25-move
    /// rule: the winning move of least DTC keeps `n + DTC` unchanged.
    /// `None` when there is no legal move.
    ///
    /// # Errors
    /// As [`Tablebase::probe_wdl_with`].
    pub fn best_move_with(
        &self,
        pos: &Position,
        counts: DrawCounts,
    ) -> Result<Option<MoveValue>, ProbeError> {
        Ok(self.move_values_with(pos, counts)?.into_iter().next())
    }
}
