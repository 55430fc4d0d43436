//! The standard TNTP test networks: where their files lie under the data root, the cost factors their
//! READMEs give, and the best-known objective values (from the TransportationNetworks repository's READMEs and
//! published solution files).

use std::path::{Path, PathBuf};

use crate::network::CostFactors;

/// One standard network.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StandardNetwork {
    /// Short name (`"SiouxFalls"`).
    pub name: &'static str,
    /// `_net` file, relative to the data root.
    pub net: &'static str,
    /// `_trips` file, relative to the data root (`None` where the demand is not available).
    pub trips: Option<&'static str>,
    /// Published best-known flows, relative to the data root.
    pub flow: Option<&'static str>,
    /// Toll and distance factors of the network's README.
    pub factors: CostFactors,
    /// Best-known Beckmann objective (with the factors), where published or recomputed from the flows.
    pub best_objective: Option<f64>,
}

const fn factors(toll: f64, distance: f64) -> CostFactors {
    CostFactors { toll, distance }
}

/// The standard networks, smallest first.
pub const STANDARD_NETWORKS: &[StandardNetwork] = &[
    StandardNetwork {
        name: "Braess",
        net: "tntp/Braess-Example/Braess_net.tntp",
        trips: Some("tntp/Braess-Example/Braess_trips.tntp"),
        flow: None,
        factors: factors(0.0, 0.0),
        best_objective: None,
    },
    StandardNetwork {
        name: "SiouxFalls",
        net: "tntp/SiouxFalls/SiouxFalls_net.tntp",
        trips: Some("tntp/SiouxFalls/SiouxFalls_trips.tntp"),
        flow: Some("tntp/SiouxFalls/SiouxFalls_flow.tntp"),
        factors: factors(0.0, 0.0),
        best_objective: Some(4_231_335.287107),
    },
    StandardNetwork {
        name: "Eastern-Massachusetts",
        net: "tntp/Eastern-Massachusetts/EMA_net.tntp",
        trips: Some("tntp/Eastern-Massachusetts/EMA_trips.tntp"),
        flow: None,
        factors: factors(0.0, 0.0),
        best_objective: None,
    },
    StandardNetwork {
        name: "Anaheim",
        net: "tntp/Anaheim/Anaheim_net.tntp",
        trips: Some("tntp/Anaheim/Anaheim_trips.tntp"),
        flow: Some("tntp/Anaheim/Anaheim_flow.tntp"),
        factors: factors(0.0, 0.0),
        best_objective: Some(1_286_032.171096),
    },
    StandardNetwork {
        name: "Barcelona",
        net: "tntp/Barcelona/Barcelona_net.tntp",
        trips: Some("tntp/Barcelona/Barcelona_trips.tntp"),
        flow: Some("tntp/Barcelona/Barcelona_flow.tntp"),
        factors: factors(0.0, 0.0),
        best_objective: Some(1_265_654.92203176),
    },
    StandardNetwork {
        name: "Winnipeg",
        net: "tntp/Winnipeg/Winnipeg_net.tntp",
        trips: Some("tntp/Winnipeg/Winnipeg_trips.tntp"),
        flow: Some("tntp/Winnipeg/Winnipeg_flow.tntp"),
        factors: factors(0.0, 0.0),
        best_objective: Some(827_911.494629963),
    },
    StandardNetwork {
        name: "Chicago-Sketch",
        net: "tntp/Chicago-Sketch/ChicagoSketch_net.tntp",
        trips: Some("tntp/Chicago-Sketch/ChicagoSketch_trips.tntp.xz"),
        flow: Some("tntp/Chicago-Sketch/ChicagoSketch_flow.tntp"),
        factors: factors(0.02, 0.04),
        best_objective: Some(17_313_018.7387477),
    },
    StandardNetwork {
        name: "Berlin-Mitte-Prenzlauerberg-Friedrichshain-Center",
        net: "tntp/Berlin-Mitte-Prenzlauerberg-Friedrichshain-Center/berlin-mitte-prenzlauerberg-friedrichshain-center_net.tntp",
        trips: Some(
            "tntp/Berlin-Mitte-Prenzlauerberg-Friedrichshain-Center/berlin-mitte-prenzlauerberg-friedrichshain-center_trips.tntp",
        ),
        flow: None,
        factors: factors(0.0, 0.0),
        best_objective: None,
    },
    StandardNetwork {
        name: "Berlin-Center",
        net: "tntp/Berlin-Center/berlin-center_net.tntp.xz",
        trips: Some("tntp/Berlin-Center/berlin-center_trips.tntp"),
        flow: None,
        factors: factors(0.0, 0.0),
        best_objective: None,
    },
    StandardNetwork {
        name: "Austin",
        net: "tntp/Austin/Austin_net.tntp",
        trips: Some("tntp/Austin/Austin_trips_am.tntp.xz"),
        flow: None,
        factors: factors(0.0, 0.0),
        best_objective: None,
    },
    StandardNetwork {
        name: "Philadelphia",
        net: "tntp/Philadelphia/Philadelphia_net.tntp.xz",
        trips: Some("tntp/Philadelphia/Philadelphia_trips.tntp.xz"),
        flow: None,
        factors: factors(0.055, 0.0),
        best_objective: None,
    },
    StandardNetwork {
        name: "Chicago-Regional",
        net: "tntp/chicago-regional/ChicagoRegional_net.tntp.xz",
        trips: None,
        flow: Some("tntp/chicago-regional/ChicagoRegional_flow.tntp.xz"),
        factors: factors(0.1, 0.25),
        best_objective: Some(30_792_611.3864393),
    },
];

/// The standard network of that name (case-insensitive).
pub fn standard_network(name: &str) -> Option<&'static StandardNetwork> {
    STANDARD_NETWORKS.iter().find(|n| n.name.eq_ignore_ascii_case(name))
}

impl StandardNetwork {
    /// Paths of the `_net` and `_trips` files under `root`.
    pub fn files(&self, root: &Path) -> (PathBuf, Option<PathBuf>) {
        (root.join(self.net), self.trips.map(|t| root.join(t)))
    }
}
