//! [`Profile`]: who travels on an imported road network.

/// Who travels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Profile {
    /// Motor cars.
    Car,
    /// Bicycles.
    Bike,
    /// Pedestrians.
    Walk,
}

impl std::str::FromStr for Profile {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "car" => Ok(Self::Car),
            "bike" | "bicycle" => Ok(Self::Bike),
            "walk" | "foot" => Ok(Self::Walk),
            other => Err(format!("profile `{other}`: expected car, bike or walk")),
        }
    }
}

impl std::fmt::Display for Profile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Car => "car",
            Self::Bike => "bike",
            Self::Walk => "walk",
        })
    }
}
