//! No automatic choice reads an adapter's name (issue 56): every Auto decides from what was measured
//! on this machine (`gpu_runtime::profile`), so a GPU the project was never tuned on is used when it is
//! faster. This scans the library's sources (comments aside) for adapter or vendor names in string
//! literals and for tests of an adapter's name; the only code allowed to match a name is the user's own
//! selection (`WGPU_ADAPTER_NAME`, `--gpus NAME`) in gpu-runtime's context and devices modules.

use std::path::{Path, PathBuf};

const NAMES: [&str; 14] = [
    "nvidia", "geforce", "rtx", "quadro", "tesla", "h100", "h200", "a100", "radeon", "amd", "apple", "intel",
    "llvmpipe", "lavapipe",
];

/// Files where matching a name is the user's explicit selection, not a decision.
const SELECTION: [&str; 2] = ["gpu-runtime/src/context.rs", "gpu-runtime/src/devices.rs"];

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let p = entry.path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The code of a line: what comes before a `//` comment outside a string (good enough for this
/// code base, whose strings hold no `//` followed by a vendor name).
fn code(line: &str) -> &str {
    let t = line.trim_start();
    if t.starts_with("//") {
        return "";
    }
    match line.find("//") {
        Some(i) if line[..i].matches('"').count().is_multiple_of(2) => &line[..i],
        _ => line,
    }
}

/// String literals of a line of code.
fn literals(code: &str) -> Vec<String> {
    code.split('"').skip(1).step_by(2).map(str::to_lowercase).collect()
}

#[test]
fn no_decision_reads_an_adapter_name() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for krate in std::fs::read_dir(&crates).unwrap().flatten() {
        let src = krate.path().join("src");
        if src.is_dir() {
            sources(&src, &mut files);
        }
    }
    assert!(files.len() > 100, "found only {} source files under {}", files.len(), crates.display());
    let mut found = Vec::new();
    for f in &files {
        let shown = f.strip_prefix(&crates).unwrap_or(f).display().to_string();
        if SELECTION.iter().any(|s| shown.ends_with(s)) {
            continue;
        }
        let text = std::fs::read_to_string(f).unwrap();
        for (i, line) in text.lines().enumerate() {
            let c = code(line);
            let by_name = [
                "info.name.contains",
                "info.name.starts_with",
                "info.name.to_lowercase()",
                "name.contains(m)",
            ]
            .iter()
            .any(|p| c.contains(p));
            let named = literals(c).iter().any(|l| {
                NAMES.iter().any(|n| l.split(|ch: char| !ch.is_ascii_alphanumeric()).any(|w| w == *n))
            });
            if by_name || named {
                found.push(format!("{shown}:{}: {}", i + 1, line.trim()));
            }
        }
    }
    assert!(found.is_empty(), "adapter names in library code:\n{}", found.join("\n"));
}

#[test]
fn the_scan_catches_what_it_looks_for() {
    let bad = r#"    if ctx.info.name.contains("H100") { gpu() } // tuned there"#;
    assert!(code(bad).contains("info.name.contains"));
    assert!(literals(code(bad)).iter().any(|l| l == "h100"));
    assert!(code("    // NVIDIA measured").is_empty());
    assert!(literals(code(r#"let s = "a string"; // "NVIDIA""#)).iter().all(|l| !l.contains("nvidia")));
}
