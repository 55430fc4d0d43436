//! How well assigned flows reproduce counts: the statistics modellers report.

use std::io::{self, Write};
use std::path::Path;

use graph_core::io::create_text;

use super::LinkCounts;
use crate::network::Network;

/// The GEH statistic of an assigned flow `v` against a count `c`: `sqrt(2 (v − c)² / (v + c))`, 0 when
/// both are 0. UK practice (DMRB TAG M3.1) asks GEH < 5 on at least 85 % of counted links.
///
/// ```
/// use urbanflow::tap::odme::geh;
/// assert_eq!(geh(0.0, 0.0), 0.0);
/// assert!((geh(1100.0, 1000.0) - 3.086).abs() < 1e-3);
/// ```
pub fn geh(v: f64, c: f64) -> f64 {
    if v + c > 0.0 { (2.0 * (v - c) * (v - c) / (v + c)).sqrt() } else { 0.0 }
}

/// The GEH threshold of the share reported in [`Fit::geh_below_5`].
pub const GEH_THRESHOLD: f64 = 5.0;

/// Assigned flows against counts, over the counted links.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fit {
    /// The objective `½ Σ w_a (v_a − ĉ_a)²`.
    pub objective: f64,
    /// Root mean square error `sqrt(Σ (v_a − ĉ_a)² / n)` (unweighted), in vehicles.
    pub rmse: f64,
    /// The RMSE as a percentage of the mean count.
    pub percent_rmse: f64,
    /// Coefficient of determination of the counts by the flows, `1 − Σ (v − ĉ)² / Σ (ĉ − mean ĉ)²`.
    pub r_squared: f64,
    /// Share (0 to 1) of counted links with GEH below [`GEH_THRESHOLD`].
    pub geh_below_5: f64,
    /// The largest GEH.
    pub max_geh: f64,
}

impl Fit {
    /// The fit of `flows` (one per network link) to `counts`, all of whose counts are of all vehicles
    /// ([`Self::of_counted`] otherwise).
    ///
    /// ```
    /// use urbanflow::tap::odme::{Fit, LinkCounts};
    /// use urbanflow::tap::{CostFactors, Link, Network};
    /// let road = |from, to| Link { from, to, capacity: 100.0, length: 1.0, free_flow_time: 1.0, b: 0.15, power: 4.0, toll: 0.0 };
    /// let net = Network::new(3, &[road(0, 1), road(1, 2)], 0, CostFactors::default()).unwrap();
    /// let counts = LinkCounts::new(&net, [(0, 100.0, 1.0), (1, 200.0, 1.0)]).unwrap();
    /// let fit = Fit::of(&counts, &[100.0, 210.0]);
    /// assert_eq!((fit.objective, fit.geh_below_5), (50.0, 1.0));
    /// assert!((fit.rmse - 50f64.sqrt()).abs() < 1e-12);
    /// ```
    pub fn of(counts: &LinkCounts, flows: &[f64]) -> Self {
        let counted: Vec<f64> = counts.links().iter().map(|&a| flows[a as usize]).collect();
        Self::of_counted(counts, &counted)
    }

    /// The fit of `counted` (one assigned flow per count, of the vehicles it counts) to `counts`.
    pub fn of_counted(counts: &LinkCounts, counted: &[f64]) -> Self {
        let n = counts.len().max(1) as f64;
        let mean_count = counts.counts().iter().sum::<f64>() / n;
        let (mut objective, mut squares, mut spread, mut below, mut max_geh) = (0.0, 0.0, 0.0, 0, 0.0f64);
        for ((&v, &c), &w) in counted.iter().zip(counts.counts()).zip(counts.weights()) {
            let e = v - c;
            objective += 0.5 * w * e * e;
            squares += e * e;
            spread += (c - mean_count) * (c - mean_count);
            let g = geh(v, c);
            below += usize::from(g < GEH_THRESHOLD);
            max_geh = max_geh.max(g);
        }
        let rmse = (squares / n).sqrt();
        Self {
            objective,
            rmse,
            percent_rmse: if mean_count > 0.0 { 100.0 * rmse / mean_count } else { 0.0 },
            r_squared: if spread > 0.0 { 1.0 - squares / spread } else { f64::NAN },
            geh_below_5: below as f64 / n,
            max_geh,
        }
    }
}

/// A counted link's count against the estimate's assigned flow.
#[derive(Debug, Clone, PartialEq)]
pub struct CountedFlow {
    /// The link, in the network's link order (0-based).
    pub link: u32,
    /// The class counted, or `None` for all vehicles.
    pub class: Option<String>,
    /// Its count.
    pub count: f64,
    /// The flow assigned to it by the estimated matrix (vehicles of the class counted, or of all
    /// classes).
    pub flow: f64,
    /// GEH of flow against count.
    pub geh: f64,
}

/// Writes counted links as CSV: `link,from,to,count,flow,geh` (1-based link number, file ids), and a
/// `class` column after `to` when any count is of one class (empty for all vehicles).
pub fn write_counted_csv(path: impl AsRef<Path>, net: &Network, counted: &[CountedFlow]) -> io::Result<()> {
    let mut w = create_text(path)?;
    let by_class = counted.iter().any(|c| c.class.is_some());
    writeln!(w, "link,from,to,{}count,flow,geh", if by_class { "class," } else { "" })?;
    for c in counted {
        let l = &net.links()[c.link as usize];
        let class = if by_class { format!("{},", c.class.as_deref().unwrap_or("")) } else { String::new() };
        writeln!(
            w,
            "{},{},{},{class}{},{},{}",
            c.link + 1,
            net.node_id(l.from),
            net.node_id(l.to),
            c.count,
            c.flow,
            c.geh
        )?;
    }
    w.flush()
}
