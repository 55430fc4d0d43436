//! WGSL sources, the `//!include` mechanism and naga validation.
//!
//! Every kernel is one file under the workspace's `shaders/` folder. Shared helpers live in
//! `shaders/lib/<name>.wgsl` and are pulled in by a line `//!include <name>` (each helper at most once
//! per shader). A line `//!requires subgroup int64_atomic_min_max` (names from
//! [`crate::OptionalFeatures::names`]) declares the optional features a shader needs: pipelines check
//! them against the device, and the validation test enables the matching naga capabilities.

use crate::context::OptionalFeatures;
use crate::error::GpuError;

/// A WGSL source embedded in the binary, with its name (the file stem under `shaders/`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Shader {
    /// File stem, e.g. `copy` for `shaders/copy.wgsl`.
    pub name: &'static str,
    /// The unprocessed source.
    pub source: &'static str,
}

/// The helper library, embedded: `(name, source)` of every `shaders/lib/*.wgsl`.
pub const LIBRARY: &[(&str, &str)] = &[("grid", include_str!("../../../shaders/lib/grid.wgsl"))];

impl Shader {
    /// A shader from its name and source (see the [`crate::shader!`] macro).
    pub const fn new(name: &'static str, source: &'static str) -> Self {
        Self { name, source }
    }

    /// The optional features the shader declares with `//!requires`.
    pub fn requirements(&self) -> Result<OptionalFeatures, GpuError> {
        requirements(self.name, self.source)
    }

    /// The source with every `//!include` replaced by the library helper it names.
    pub fn resolve(&self) -> Result<String, GpuError> {
        preprocess(self.name, self.source, &|name| {
            LIBRARY.iter().find(|(n, _)| *n == name).map(|(_, s)| s.to_string())
        })
    }
}

/// Parses the `//!requires` lines of a source.
pub fn requirements(shader: &str, source: &str) -> Result<OptionalFeatures, GpuError> {
    let mut req = OptionalFeatures::NONE;
    for line in source.lines() {
        let Some(rest) = line.trim().strip_prefix("//!requires") else { continue };
        for word in rest.split_whitespace() {
            match word {
                "subgroup" => req.subgroup = true,
                "int64" => req.int64 = true,
                "int64_atomic_min_max" => req.int64_atomic_min_max = true,
                "f64" => req.f64 = true,
                "timestamps" => req.timestamps = true,
                other => {
                    return Err(GpuError::Shader {
                        shader: shader.into(),
                        message: format!("unknown feature `{other}` in //!requires"),
                    });
                }
            }
        }
    }
    Ok(req)
}

/// Replaces each `//!include <name>` line by `lookup(name)` (recursively, each name once).
pub fn preprocess(
    shader: &str,
    source: &str,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<String, GpuError> {
    fn go(
        shader: &str,
        source: &str,
        lookup: &dyn Fn(&str) -> Option<String>,
        done: &mut Vec<String>,
        out: &mut String,
    ) -> Result<(), GpuError> {
        for line in source.lines() {
            match line.trim().strip_prefix("//!include") {
                Some(name) => {
                    let name = name.trim();
                    if done.iter().any(|d| d == name) {
                        continue;
                    }
                    let text = lookup(name).ok_or_else(|| GpuError::Shader {
                        shader: shader.into(),
                        message: format!("//!include {name}: no such helper in shaders/lib"),
                    })?;
                    done.push(name.to_string());
                    go(shader, &text, lookup, done, out)?;
                }
                None => {
                    out.push_str(line);
                    out.push('\n');
                }
            }
        }
        Ok(())
    }
    let mut out = String::with_capacity(source.len() + 1024);
    go(shader, source, lookup, &mut Vec::new(), &mut out)?;
    Ok(out)
}

/// Parses and validates a resolved WGSL source with naga, with the capabilities `features` enables.
/// Returns naga's message (with source excerpts) on failure.
pub fn validate(shader: &str, resolved: &str, features: OptionalFeatures) -> Result<(), GpuError> {
    use naga::valid::{Capabilities, ValidationFlags, Validator};
    let module = naga::front::wgsl::parse_str(resolved).map_err(|e| GpuError::Shader {
        shader: shader.into(),
        message: e.emit_to_string_with_path(resolved, shader),
    })?;
    let mut caps = Capabilities::empty();
    caps.set(Capabilities::SUBGROUP, features.subgroup);
    caps.set(Capabilities::SHADER_INT64, features.int64 || features.int64_atomic_min_max);
    caps.set(Capabilities::SHADER_INT64_ATOMIC_MIN_MAX, features.int64_atomic_min_max);
    caps.set(Capabilities::FLOAT64, features.f64);
    Validator::new(ValidationFlags::all(), caps)
        .validate(&module)
        .map_err(|e| GpuError::Shader { shader: shader.into(), message: format!("{e:?}") })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn includes_resolve_once_and_unknown_ones_fail() {
        let lookup = |n: &str| match n {
            "a" => Some("//!include b\nfn a() {}".to_string()),
            "b" => Some("fn b() {}".to_string()),
            _ => None,
        };
        let out = preprocess("t", "//!include a\n//!include b\nfn main() {}", &lookup).unwrap();
        assert_eq!(out, "fn b() {}\nfn a() {}\nfn main() {}\n");
        assert!(preprocess("t", "//!include zzz", &lookup).is_err());
    }

    #[test]
    fn requirements_parse() {
        let r = requirements("t", "//!requires subgroup int64_atomic_min_max\n").unwrap();
        assert!(r.subgroup && r.int64_atomic_min_max && !r.f64);
        assert!(requirements("t", "//!requires warp_drive").is_err());
    }
}
