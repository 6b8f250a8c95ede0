//! Table files: write then read back, and a walk over many corruptions
//! that must each give an error and never a panic.

use format::{
    FormatError, HeaderMismatch, Material, MaterialIndex, RuleSet, TableReader, TableSpec,
    TableStats, TableWriter, ValueKind,
};
use rand::{rngs::SmallRng, Rng, SeedableRng};

fn write_table(dir: &std::path::Path, kind: ValueKind, block: u32) -> (Vec<u8>, Vec<Option<u8>>) {
    let material: Material = "KM-K".parse().unwrap();
    let count = MaterialIndex::new(material).count();
    let mut rng = SmallRng::seed_from_u64(7);
    let mut spec = TableSpec::new(material, RuleSet::Fmjd, kind);
    spec.positions_per_block = block;
    let path = dir.join(material.file_name());
    let mut w = TableWriter::create(&path, spec).unwrap();
    let mut values = Vec::new();
    let mut stats = TableStats::default();
    for i in 0..count {
        // Runs of equal values with some don't-cares, like a real table.
        let v = match kind {
            ValueKind::Wdl => ((i / 97) % 3) as u8,
            ValueKind::Distance => ((i / 31) % 40) as u8 + if i % 5 == 0 { 128 } else { 0 },
            ValueKind::Dtc => ((i / 13) % 256) as u8,
        };
        let v = if rng.gen_bool(0.1) { None } else { Some(v) };
        w.push(v).unwrap();
        values.push(v);
        stats.draw += 1;
    }
    assert!(w.push(Some(0)).is_err(), "one value too many");
    let written = w.finish(stats).unwrap();
    assert_eq!(written, path);
    assert!(!format::temporary_path(&path).exists());
    (std::fs::read(&path).unwrap(), values)
}

#[test]
fn values_read_back() {
    let dir = tempfile::tempdir().unwrap();
    for (kind, block) in [
        (ValueKind::Wdl, 4096),
        (ValueKind::Distance, 1000),
        (ValueKind::Dtc, 1000),
    ] {
        let (bytes, values) = write_table(dir.path(), kind, block);
        let reader = TableReader::new(&bytes[..]).unwrap();
        reader.verify_checksum().unwrap();
        let h = reader.header();
        assert_eq!(h.material.to_string(), "KM-K");
        assert_eq!(h.rule_set, RuleSet::Fmjd);
        assert_eq!(h.value_kind, kind);
        let decoded = reader.decode_all().unwrap();
        let mut last = match kind {
            ValueKind::Wdl => 1,
            ValueKind::Distance | ValueKind::Dtc => 0,
        };
        for (i, v) in values.iter().enumerate() {
            match v {
                Some(v) => {
                    assert_eq!(decoded[i], *v, "position {i}");
                    last = *v;
                }
                // Don't-cares repeat the value before them.
                None => assert_eq!(decoded[i], last, "position {i}"),
            }
        }
        // The same input gives the same bytes.
        let (again, _) = write_table(dir.path(), kind, block);
        assert_eq!(again, bytes);
    }
}

#[test]
fn an_unfinished_writer_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let material: Material = "K-K".parse().unwrap();
    let path = dir.path().join(material.file_name());
    let mut w = TableWriter::create(
        &path,
        TableSpec::new(material, RuleSet::Pure, ValueKind::Wdl),
    )
    .unwrap();
    w.push(Some(1)).unwrap();
    drop(w);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    let w = TableWriter::create(
        &path,
        TableSpec::new(material, RuleSet::Pure, ValueKind::Wdl),
    )
    .unwrap();
    assert!(matches!(
        w.finish(TableStats::default()),
        Err(FormatError::Writer(_))
    ));
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn unwritable_directory_is_an_error() {
    let material: Material = "K-K".parse().unwrap();
    let path = std::path::Path::new("/nonexistent-dir/K-K.dtb");
    let err = TableWriter::create(
        path,
        TableSpec::new(material, RuleSet::Pure, ValueKind::Wdl),
    )
    .err()
    .expect("cannot create");
    assert!(
        err.to_string().contains("/nonexistent-dir/K-K.dtb.partial"),
        "{err}"
    );
}

/// Opens, decodes every block and checks the body checksum: the first
/// error, if any.
fn read_everything(bytes: &[u8]) -> Result<(), FormatError> {
    let reader = TableReader::new(bytes)?;
    reader.decode_all()?;
    reader.verify_checksum()
}

