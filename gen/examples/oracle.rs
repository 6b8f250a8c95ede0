fn main() {
    let maxp: u32 = std::env::args()
        .nth(1)
        .map(|s| s.parse().unwrap())
        .unwrap_or(3);
    let tb = probe::Tablebase::open(
        std::env::var("TBDIR").unwrap_or("/tmp/tbq".into()),
        format::RuleSet::Pure,
    )
    .unwrap();
    let text = std::fs::read_to_string("../shared/oracles/egdb_example_wld.tsv").unwrap();
    let (mut ok, mut bad) = (0, 0);
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let cols: Vec<&str> = line.split('\t').collect();
        let n: u32 = cols[2].parse().unwrap();
        if n > maxp {
            continue;
        }
        let pos: rules::Position = cols[0].parse().unwrap();
        let v = tb.probe_wdl(&pos, None).unwrap();
        if v.as_str() == cols[1] {
            ok += 1
        } else {
            bad += 1;
            println!("MISMATCH {} expected {} got {}", cols[0], cols[1], v);
        }
    }
    println!("ok {ok} bad {bad}");
}
