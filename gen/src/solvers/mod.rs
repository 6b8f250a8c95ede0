//! The solvers, and what they share. Each unit solves its pair or group
//! with one of them:
//!
//! - [`group`] drives the [`slice`] solver over a slice group (its 2-bit
//!   path in `slice/bitset.rs`), or a whole pair without men, or hands
//!   such a pair to [`menless`], the bit-set solver for materials without
//!   men;
//! - [`counted`] solves the counted endings (their tables keep distances
//!   under the draw counter), with its [`level_queue`];
//! - [`captures`] reads what a capture leads to, [`kings_only`] applies
//!   the 25-move rule, and [`bit_codes`] holds what the two bit-set
//!   solvers share.

pub(crate) mod bit_codes;
pub(crate) mod captures;
pub(crate) mod counted;
pub(crate) mod group;
pub(crate) mod kings_only;
pub(crate) mod level_queue;
pub(crate) mod menless;
pub(crate) mod slice;
