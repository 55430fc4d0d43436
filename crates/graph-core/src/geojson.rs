//! GeoJSON output (RFC 7946) for routes, trees and journeys, for QGIS, geojson.io or any web map.
//!
//! Positions are given as `(latitude, longitude)` in degrees, as the rest of urbanflow stores them, and
//! written in GeoJSON's `[longitude, latitude]` order with 7 decimals (about 1 cm).
//!
//! ```
//! use urbanflow::graph::geojson::{Feature, feature_collection};
//! let road = Feature::line([(53.0793, 8.8017), (53.0801, 8.8044)])
//!     .number("arrival_s", 42.5)
//!     .text("name", "Am \"Wall\"");
//! let text = feature_collection([road]);
//! assert!(text.contains(r#"[[8.8017000,53.0793000],[8.8044000,53.0801000]]"#));
//! assert!(text.contains(r#""name":"Am \"Wall\"""#));
//! assert!(text.starts_with(r#"{"type":"FeatureCollection","features":["#));
//! ```

use std::fmt::Write;

/// One GeoJSON feature: a line string with properties.
#[derive(Debug, Clone, PartialEq)]
pub struct Feature {
    points: Vec<(f64, f64)>,
    properties: Vec<(String, String)>,
}

impl Feature {
    /// A line through `points`, each `(latitude, longitude)` in degrees.
    pub fn line(points: impl IntoIterator<Item = (f64, f64)>) -> Self {
        Self { points: points.into_iter().collect(), properties: Vec::new() }
    }

    /// Adds a numeric property (non-finite values are written as `null`, which JSON requires).
    pub fn number(mut self, key: &str, value: f64) -> Self {
        let v = if value.is_finite() { format!("{value}") } else { "null".into() };
        self.properties.push((key.into(), v));
        self
    }

    /// Adds an integer property (ids, counts), written exactly.
    pub fn integer(mut self, key: &str, value: u64) -> Self {
        self.properties.push((key.into(), value.to_string()));
        self
    }

    /// Adds a text property.
    pub fn text(mut self, key: &str, value: &str) -> Self {
        self.properties.push((key.into(), json_string(value)));
        self
    }

    /// Adds a text property, or `null` when absent.
    pub fn optional_text(self, key: &str, value: Option<&str>) -> Self {
        match value {
            Some(v) => self.text(key, v),
            None => {
                let mut f = self;
                f.properties.push((key.into(), "null".into()));
                f
            }
        }
    }

    /// The feature as one JSON object.
    pub fn to_json(&self) -> String {
        let mut out = String::from(r#"{"type":"Feature","geometry":{"type":"LineString","coordinates":["#);
        for (i, (lat, lon)) in self.points.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            let _ = write!(out, "[{lon:.7},{lat:.7}]");
        }
        out.push_str(r#"]},"properties":{"#);
        for (i, (k, v)) in self.properties.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            let _ = write!(out, "{}:{v}", json_string(k));
        }
        out.push_str("}}");
        out
    }
}

/// A feature collection of `features`, one per line, ending with a newline.
pub fn feature_collection(features: impl IntoIterator<Item = Feature>) -> String {
    let body: Vec<String> = features.into_iter().map(|f| f.to_json()).collect();
    format!("{{\"type\":\"FeatureCollection\",\"features\":[\n{}\n]}}\n", body.join(",\n"))
}

/// `s` as a JSON string literal (quotes, backslashes and control characters escaped).
pub fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_and_non_finite_numbers_stay_valid_json() {
        assert_eq!(json_string("a\u{1}b\\"), r#""a\u0001b\\""#);
        let f = Feature::line([(1.0, 2.0)]).number("x", f64::NAN).optional_text("route", None);
        assert_eq!(
            f.to_json(),
            r#"{"type":"Feature","geometry":{"type":"LineString","coordinates":[[2.0000000,1.0000000]]},"properties":{"x":null,"route":null}}"#
        );
    }
}
