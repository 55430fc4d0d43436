//! Every WGSL file under `shaders/` parses and validates with naga, with the capabilities it declares,
//! so a broken shader fails `cargo test` even where no GPU adapter exists.

use std::path::{Path, PathBuf};

use gpu_runtime::shader::{LIBRARY, param_combinations, preprocess, requirements, validate};

fn shader_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shaders")
}

fn wgsl_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("shaders/ exists") {
        let path = entry.unwrap().path();
        if path.is_dir() {
            wgsl_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "wgsl") {
            out.push(path);
        }
    }
}

#[test]
fn every_shader_validates() {
    let dir = shader_dir();
    let mut files = Vec::new();
    wgsl_files(&dir, &mut files);
    files.sort();
    assert!(files.len() >= 3, "expected shaders under {}", dir.display());
    let lib = dir.join("lib");
    let lookup = |name: &str| std::fs::read_to_string(lib.join(format!("{name}.wgsl"))).ok();
    let mut failures = Vec::new();
    let mut variants = 0;
    for path in files.iter().filter(|p| !p.starts_with(&lib)) {
        let name = path.strip_prefix(&dir).unwrap().display().to_string();
        let source = std::fs::read_to_string(path).unwrap();
        // Every combination of the file's //!param values is a shipped variant: validate each.
        for combo in param_combinations(&source) {
            let params: Vec<(&str, &str)> = combo.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
            let label = format!("{name} {params:?}");
            let result = preprocess(&label, &source, &params, &lookup)
                .and_then(|resolved| requirements(&label, &resolved).map(|req| (req, resolved)))
                .and_then(|(req, resolved)| validate(&label, &resolved, req));
            variants += 1;
            if let Err(e) = result {
                failures.push(e.to_string());
            }
        }
    }
    eprintln!("validated {variants} shader variants");
    assert!(failures.is_empty(), "{} shader(s) failed:\n{}", failures.len(), failures.join("\n\n"));
}

/// Every helper in `shaders/lib/` is registered by exactly one crate (linked under its `shaders/lib/`):
/// gpu-runtime's are the ones [`LIBRARY`] embeds; an algorithm crate's go to its shaders through
/// `Shader::with_helpers`.
#[test]
fn every_helper_is_registered_by_one_crate() {
    let stems = |dir: &Path| -> Vec<String> {
        let mut v: Vec<String> = match std::fs::read_dir(dir) {
            Ok(entries) => entries
                .map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|x| x == "wgsl"))
                .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
                .collect(),
            Err(_) => Vec::new(),
        };
        v.sort();
        v
    };
    let own = stems(&Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders/lib"));
    let mut embedded: Vec<String> = LIBRARY.iter().map(|(n, _)| n.to_string()).collect();
    embedded.sort();
    assert_eq!(own, embedded, "gpu_runtime::shader::LIBRARY must list every helper gpu-runtime links");
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut registered: Vec<String> = Vec::new();
    for entry in std::fs::read_dir(&crates).unwrap() {
        registered.extend(stems(&entry.unwrap().path().join("shaders/lib")));
    }
    registered.sort();
    let all = stems(&shader_dir().join("lib"));
    assert_eq!(registered, all, "each shaders/lib helper linked by exactly one crate");
}

#[test]
fn a_broken_shader_is_reported_with_its_name() {
    let err = validate("broken", "fn main() { let x: u32 = 1.5; }", Default::default()).unwrap_err();
    assert!(err.to_string().contains("broken"), "{err}");
    // A subgroup builtin without the capability must fail validation.
    let src = "@compute @workgroup_size(32) fn f(@builtin(subgroup_size) s: u32) {}";
    assert!(validate("sg", src, Default::default()).is_err());
    let sg = gpu_runtime::OptionalFeatures { subgroup: true, ..Default::default() };
    validate("sg", src, sg).unwrap();
}
