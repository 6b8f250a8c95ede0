//! Helpers of the prober's tests, shared with the end-to-end tests of the
//! workspace (included by path).

#![allow(dead_code)]

#[path = "../../../tests/common/copy_dir.rs"]
pub mod copy_dir;
#[path = "../../../tests/common/tables.rs"]
mod tables;

#[allow(unused_imports)] // each test binary uses part of this module
pub use tables::tables;
