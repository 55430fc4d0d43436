//! The urbanflow examples: short programs and command-line tools over the library, in the repository's
//! top-level `examples/` folder (`cargo run --release --example assign`; `examples/README.md` lists
//! them). This package holds them so that building one compiles the library and what the examples use,
//! and nothing of the library's own tests and benchmarks. It has no library API of its own.