#[test]
fn corruptions_are_errors_not_panics() {
    let dir = tempfile::tempdir().unwrap();
    for (kind, block) in [(ValueKind::Wdl, 4096), (ValueKind::Distance, 1000)] {
        let (bytes, _) = write_table(dir.path(), kind, block);
        read_everything(&bytes).unwrap();
        let mut rng = SmallRng::seed_from_u64(99);
        // Every byte of the header and the block index, and a sample of
        // the blocks: flip one bit.
        let index_start = TableReader::new(&bytes[..]).unwrap().header().index_offset as usize;
        let mut offsets: Vec<usize> = (0..128).chain(index_start..bytes.len()).collect();
        offsets.extend((0..400).map(|_| rng.gen_range(128..index_start)));
        for at in offsets {
            let mut bad = bytes.clone();
            bad[at] ^= 1 << rng.gen_range(0..8);
            let result = std::panic::catch_unwind(|| read_everything(&bad));
            let result = result.unwrap_or_else(|_| panic!("panic with byte {at} flipped"));
            assert!(result.is_err(), "byte {at} flipped went unnoticed");
        }
        // Cut anywhere.
        for len in (0..bytes.len()).step_by(7).chain([bytes.len() - 1]) {
            let result = std::panic::catch_unwind(|| read_everything(&bytes[..len]));
            let err = result
                .unwrap_or_else(|_| panic!("panic when cut at {len}"))
                .unwrap_err();
            assert!(err.is_corruption(), "cut at {len}: {err}");
        }
        // Trailing garbage.
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(read_everything(&longer).is_err());
        // Wrong magic.
        let mut bad = bytes.clone();
        bad[0] = b'X';
        assert!(matches!(
            TableReader::new(&bad[..]),
            Err(FormatError::BadMagic)
        ));
        // Wrong checksum of the body, header intact.
        let mut bad = bytes.clone();
        let last_block_byte = index_start - 1;
        bad[last_block_byte] ^= 0x80;
        let reader = TableReader::new(&bad[..]).unwrap();
        assert!(matches!(
            reader.verify_checksum(),
            Err(FormatError::Checksum("table body"))
        ));
        // Random garbage of many sizes.
        for len in [0usize, 1, 8, 127, 128, 129, 1000] {
            let junk: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
            assert!(read_everything(&junk).is_err());
            let mut with_magic = junk.clone();
            if len >= 8 {
                with_magic[..8].copy_from_slice(&format::MAGIC);
                assert!(read_everything(&with_magic).is_err());
            }
        }
    }
}

/// Re-seals the header checksum after an edit of its fields.
fn resealed(mut header: Vec<u8>) -> Vec<u8> {
    let crc = crc32fast::hash(&header[..124]);
    header[124..128].copy_from_slice(&crc.to_le_bytes());
    header
}

/// A header whose checksum is right but whose numbers are hostile
/// is refused with an error: counts that overflow when added or multiplied,
/// a block size that would make a decode allocate gigabytes, unknown flags,
/// reserved bytes in use. Each edit is re-sealed so it reaches the checks.
#[test]
fn hostile_headers_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (bytes, _) = write_table(dir.path(), ValueKind::Wdl, 4096);
    let header = bytes[..format::HEADER_LEN].to_vec();
    assert!(format::Header::parse(&resealed(header.clone())).is_ok());
    type Edit = Box<dyn Fn(&mut Vec<u8>)>;
    let edits: Vec<(&str, Edit)> = vec![
        (
            "piece counts that wrap a byte",
            Box::new(|h| h[12..16].copy_from_slice(&[200, 100, 1, 0])),
        ),
        (
            "20 kings a side: too many positions for u64",
            Box::new(|h| h[12..16].copy_from_slice(&[0, 20, 0, 20])),
        ),
        (
            "a huge block",
            Box::new(|h| h[20..24].copy_from_slice(&(1u32 << 30).to_le_bytes())),
        ),
        ("flags", Box::new(|h| h[19] = 1)),
        ("reserved bytes", Box::new(|h| h[110] = 7)),
    ];
    for (what, edit) in edits {
        let mut h = header.clone();
        edit(&mut h);
        let result = std::panic::catch_unwind(|| format::Header::parse(&resealed(h.clone())));
        let result = result.unwrap_or_else(|_| panic!("{what}: panic"));
        assert!(result.is_err(), "{what}: accepted");
    }
    // Every material with at most 20 pieces a side either has an index or
    // is refused by name, never wraps around.
    for wk in 0..=20u8 {
        for bk in 0..=20u8 {
            let (w, b) = (wk.max(1), bk.max(1));
            match Material::new(0, w, 0, b) {
                Ok(m) => assert!(MaterialIndex::try_new(m).is_some(), "{m}"),
                Err(e) => assert!(
                    MaterialIndex::try_new(Material {
                        white_men: 0,
                        white_kings: w,
                        black_men: 0,
                        black_kings: b
                    })
                    .is_none(),
                    "{e}"
                ),
            }
        }
    }
}

