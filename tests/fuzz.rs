//! Fuzz-style robustness: random and mutated input to everything that
//! reads input (FEN, moves, material names, table files, the prober over
//! damaged files). Zero panics allowed. Bounded: a few thousand cases.

mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};

use format::{Material, RuleSet, TableReader};
use proptest::prelude::*;
use rules::Position;

fn fen_alphabet() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            Just('W'),
            Just('B'),
            Just('K'),
            Just(':'),
            Just(','),
            Just('-'),
            Just('.'),
            Just(' '),
            Just('w'),
            Just('k'),
            Just('"'),
            Just('['),
            Just(']'),
            (b'0'..=b'9').prop_map(|b| b as char),
        ],
        0..60,
    )
    .prop_map(|v| v.into_iter().collect())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn fen_parser_never_panics(text in ".{0,80}") {
        let _ = text.parse::<Position>();
    }

    #[test]
    fn fen_like_input_round_trips_or_errs(text in fen_alphabet()) {
        if let Ok(p) = text.parse::<Position>() {
            let again: Position = p.to_string().parse().expect("printed FEN reads back");
            prop_assert_eq!(again, p);
        }
    }

    #[test]
    fn move_parser_never_panics(text in "[0-9x\\- X:]{0,20}", which in 0usize..4) {
        let fens = ["W:W31-50:B1-20", "W:WK4:B13,32,37,20", "B:WK2,K11,35:BK16", "W:WK47:B9,19,29,28,38"];
        let pos: Position = fens[which].parse().unwrap();
        let _ = pos.parse_move(&text);
        for m in pos.legal_moves() {
            prop_assert_eq!(pos.parse_move(&pos.move_to_pdn(&m)).unwrap(), m);
        }
    }

    #[test]
    fn material_names_never_panic(text in "[KMkm0-9v_\\-]{0,12}") {
        if let Ok(m) = text.parse::<Material>() {
            prop_assert_eq!(m.to_string().parse::<Material>().unwrap(), m);
        }
    }
}

fn table_bytes(name: &str) -> Vec<u8> {
    std::fs::read(
        common::tables(RuleSet::Fmjd)
            .join("fmjd")
            .join(format!("{name}.dtb")),
    )
    .unwrap()
}

#[derive(Debug, Clone)]
enum Mutation {
    Flip(usize, u8),
    Truncate(usize),
    Insert(usize, u8),
    Overwrite(usize, Vec<u8>),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 1u8..=255).prop_map(|(a, b)| Mutation::Flip(a, b)),
        any::<usize>().prop_map(Mutation::Truncate),
        (any::<usize>(), any::<u8>()).prop_map(|(a, b)| Mutation::Insert(a, b)),
        (
            any::<usize>(),
            proptest::collection::vec(any::<u8>(), 1..16)
        )
            .prop_map(|(a, b)| Mutation::Overwrite(a, b)),
    ]
}

fn apply(bytes: &mut Vec<u8>, m: &Mutation) {
    let n = bytes.len();
    if n == 0 {
        bytes.push(0);
        return;
    }
    match m {
        Mutation::Flip(at, x) => bytes[at % n] ^= x,
        Mutation::Truncate(at) => bytes.truncate(at % n),
        Mutation::Insert(at, b) => bytes.insert(at % n, *b),
        Mutation::Overwrite(at, data) => {
            for (k, b) in data.iter().enumerate() {
                let i = (at + k) % n;
                bytes[i] = *b;
            }
        }
    }
}

fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

fn put_crc(bytes: &mut [u8], at: usize, crc: u32) {
    if let Some(slot) = bytes.get_mut(at..at + 4) {
        slot.copy_from_slice(&crc.to_le_bytes());
    }
}

/// Recomputes every checksum of a (mutated) table as far as its header and
/// block index can be followed: block CRCs, the index CRC, the body CRC,
/// then the header CRC. A mutation then gets past the checksums to the
/// checks behind them.
fn reseal(bytes: &mut [u8]) {
    if bytes.len() < format::HEADER_LEN {
        return;
    }
    let (Some(blocks), Some(index)) = (u64_at(bytes, 40), u64_at(bytes, 48)) else {
        return;
    };
    let (blocks, index) = (blocks as usize, index as usize);
    let crcs = index.checked_add(blocks.saturating_add(1).saturating_mul(8));
    if blocks < 1 << 20 && index >= format::HEADER_LEN && crcs.is_some_and(|c| c <= bytes.len()) {
        let crcs = crcs.unwrap_or_default();
        for i in 0..blocks {
            let start = u64_at(bytes, index + 8 * i).unwrap_or(0) as usize;
            let end = u64_at(bytes, index + 8 * (i + 1)).unwrap_or(0) as usize;
            if start <= end && end <= bytes.len() {
                let crc = crc32fast::hash(&bytes[start..end]);
                put_crc(bytes, crcs + 4 * i, crc);
            }
        }
        let crc = crc32fast::hash(&bytes[index..]);
        put_crc(bytes, 96, crc);
    }
    let body = crc32fast::hash(&bytes[format::HEADER_LEN..]);
    put_crc(bytes, 100, body);
    let header = crc32fast::hash(&bytes[..124]);
    put_crc(bytes, 124, header);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn table_reader_survives_mutations(which in 0usize..3, muts in proptest::collection::vec(mutation(), 1..4), sealed in any::<bool>()) {
        let names = ["KM-K", "MM-M", "KK-KM"];
        let mut bytes = table_bytes(names[which]);
        let original = bytes.clone();
        for m in &muts {
            apply(&mut bytes, m);
        }
        if sealed {
            reseal(&mut bytes);
        }
        let result = catch_unwind(AssertUnwindSafe(|| {
            let r = TableReader::new(&bytes[..])?;
            r.decode_all()?;
            r.verify_checksum()
        }));
        let result = result.map_err(|_| TestCaseError::fail(format!("panic after {muts:?}")))?;
        // A resealed mutation may leave a valid table (other values in a
        // block that still decodes): only unsealed damage must be caught.
        if bytes != original && !sealed {
            prop_assert!(result.is_err(), "damage after {:?} went unnoticed", muts);
        }
    }

    #[test]
    fn prober_survives_damaged_files(muts in proptest::collection::vec(mutation(), 1..3), seed in any::<u64>(), sealed in any::<bool>()) {
        let dir = tempfile::tempdir().unwrap();
        let fmjd = dir.path().join("fmjd");
        std::fs::create_dir_all(&fmjd).unwrap();
        for name in ["K-K", "K-M", "M-K", "M-M", "KM-K", "K-KM", "KK-K", "K-KK"] {
            let mut bytes = table_bytes(name);
            if name == "KM-K" {
                for m in &muts {
                    apply(&mut bytes, m);
                }
                if sealed {
                    reseal(&mut bytes);
                }
            }
            std::fs::write(fmjd.join(format!("{name}.dtb")), bytes).unwrap();
        }
        let tb = probe::Tablebase::open(dir.path(), RuleSet::Fmjd).unwrap();
        let index = format::MaterialIndex::new("KM-K".parse().unwrap());
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            for k in 0..50u64 {
                let p = index.unrank((seed.wrapping_add(k * 7919)) % index.count());
                let _ = tb.probe_wdl(&p, None);
                let _ = tb.move_values(&p, Some(3));
            }
        }));
        prop_assert!(outcome.is_ok(), "prober panicked after {:?}", muts);
    }
}
