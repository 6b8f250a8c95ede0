//! What a plan costs: core-seconds of each unit at measured solving rates,
//! and the wall time of the whole plan on a number of nodes.
//!
//! The rates are positions per core-second measured on a 2-core machine
//! (recorded at commit b4e0fb2, 2026-12-02; see docs/MEASUREMENTS.md,
//! "Cost at measured rates"); a faster machine scales them all alike. The wall time comes from a list
//! schedule: each node runs one unit at a time on all its cores, a unit
//! starts once every unit it needs has ended, and among ready units the one
//! heading the longest remaining chain goes first.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use crate::units::{Unit, UnitKind};

/// Solving rates, in positions per core-second, by kind of unit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rates {
    /// A whole solve (a material without men, or a counted ending).
    pub solve: f64,
    /// A group of a pair with six kings or more (a man or two among many
    /// kings: slices of billions of positions).
    pub many_kings: f64,
    /// A group of any other pair with men.
    pub men: f64,
    /// A group whose slices are solved in 2 bits a position (one man
    /// among six kings or more: see `GenOptions::bitset_slices_above`).
    pub two_bits: f64,
    /// An assembly (reading groups' files, writing tables).
    pub assembly: f64,
    /// Seconds every unit pays to start (a process, its smaller tables).
    pub start_seconds: f64,
    /// The share of a node's cores a unit keeps busy.
    pub efficiency: f64,
}

/// The rates measured on a 2-core machine that built five pieces in 240 s
/// wall and 453 core-seconds (3.6 M positions a core-second; recorded at
/// commit b4e0fb2, 2026-12-02), about 1.77 times the time of the machine
/// behind the six-piece build of commit ef1181e, run from empty in one go.
/// - `solve`: 0.8 M, the seven-piece materials without men (0.48-0.59 M
///   on a machine 1.53 times slower than this one);
/// - `many_kings`: 1.35 M, the groups of `M-KKKKKK` (0.88 M on one thread
///   of that machine);
/// - `two_bits`: [`TWO_BITS_RATE`], the groups whose slices take the
///   2-bit path;
/// - `men`: 2.8 M, the six-piece build run in one go (5.0 M on the
///   faster machine); five-piece pairs with men came at 3.4-4.9 M here;
/// - `assembly`: 400 M (`M-KKKKKK`'s: 1.26 G positions in 2.7 s);
/// - `efficiency`: 0.75, an assumption for sixteen cores (two cores
///   kept 94% busy in the five-piece build; sixteen were not measured).
pub const MEASURED: Rates = Rates {
    solve: 0.8e6,
    many_kings: 1.35e6,
    men: 2.8e6,
    two_bits: TWO_BITS_RATE,
    assembly: 400e6,
    start_seconds: 1.0,
    efficiency: 0.75,
};

/// The 2-bit path's rate: `many_kings` times 816.6 / 969.7, the
/// core-seconds of the seven-piece pair `KKKKKK-M` / `M-KKKKKK` (1.26 G
/// positions, nine groups) built in process by the big-slice path and by
/// the 2-bit path (`--bitset-slices-above 0`), recorded at commit
/// dd731cb (2026-12-03): 1.54 M and 1.30 M positions a core-second, the
/// same tables byte for byte.
pub const TWO_BITS_RATE: f64 = 1.35e6 * 816.6 / 969.7;

/// The core-seconds unit `unit` takes at `rates`.
pub fn core_seconds(unit: &Unit, rates: &Rates) -> f64 {
    let positions = unit.positions as f64;
    let rate = match unit.kind {
        UnitKind::Solve => rates.solve,
        UnitKind::Group {
            in_two_bits: true, ..
        } => rates.two_bits,
        UnitKind::Group { .. } => {
            let kings = unit.material.map_or(0, |m| m.white_kings + m.black_kings);
            if kings >= 6 {
                rates.many_kings
            } else {
                rates.men
            }
        }
        UnitKind::Assemble => rates.assembly,
        UnitKind::Manifest => return 0.0,
    };
    positions / rate
}

/// The seconds unit `unit` takes on a node of `cores` cores.
fn wall_seconds(unit: &Unit, rates: &Rates, cores: u32) -> f64 {
    rates.start_seconds + core_seconds(unit, rates) / (f64::from(cores) * rates.efficiency)
}

/// The wall time of a plan on some nodes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Schedule {
    /// Seconds from the first unit's start to the last one's end.
    pub wall_seconds: f64,
    /// Seconds of the longest chain of units that must run one after
    /// another (the wall time with unlimited nodes).
    pub critical_seconds: f64,
}

/// The wall time of `units` (in plan order: each after what it needs) on
/// `nodes` nodes of `cores` cores each, at `rates` (see the module).
pub fn schedule(units: &[Unit], nodes: usize, cores: u32, rates: &Rates) -> Schedule {
    let at: HashMap<&str, usize> = units
        .iter()
        .enumerate()
        .map(|(i, u)| (u.id.as_str(), i))
        .collect();
    let needs: Vec<Vec<usize>> = units
        .iter()
        .map(|u| {
            u.needs
                .iter()
                .filter_map(|n| at.get(n.as_str()).copied())
                .collect()
        })
        .collect();
    let seconds: Vec<f64> = units
        .iter()
        .map(|u| wall_seconds(u, rates, cores))
        .collect();
    let tail = longest_tails(&needs, &seconds);
    let critical_seconds = tail.iter().copied().fold(0.0, f64::max);
    Schedule {
        wall_seconds: list_schedule(&needs, &seconds, &tail, nodes.max(1)),
        critical_seconds,
    }
}

