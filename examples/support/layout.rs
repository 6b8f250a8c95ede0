//! Where a position's value lies in a folder of tables: its material and
//! block, the block sizes read from the headers (shared by the examples
//! that count the blocks a search reads).

use std::collections::HashMap;
use std::path::PathBuf;

use format::{table_position, Material, MaterialIndex};
use rules::Position;

/// Positions a block holds, per material, read from the headers.
pub struct Layout {
    pub dir: PathBuf,
    pub per_block: HashMap<Material, u64>,
}

impl Layout {
    /// A layout of the tables in `dir`.
    pub fn new(dir: PathBuf) -> Layout {
        Layout {
            dir,
            per_block: HashMap::new(),
        }
    }

    /// The table `pos` stands in, and its block there.
    pub fn block_of(&mut self, pos: &Position) -> (Material, u64) {
        let (material, normal) = table_position(pos);
        let dir = &self.dir;
        let per_block = *self.per_block.entry(material).or_insert_with(|| {
            let header = format::read_header(&format::table_path(dir, material))
                .expect("a table of the folder");
            u64::from(header.positions_per_block)
        });
        (
            material,
            MaterialIndex::new(material).rank(&normal) / per_block,
        )
    }
}
