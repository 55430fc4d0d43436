//! WGSL sources, the `//!include` mechanism and naga validation.
//!
//! Every kernel is one file under the workspace's `shaders/` folder. Shared helpers live in
//! `shaders/lib/<name>.wgsl` and are pulled in by a line `//!include <name>` (each helper at most once
//! per shader). A helper is registered by the crate that owns it: the generic ones (grids, element
//! types, reduction operators) and the shortest-path labels shared by algos-sssp, algos-tap and
//! algos-transit (`sssp_common`, `batch_lists`: transit does not depend on algos-sssp) in [`LIBRARY`]
//! here; an algorithm's own helpers in its crate, given to its shaders with [`Shader::with_helpers`]
//! (built by [`crate::helpers!`]). A line `//!requires subgroup int64_atomic_min_max` (names from
//! [`crate::OptionalFeatures::names`]) declares the optional features a shader needs: pipelines check
//! them against the device, and the validation test enables the matching naga capabilities.

use crate::error::GpuError;
use crate::features::OptionalFeatures;

/// A WGSL source embedded in the binary, with its name (the file stem under `shaders/`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Shader {
    /// File stem, e.g. `copy` for `shaders/copy.wgsl`.
    pub name: &'static str,
    /// The unprocessed source.
    pub source: &'static str,
    /// Helpers of the crate that owns the shader (`(name, source)`), looked up before [`LIBRARY`].
    pub helpers: &'static [(&'static str, &'static str)],
}

macro_rules! library {
    ($($name:literal),* $(,)?) => {
        &[$(($name, include_str!(concat!("../shaders/lib/", $name, ".wgsl")))),*]
    };
}

/// The helper library, embedded: `(name, source)` of every `shaders/lib/*.wgsl`.
pub const LIBRARY: &[(&str, &str)] = library![
    "grid",
    "elem_u32",
    "elem_i32",
    "elem_f32",
    "predicate",
    "op_sum",
    "op_min",
    "op_max",
    "op_argmin",
    "op_argmax",
    "op_count",
    "sgop_sum",
    "sgop_count",
    "sgop_min",
    "sgop_max",
    "sgop_argmin",
    "sgop_argmax",
    "wgred_tree",
    "wgred_subgroup",
    "reduce_common",
    "sssp_common",
    "batch_lists",
];

impl Shader {
    /// A shader from its name and source (see the [`crate::shader!`] macro).
    pub const fn new(name: &'static str, source: &'static str) -> Self {
        Self { name, source, helpers: &[] }
    }

    /// The shader with its crate's own helpers (see [`crate::helpers!`]), found before [`LIBRARY`]'s.
    pub const fn with_helpers(self, helpers: &'static [(&'static str, &'static str)]) -> Self {
        Self { helpers, ..self }
    }

    /// The source with every `//!include` replaced by the library helper it names, `$NAME` in include
    /// names replaced by `params` (see [`preprocess`]).
    pub fn resolve(&self, params: &[(&str, &str)]) -> Result<String, GpuError> {
        check_params(self.name, self.source, params)?;
        preprocess(self.name, self.source, params, &|name| {
            self.helpers.iter().chain(LIBRARY).find(|(n, _)| *n == name).map(|(_, s)| s.to_string())
        })
    }
}

/// The template parameters a source declares with `//!param NAME value1 value2 ...`.
pub fn declared_params(source: &str) -> Vec<(String, Vec<String>)> {
    source
        .lines()
        .filter_map(|l| l.trim().strip_prefix("//!param"))
        .filter_map(|rest| {
            let mut words = rest.split_whitespace();
            let name = words.next()?.to_string();
            Some((name, words.map(str::to_string).collect()))
        })
        .collect()
}

