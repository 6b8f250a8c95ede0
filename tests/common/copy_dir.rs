//! Copying a folder of tables, shared by the end-to-end tests, the
//! prober's tests and the C interface's tests (which include this file by
//! path).

use std::path::Path;

/// Copies the folder `from` (with its subfolders) to `to`.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}