/// A DTC file that stores no values (they come from its mirror's): a
/// header and an empty block index, read back with its flag and
/// statistics, refused as a source of values, and refused when its flag
/// sits on a file with blocks or on a WLD table.
#[test]
fn a_dtc_file_from_the_mirror_holds_no_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let material: Material = "KM-M".parse().unwrap();
    let path = dir.path().join(format::dtc_file_name(material));
    let stats = TableStats {
        win: 5,
        draw: MaterialIndex::new(material).count() - 7,
        loss: 2,
        longest_win: Some(9),
        longest_loss: Some(4),
        dtc_above_limit: Some(3),
        longest_fresh_dtc: Some(57),
    };
    format::write_from_mirror(&path, material, RuleSet::Pure, ValueKind::Dtc, stats).unwrap();
    assert!(!format::temporary_path(&path).exists());
    let h = format::check_file_of(&path, material, RuleSet::Pure, ValueKind::Dtc).unwrap();
    assert!(h.from_mirror);
    assert_eq!((h.block_count, h.stats), (0, stats));
    let bytes = std::fs::read(&path).unwrap();
    let reader = TableReader::new(&bytes[..]).unwrap();
    reader.verify_checksum().unwrap();
    assert!(reader.decode_all().is_err());
    assert!(reader.decode_all_raw().is_err());
    // The flag on a DTC file with blocks, or on a WLD table: refused.
    let (full, _) = write_table(dir.path(), ValueKind::Dtc, 1000);
    let (wdl, _) = write_table(dir.path(), ValueKind::Wdl, 4096);
    for (name, table) in [("a DTC file with blocks", &full), ("a WLD table", &wdl)] {
        let mut h = table[..format::HEADER_LEN].to_vec();
        assert!(
            format::Header::parse(&resealed(h.clone())).is_ok(),
            "{name}"
        );
        h[19] = format::FLAG_FROM_MIRROR;
        assert!(format::Header::parse(&resealed(h)).is_err(), "{name}");
    }
    let mut other_flag = bytes[..format::HEADER_LEN].to_vec();
    other_flag[19] |= 4;
    assert!(format::Header::parse(&resealed(other_flag)).is_err());
    // The 25-move counts: only in a DTC file, and the bytes after them
    // stay reserved.
    let mut counts_in_wdl = wdl[..format::HEADER_LEN].to_vec();
    counts_in_wdl[19] = format::FLAG_KINGS_ONLY_COUNTS;
    assert!(format::Header::parse(&resealed(counts_in_wdl)).is_err());
    let mut past_counts = bytes[..format::HEADER_LEN].to_vec();
    assert!(format::Header::parse(&resealed(past_counts.clone())).is_ok());
    past_counts[116] = 1;
    assert!(format::Header::parse(&resealed(past_counts)).is_err());
}

/// A header is checked against the file its name promises, one field at a
/// time: material, rules, kind of values, and a DTC taken from the mirror
/// where the material must store its own; `check_file_of` refuses each.
#[test]
fn a_header_is_the_file_its_name_says_or_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    write_table(dir.path(), ValueKind::Wdl, 4096);
    let km_k: Material = "KM-K".parse().unwrap();
    let path = dir.path().join(km_k.file_name());
    let h = format::check_file_of(&path, km_k, RuleSet::Fmjd, ValueKind::Wdl).unwrap();
    assert_eq!(h.mismatch(km_k, RuleSet::Fmjd, ValueKind::Wdl), None);
    let other: Material = "K-KM".parse().unwrap();
    let wrong = [
        (
            other,
            RuleSet::Fmjd,
            ValueKind::Wdl,
            HeaderMismatch::Material(km_k),
        ),
        (
            km_k,
            RuleSet::Pure,
            ValueKind::Wdl,
            HeaderMismatch::RuleSet(RuleSet::Fmjd),
        ),
        (
            km_k,
            RuleSet::Fmjd,
            ValueKind::Dtc,
            HeaderMismatch::ValueKind(ValueKind::Wdl),
        ),
    ];
    for (material, rule_set, kind, mismatch) in wrong {
        assert_eq!(h.mismatch(material, rule_set, kind), Some(mismatch));
        let err = format::check_file_of(&path, material, rule_set, kind).unwrap_err();
        assert!(
            matches!(&err, FormatError::Corrupt(m) if m.contains(&mismatch.to_string())),
            "{err}"
        );
    }
    // KM-K is a counted ending: its DTC file must store its values.
    let mut from_mirror = h.clone();
    from_mirror.value_kind = ValueKind::Dtc;
    from_mirror.from_mirror = true;
    assert_eq!(
        from_mirror.mismatch(km_k, RuleSet::Fmjd, ValueKind::Dtc),
        Some(HeaderMismatch::FromMirror)
    );
    let km_m: Material = "KM-M".parse().unwrap();
    from_mirror.material = km_m;
    assert_eq!(
        from_mirror.mismatch(km_m, RuleSet::Fmjd, ValueKind::Dtc),
        None
    );
}

