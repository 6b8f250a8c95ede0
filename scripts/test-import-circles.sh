#!/bin/sh
# Checks scripts/import-circles.py on small made-up crates: it must find a
# circle between two files, one through a folder's files, one through a
# name the crate root re-exports and one through `super::super::` past a
# test-only item, and none where paths point one way (a child module's
# `super::` items, an inline module's `super::`, a name another crate's, a
# test module's imports, a path in a comment).
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

crate() { mkdir -p "$tmp/$1/src"; }
file() { mkdir -p "$(dirname "$tmp/$1")"; cat > "$tmp/$1"; }
expect() { # expect CODE CRATE
    if python3 "$here/import-circles.py" "$tmp/$2" > "$tmp/out" 2>&1; then got=0; else got=$?; fi
    if [ "$got" -ne "$1" ]; then
        echo "import-circles on $2: exit $got, expected $1" >&2
        cat "$tmp/out" >&2
        exit 1
    fi
}

crate two
file two/src/lib.rs <<'R'
mod a;
mod b;
R
file two/src/a.rs <<'R'
use crate::b::B;
pub struct A;
R
file two/src/b.rs <<'R'
pub struct B;
fn f() -> crate::a::A { crate::a::A }
R
expect 1 two

crate folder
file folder/src/lib.rs <<'R'
mod unit;
R
file folder/src/unit/mod.rs <<'R'
mod assembly;
use assembly::run;
pub(crate) fn rule_dir() {}
R
file folder/src/unit/assembly.rs <<'R'
pub(crate) fn run() { crate::unit::rule_dir() }
R
expect 1 folder

crate root
file root/src/lib.rs <<'R'
mod a;
mod b;
pub use a::A;
pub fn helper() -> b::B { b::B }
R
file root/src/a.rs <<'R'
pub struct A;
R
file root/src/b.rs <<'R'
use crate::helper;
pub struct B;
R
expect 1 root

crate deep
file deep/src/lib.rs <<'R'
mod a;
mod b;
R
file deep/src/a.rs <<'R'
mod inner;
pub struct A(inner::Wrap);
R
file deep/src/a/inner.rs <<'R'
pub struct Wrap(super::super::b::B);
R
file deep/src/b.rs <<'R'
#[cfg(test)]
fn only_in_tests() {}
/* crate::nothing::Here */
pub struct B(crate::a::A);
#[cfg(test)]
mod tests {
    use crate::a::A;
}
R
expect 1 deep

crate oneway
file oneway/src/lib.rs <<'R'
mod error;
mod slice;
mod table;
pub use error::Error;
pub use format::Material;
pub use table::Table;
R
file oneway/src/error.rs <<'R'
pub struct Error;
// crate::table::Table is not a dependency: this is a comment.
#[cfg(test)]
mod tests {
    use crate::table::Table;
}
R
file oneway/src/table.rs <<'R'
use crate::{Error, Material};
pub struct Table;
mod unix {
    use super::Table;
}
R
file oneway/src/slice.rs <<'R'
mod bitset;
use crate::table::Table;
pub(crate) struct Slice;
R
file oneway/src/slice/bitset.rs <<'R'
use super::Slice;
use crate::Error;
R
expect 0 oneway
echo "import-circles.py finds the circles it should, and no other"
