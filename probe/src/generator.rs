//! Hooks for the generator (`dtb gen`, `dtb verify`), not for engines:
//! whole tables decoded into memory and read by index, and the value of a
//! capture position whose moves are known. Engines probe with
//! [`Tablebase`]'s own methods; these are kept out of its inherent API so
//! that they do not read as part of it. Bring the trait into scope to use
//! them: `use probe::generator::GeneratorHooks;`.

use rules::{Move, Position};

use crate::{Material, ProbeError, TableValue, Tablebase};

pub use crate::tablebase::Preloaded;

mod sealed {
    /// Keeps [`super::GeneratorHooks`] implemented by [`crate::Tablebase`]
    /// only, so that methods may be added to it.
    pub trait Sealed {}
    impl Sealed for crate::Tablebase {}
}

/// What the generator asks of a [`Tablebase`] beyond probing (sealed:
/// only [`Tablebase`] implements it).
pub trait GeneratorHooks: sealed::Sealed {
    /// Decodes `material`'s whole table into memory, so that every later
    /// lookup in it is an array read (the generator does this for the
    /// tables it reads most).
    ///
    /// # Errors
    /// The table is missing, damaged, or was cut short while read.
    fn preload(&self, material: Material) -> Result<(), ProbeError>;

    /// `material`'s table if it was decoded whole into memory
    /// ([`GeneratorHooks::preload`]), to be read by index: the generator
    /// ranks its positions itself. `None` when it is not preloaded.
    fn preloaded(&self, material: Material) -> Option<Preloaded<'_>>;

    /// The value of a position where the side to move must capture, given
    /// its legal moves (the generator has them at hand already).
    ///
    /// # Errors
    /// A table the captures lead to is missing or damaged, or the position
    /// is not one these tables cover.
    fn probe_capture(&self, pos: &Position, moves: &[Move]) -> Result<TableValue, ProbeError>;
}

impl GeneratorHooks for Tablebase {
    fn preload(&self, material: Material) -> Result<(), ProbeError> {
        self.preload_table(material)
    }

    fn preloaded(&self, material: Material) -> Option<Preloaded<'_>> {
        self.preloaded_table(material)
    }

    fn probe_capture(&self, pos: &Position, moves: &[Move]) -> Result<TableValue, ProbeError> {
        self.capture_value(pos, moves)
    }
}
