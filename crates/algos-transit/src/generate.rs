//! The spec's seeded synthetic instances (td-multimodal.md §7): a road layer with daily congestion
//! profiles and up to four timetabled layers joined to it by transfer arcs.
//!
//! - **Road**: [`graph_core::generators::road_like`] (a jittered lattice with arterials); an arc of
//!   weight w has free-flow time `⌈w / 20⌉` s (a local block ≈ 50 s) and a 24-breakpoint daily
//!   profile: factor 1 at night rising linearly to a peak factor (1.5–2.0, by arc) at 08:00 and 17:00,
//!   back to 1 two hours either side. Label [`label::CAR`].
//! - **Timetabled layers** j = 0..layers (bus, tram, metro, rail): straight lines across the lattice
//!   (alternately west–east and south–north at random offsets) with a stop every 2, 4, 8, 16 lattice
//!   steps, both directions; each stop position is one vertex joined to its road vertex by boarding
//!   ([`label::TRANSFER`], 30 s: a positive minimum, spec §3.2) and alighting (0 s) arcs. A line runs
//!   05:00–24:00 every 5–20 min (seeded), riding 25, 18, 12, 8 s per lattice step, so services past
//!   midnight wrap to the next morning.
//!
//! The instance depends only on the [`GenSpec`]; `GenSpec::parse("road=100000,layers=4,lines=40,seed=1")`
//! reads the text form the example and benchmark take.

use graph_core::generators::road_like;
use graph_core::rng::SplitMix64;

use super::error::TdError;
use super::graph::{TdGraph, TdGraphBuilder, label};
use super::nfa::Nfa;
use super::plf::FnKind;

/// What to generate.
#[derive(Debug, Clone, PartialEq)]
pub struct GenSpec {
    /// Road vertices (about).
    pub road: u32,
    /// Timetabled layers, 0..=4 (bus, tram, metro, rail).
    pub layers: u32,
    /// Lines per layer (each runs both ways).
    pub lines: u32,
    /// Seed.
    pub seed: u64,
}

impl Default for GenSpec {
    fn default() -> Self {
        Self { road: 10_000, layers: 4, lines: 10, seed: 1 }
    }
}

impl GenSpec {
    /// Parses `road=N,layers=K,lines=L,seed=S` (any subset, in any order; the rest default).
    pub fn parse(s: &str) -> Result<Self, TdError> {
        let mut spec = Self::default();
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (k, v) = part
                .split_once('=')
                .ok_or_else(|| TdError::InvalidParameter(format!("`{part}` is not key=value")))?;
            let bad = |e: std::num::ParseIntError| TdError::InvalidParameter(format!("`{part}`: {e}"));
            match k {
                "road" => spec.road = v.parse().map_err(bad)?,
                "layers" => spec.layers = v.parse().map_err(bad)?,
                "lines" => spec.lines = v.parse().map_err(bad)?,
                "seed" => spec.seed = v.parse().map_err(bad)?,
                other => {
                    return Err(TdError::InvalidParameter(format!(
                        "unknown key `{other}` (expected road, layers, lines, seed)"
                    )));
                }
            }
        }
        if spec.layers > 4 {
            return Err(TdError::InvalidParameter("at most 4 timetabled layers".into()));
        }
        Ok(spec)
    }
}

/// A generated instance.
#[derive(Debug, Clone)]
pub struct Generated {
    /// The network.
    pub graph: TdGraph,
    /// Road vertices are `0..road_vertices`.
    pub road_vertices: u32,
    /// `[x, y]` of every vertex (lattice units; line stops sit on their road vertex).
    pub coords: Vec<[f32; 2]>,
}

const LAYER_LABEL: [u8; 4] = [label::BUS, label::TRAM, label::METRO, label::RAIL];
const STOP_EVERY: [u32; 4] = [2, 4, 8, 16];
const SECONDS_PER_STEP: [u32; 4] = [25, 18, 12, 8];
const BOARD_S: u32 = 30;

