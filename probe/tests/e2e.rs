//! End to end: build the `fmjd` tables up to four pieces, then probe them
//! through the library: known values, capture positions, the draw counter
//! at its boundaries, consistency of every answer with the answers for the
//! moves, and many threads at once. The whole suite runs twice: over
//! memory-mapped tables and over positioned reads (`probe::Storage`).

mod common;

/// The suite over memory-mapped tables (the default).
mod mapped {
    const STORAGE: probe::Storage = probe::Storage::Mapped;
    include!("suite/suite.rs");
}

/// The suite over positioned reads (`pread`).
mod positioned_reads {
    const STORAGE: probe::Storage = probe::Storage::PositionedReads;
    include!("suite/suite.rs");
}