/// For each unit, the seconds of the longest chain that starts with it.
fn longest_tails(needs: &[Vec<usize>], seconds: &[f64]) -> Vec<f64> {
    let mut tail = seconds.to_vec();
    // Units come after what they need, so one pass backwards is enough.
    for i in (0..needs.len()).rev() {
        for &n in &needs[i] {
            tail[n] = tail[n].max(seconds[n] + tail[i]);
        }
    }
    tail
}

/// A float ordered for the heaps (seconds are never NaN).
#[derive(Clone, Copy)]
struct Ordered(f64);

impl PartialEq for Ordered {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}

impl Eq for Ordered {}

impl PartialOrd for Ordered {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Ordered {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// The end of the last unit when `nodes` nodes take ready units, the one
/// with the longest tail first.
fn list_schedule(needs: &[Vec<usize>], seconds: &[f64], tail: &[f64], nodes: usize) -> f64 {
    let mut waiting: Vec<usize> = needs.iter().map(Vec::len).collect();
    let mut needed_by = vec![Vec::new(); needs.len()];
    for (i, list) in needs.iter().enumerate() {
        for &n in list {
            needed_by[n].push(i);
        }
    }
    let mut ready: BinaryHeap<(Ordered, Reverse<usize>)> = (0..needs.len())
        .filter(|&i| waiting[i] == 0)
        .map(|i| (Ordered(tail[i]), Reverse(i)))
        .collect();
    let mut running: BinaryHeap<Reverse<(Ordered, usize)>> = BinaryHeap::new();
    let (mut now, mut end) = (0.0, 0.0);
    loop {
        while running.len() < nodes {
            let Some((_, Reverse(i))) = ready.pop() else {
                break;
            };
            running.push(Reverse((Ordered(now + seconds[i]), i)));
        }
        let Some(Reverse((Ordered(done), i))) = running.pop() else {
            break;
        };
        (now, end) = (done, f64::max(end, done));
        for &next in &needed_by[i] {
            waiting[next] -= 1;
            if waiting[next] == 0 {
                ready.push((Ordered(tail[next]), Reverse(next)));
            }
        }
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A group unit of `positions` positions needing `needs`.
    fn unit(id: &str, positions: u64, needs: &[&str]) -> Unit {
        Unit {
            id: id.to_string(),
            kind: UnitKind::Group {
                advancement: 0,
                part: None,
                reads: None,
                in_two_bits: false,
            },
            material: Some("KM-K".parse().unwrap()),
            needs: needs.iter().map(|n| n.to_string()).collect(),
            writes: Vec::new(),
            positions,
            memory_bytes: 0,
        }
    }

    /// One position a core-second, every core busy, no start: a unit of
    /// `p` positions takes `p` seconds on one core.
    const UNIT_RATE: Rates = Rates {
        solve: 1.0,
        many_kings: 1.0,
        men: 1.0,
        two_bits: 1.0,
        assembly: 1.0,
        start_seconds: 0.0,
        efficiency: 1.0,
    };

    #[test]
    fn a_chain_takes_its_sum_however_many_nodes() {
        let units = [
            unit("a", 10, &[]),
            unit("b", 20, &["a"]),
            unit("c", 5, &["b"]),
        ];
        for nodes in [1, 3, 100] {
            let s = schedule(&units, nodes, 1, &UNIT_RATE);
            assert_eq!(s.wall_seconds, 35.0);
            assert_eq!(s.critical_seconds, 35.0);
        }
    }

    #[test]
    fn independent_units_share_the_nodes() {
        let units: Vec<Unit> = (0..6).map(|i| unit(&format!("u{i}"), 10, &[])).collect();
        let wall = |nodes, cores| schedule(&units, nodes, cores, &UNIT_RATE).wall_seconds;
        assert_eq!(wall(1, 1), 60.0);
        assert_eq!(wall(2, 1), 30.0);
        assert_eq!(wall(4, 1), 20.0);
        assert_eq!(wall(6, 1), 10.0);
        assert_eq!(wall(1, 2), 30.0);
        assert_eq!(schedule(&units, 2, 1, &UNIT_RATE).critical_seconds, 10.0);
    }

    /// Two nodes; a long chain and short independent units: the chain's
    /// head goes first, so the short ones fill the other node.
    #[test]
    fn the_longest_chain_starts_first() {
        let mut units = vec![
            unit("s1", 4, &[]),
            unit("s2", 4, &[]),
            unit("head", 5, &[]),
            unit("tail", 10, &["head"]),
        ];
        units.push(unit("s3", 4, &[]));
        let s = schedule(&units, 2, 1, &UNIT_RATE);
        assert_eq!(s.critical_seconds, 15.0);
        assert_eq!(s.wall_seconds, 15.0);
    }

    #[test]
    fn kings_choose_the_rate() {
        let rates = Rates {
            many_kings: 2.0,
            men: 4.0,
            two_bits: 8.0,
            ..UNIT_RATE
        };
        let mut u = unit("g", 8, &[]);
        assert_eq!(core_seconds(&u, &rates), 2.0);
        u.material = Some("KKKK-KKM".parse().unwrap());
        assert_eq!(core_seconds(&u, &rates), 4.0);
        u.kind = UnitKind::Group {
            advancement: 0,
            part: None,
            reads: None,
            in_two_bits: true,
        };
        assert_eq!(core_seconds(&u, &rates), 1.0);
        u.kind = UnitKind::Manifest;
        assert_eq!(core_seconds(&u, &rates), 0.0);
    }
}
