fn main() {
    let n: u32 = std::env::args()
        .nth(1)
        .map(|s| s.parse().unwrap())
        .unwrap_or(3);
    let rules: format::RuleSet = std::env::args()
        .nth(2)
        .map(|s| s.parse().unwrap())
        .unwrap_or(format::RuleSet::Pure);
    let mut o = gen::GenOptions::new(
        std::env::var("TBDIR").unwrap_or("/tmp/tbq".into()),
        rules,
        n,
    );
    o.quiet = false;
    let r = gen::generate(&o).unwrap();
    for b in &r.built {
        println!(
            "{} {} {:?} {:.2}s {}",
            b.material, b.positions, b.stats, b.seconds, b.bytes
        );
    }
    println!("total {:.2}s peak {:?}", r.seconds, r.peak_memory_bytes);
}
