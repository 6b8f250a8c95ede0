use std::time::Instant;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let fen = args.get(1).cloned().unwrap_or("W:W31-50:B1-20".into());
    let depth: u32 = args.get(2).map(|d| d.parse().unwrap()).unwrap_or(9);
    let pos: rules::Position = fen.parse().unwrap();
    let t = Instant::now();
    let n = if args.get(3).is_some() { rules::perft_parallel(&pos, depth) } else { rules::perft(&pos, depth) };
    println!("{n} in {:.3}s", t.elapsed().as_secs_f64());
}