/// A version-2 table with searched threats written with `kept` as its
/// threats kept: its bytes and the values pushed.
fn write_keeping(dir: &std::path::Path, kept: &[u64]) -> Result<Vec<u8>, FormatError> {
    let material: Material = "KM-K".parse().unwrap();
    let count = MaterialIndex::new(material).count();
    let spec = TableSpec::searched_threats(material, RuleSet::Fmjd, None);
    let path = dir.join(material.file_name());
    let mut w = TableWriter::create(&path, spec)?;
    for i in 0..count {
        w.push(Some(((i / 97) % 3) as u8))?;
    }
    let stats = TableStats {
        draw: count,
        ..TableStats::default()
    };
    w.finish_keeping(stats, kept)?;
    Ok(std::fs::read(&path).unwrap())
}

/// The bytes of a table with its list of threats kept replaced by `kept`
/// (as long as the old one), the list's checksum and the header's sealed
/// again: only the list's own checks can refuse it.
fn with_list(bytes: &[u8], kept: &[u64]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    let list: Vec<u8> = kept.iter().flat_map(|i| i.to_le_bytes()).collect();
    let at = out.len() - list.len();
    out[at..].copy_from_slice(&list);
    out[112..116].copy_from_slice(&crc32fast::hash(&list).to_le_bytes());
    let sealed = resealed(out[..format::HEADER_LEN].to_vec());
    out[..format::HEADER_LEN].copy_from_slice(&sealed);
    out
}

/// Threats kept (`FLAG_THREATS_KEPT`): the list is written after the
/// block index, read back as written, and refused when its checksum,
/// order or range is wrong; the writer refuses a list it could not
/// write validly.
#[test]
fn threats_kept_are_listed_after_the_index_and_checked() {
    let dir = tempfile::tempdir().unwrap();
    let kept = [3u64, 10, 500];
    let bytes = write_keeping(dir.path(), &kept).unwrap();
    read_everything(&bytes).unwrap();
    let reader = TableReader::new(&bytes[..]).unwrap();
    assert_eq!(&reader.threats_kept()[..], &kept);
    assert_eq!(reader.header().threats_kept, 3);
    assert_eq!(
        bytes[19] & format::FLAG_THREATS_KEPT,
        format::FLAG_THREATS_KEPT
    );
    let index_end = bytes.len() - 8 * kept.len();
    assert_eq!(&bytes[index_end..index_end + 8], &3u64.to_le_bytes());
    // Without a list: no flag, the index ends the file.
    let plain = write_keeping(dir.path(), &[]).unwrap();
    let reader = TableReader::new(&plain[..]).unwrap();
    assert!(reader.threats_kept().is_empty());
    assert_eq!(plain[19] & format::FLAG_THREATS_KEPT, 0);
    assert_eq!(plain.len() + 24, bytes.len());
    // Every bit of the list flipped: its checksum.
    for at in index_end..bytes.len() {
        let mut bad = bytes.clone();
        bad[at] ^= 0x10;
        assert!(
            matches!(
                TableReader::new(&bad[..]),
                Err(FormatError::Checksum("list of threats kept"))
            ),
            "byte {at}"
        );
    }
    // Sealed again, out of order, repeated, out of range.
    let count = MaterialIndex::new("KM-K".parse().unwrap()).count();
    for list in [[10, 3, 500], [3, 3, 500], [3, 10, count]] {
        let bad = with_list(&bytes, &list);
        assert!(
            matches!(TableReader::new(&bad[..]), Err(FormatError::Corrupt(_))),
            "{list:?}"
        );
    }
    assert!(TableReader::new(&with_list(&bytes, &[0, 1, count - 1])[..]).is_ok());
    // The writer: a list out of order, or on a table without searched
    // threats.
    assert!(write_keeping(dir.path(), &[10, 3]).is_err());
    let material: Material = "KM-K".parse().unwrap();
    let spec = TableSpec::new(material, RuleSet::Fmjd, ValueKind::Wdl);
    let mut w = TableWriter::create(&dir.path().join("plain.dtb"), spec).unwrap();
    for _ in 0..count {
        w.push(Some(1)).unwrap();
    }
    assert!(w.finish_keeping(TableStats::default(), &[3]).is_err());
}
