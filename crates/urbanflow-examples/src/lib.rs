//! The urbanflow examples: short programs that teach the library's API, in the repository's top-level
//! `examples/` folder (`cargo run --release --example assign`; `examples/README.md` lists them). This
//! package holds them so that building one compiles the library and nothing of its own tests and
//! benchmarks. It has no library API of its own; the command line is the `urbanflow` binary
//! (crates/urbanflow-cli).