/// Generates the instance of `spec`.
pub fn generate(spec: &GenSpec) -> Result<Generated, TdError> {
    let road =
        road_like(spec.road.max(4), spec.seed).map_err(|e| TdError::InvalidParameter(e.to_string()))?;
    let n_road = road.graph.num_vertices();
    // road_like lays vertices out row by row on a near-square lattice.
    let rows = (spec.road.max(4) as f64).sqrt().floor().max(1.0) as u32;
    let cols = n_road / rows;
    let mut b = TdGraphBuilder::new(n_road);
    let mut coords = road.coords.clone();
    let mut rng = SplitMix64::new(spec.seed ^ 0x7D_0001);
    // Road functions, shared by arcs with the same free-flow time and peak.
    let mut funcs = std::collections::HashMap::new();
    for (u, v, w) in road.graph.arcs() {
        let ff = w.div_ceil(20).max(1);
        let peak_tenths = 15 + (graph_core::rng::mix(spec.seed ^ ((u as u64) << 32 | v as u64)) % 6) as u32;
        let f = *funcs.entry((ff, peak_tenths)).or_insert_with(|| {
            let points = (0..24u32).map(|h| {
                // Distance in hours to the nearer peak; factor 1 + (peak − 1)(1 − d/2)⁺.
                let d = (h as i32 - 8).abs().min((h as i32 - 17).abs()) as u32;
                let extra = (peak_tenths - 10) * 2u32.saturating_sub(d);
                (h * 3600, ff + (ff * extra).div_ceil(20))
            });
            b.store_mut().push(FnKind::Interpolated, points)
        });
        b.add_arc(u, v, label::CAR, f);
    }
    for layer in 0..spec.layers as usize {
        let every = STOP_EVERY[layer];
        for line in 0..spec.lines {
            let horizontal = line % 2 == 0;
            let (len, across) = if horizontal { (cols, rows) } else { (rows, cols) };
            let offset = rng.below(across as u64) as u32;
            let stops: Vec<u32> = (0..len)
                .step_by(every as usize)
                .map(|i| if horizontal { offset * cols + i } else { i * cols + offset })
                .filter(|&v| v < n_road)
                .collect();
            if stops.len() < 2 {
                continue;
            }
            let headway = 300 + 60 * rng.below(16) as u32;
            let first = 5 * 3600 + rng.below(headway as u64) as u32;
            let ride = every * SECONDS_PER_STEP[layer];
            for direction in [false, true] {
                let seq: Vec<u32> =
                    if direction { stops.iter().rev().copied().collect() } else { stops.clone() };
                let base = b.num_vertices();
                for (i, &r) in seq.iter().enumerate() {
                    let v = b.add_vertex();
                    coords.push(coords[r as usize]);
                    if i + 1 < seq.len() {
                        b.add_constant_arc(r, v, label::TRANSFER, BOARD_S);
                    }
                    if i > 0 {
                        b.add_constant_arc(v, r, label::TRANSFER, 0);
                    }
                }
                for i in 0..seq.len() - 1 {
                    // Trip k leaves the first stop at first + k·headway and stop i at + i·(ride + 20).
                    let at = first + i as u32 * (ride + 20);
                    let deps = (0..).map(|k| at + k * headway).take_while(|&t| t < 24 * 3600);
                    let deps: Vec<(u32, u32)> = deps.map(|t| (t % super::PERIOD, ride)).collect();
                    let mut deps = deps;
                    deps.sort_unstable();
                    deps.dedup_by_key(|d| d.0);
                    let f = b.store_mut().push(FnKind::NextDeparture, deps);
                    b.add_arc(base + i as u32, base + i as u32 + 1, LAYER_LABEL[layer], f);
                }
            }
        }
    }
    let graph = b.build()?;
    Ok(Generated { graph, road_vertices: n_road, coords })
}

/// `h` label-filter profiles of the benchmark (spec §7, h ∈ {2, 3, 4, 6, 8}): car only, then car with
/// one or more timetabled modes; every profile can transfer.
pub fn filter_profiles(h: usize) -> Vec<Nfa> {
    let modes = [
        vec![],
        vec![label::BUS],
        vec![label::METRO],
        vec![label::BUS, label::TRAM],
        vec![label::METRO, label::RAIL],
        vec![label::BUS, label::TRAM, label::METRO],
        vec![label::TRAM, label::METRO, label::RAIL],
        vec![label::BUS, label::TRAM, label::METRO, label::RAIL],
    ];
    modes
        .iter()
        .cycle()
        .take(h)
        .map(|m| {
            let mut labels = vec![label::CAR, label::TRANSFER];
            labels.extend(m);
            Nfa::any_of(&labels)
        })
        .collect()
}

/// Park and ride: drive, then only timetabled modes (the car stays at the first station).
/// States: 0 driving (start, accepting), 1 on public transport (accepting).
pub fn park_and_ride() -> Nfa {
    let mut a = Nfa::new(2).expect("two states");
    a.set_start(0).set_accept(0).set_accept(1);
    a.add(0, label::CAR, 0).add(0, label::TRANSFER, 1).add(1, label::TRANSFER, 1);
    for l in LAYER_LABEL {
        a.add(1, l, 1);
    }
    a
}