/// Fails unless `params` gives each declared parameter exactly one of its declared values.
fn check_params(shader: &str, source: &str, params: &[(&str, &str)]) -> Result<(), GpuError> {
    let declared = declared_params(source);
    let err = |message: String| Err(GpuError::Shader { shader: shader.into(), message });
    for (name, values) in &declared {
        match params.iter().find(|(n, _)| n == name) {
            None => return err(format!("parameter {name} not given (one of {})", values.join(", "))),
            Some((_, v)) if !values.iter().any(|x| x == v) => {
                return err(format!("parameter {name} = {v} is not one of {}", values.join(", ")));
            }
            Some(_) => {}
        }
    }
    if let Some((n, _)) = params.iter().find(|(n, _)| !declared.iter().any(|(d, _)| d == n)) {
        return err(format!("parameter {n} is not declared by a //!param line"));
    }
    Ok(())
}

/// Every combination of the declared parameter values (one empty combination when none are declared).
pub fn param_combinations(source: &str) -> Vec<Vec<(String, String)>> {
    let mut combos: Vec<Vec<(String, String)>> = vec![Vec::new()];
    for (name, values) in declared_params(source) {
        let mut next = Vec::with_capacity(combos.len() * values.len());
        for c in &combos {
            for v in &values {
                let mut c = c.clone();
                c.push((name.clone(), v.clone()));
                next.push(c);
            }
        }
        combos = next;
    }
    combos
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

/// Replaces each `//!include <name>` line by `lookup(name)` (recursively, each name once). In include
/// names, `$P` is replaced by the value of parameter `P` from `params`, so one stage file serves several
/// element types or operators (`//!include op_$OP`).
pub fn preprocess(
    shader: &str,
    source: &str,
    params: &[(&str, &str)],
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<String, GpuError> {
    fn go(
        shader: &str,
        source: &str,
        params: &[(&str, &str)],
        lookup: &dyn Fn(&str) -> Option<String>,
        done: &mut Vec<String>,
        out: &mut String,
    ) -> Result<(), GpuError> {
        for line in source.lines() {
            match line.trim().strip_prefix("//!include") {
                Some(name) => {
                    let mut name = name.trim().to_string();
                    for (p, v) in params {
                        name = name.replace(&format!("${p}"), v);
                    }
                    if name.contains('$') {
                        return Err(GpuError::Shader {
                            shader: shader.into(),
                            message: format!("//!include {name}: a parameter is not given"),
                        });
                    }
                    let name = name.as_str();
                    if done.iter().any(|d| d == name) {
                        continue;
                    }
                    let text = lookup(name).ok_or_else(|| GpuError::Shader {
                        shader: shader.into(),
                        message: format!("//!include {name}: no such helper in shaders/lib"),
                    })?;
                    done.push(name.to_string());
                    go(shader, &text, params, lookup, done, out)?;
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
    go(shader, source, params, lookup, &mut Vec::new(), &mut out)?;
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
        let out = preprocess("t", "//!include a\n//!include b\nfn main() {}", &[], &lookup).unwrap();
        assert_eq!(out, "fn b() {}\nfn a() {}\nfn main() {}\n");
        assert!(preprocess("t", "//!include zzz", &[], &lookup).is_err());
        let out = preprocess("t", "//!include $X", &[("X", "b")], &lookup).unwrap();
        assert_eq!(out, "fn b() {}\n");
        assert!(preprocess("t", "//!include $Y", &[("X", "b")], &lookup).is_err());
    }

    #[test]
    fn params_are_checked_and_enumerated() {
        let src = "//!param E u32 f32\n//!param OP sum min\n";
        assert_eq!(param_combinations(src).len(), 4);
        assert!(check_params("t", src, &[("E", "u32"), ("OP", "sum")]).is_ok());
        assert!(check_params("t", src, &[("E", "u64"), ("OP", "sum")]).is_err());
        assert!(check_params("t", src, &[("E", "u32")]).is_err());
        assert!(check_params("t", src, &[("E", "u32"), ("OP", "sum"), ("Z", "1")]).is_err());
    }

    #[test]
    fn requirements_parse() {
        let r = requirements("t", "//!requires subgroup int64_atomic_min_max\n").unwrap();
        assert!(r.subgroup && r.int64_atomic_min_max && !r.f64);
        assert!(requirements("t", "//!requires warp_drive").is_err());
    }
}
