//! `urbanflow`: the library's command line. One binary with a subcommand per capability (`assign`,
//! `odme`, `matrix`, `model`, `transit-assign`, `route`, `trees`, `ksp`, `journey`, ...); `urbanflow help <command>` shows
//! each one's flags with an example, `urbanflow completions <shell>` prints shell completions.
//!
//! Install from a checkout with `cargo install --path crates/urbanflow-cli`, or run it in place with
//! `cargo run --release -p urbanflow-cli -- assign`.

mod args;
mod commands;
mod devices;
mod outcome;
mod progress;
mod startup;

use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

use outcome::finish;

/// Traffic assignment, matrix estimation, trip distribution, routes, trees and more, on any GPU or the
/// CPU. Every subcommand reads the user's files (TNTP, DIMACS, OSM, GTFS, CSV), answers in their ids,
/// shows progress on stderr and prints a table, or one JSON object with `--json`.
///
/// Start with `urbanflow assign` (the bundled Sioux Falls network) and `urbanflow doctor` (what urbanflow
/// sees on this machine).
#[derive(Parser)]
#[command(name = "urbanflow", version, propagate_version = true, after_help = outcome::EXIT_CODES)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

// One value per process, parsed once: the size of its largest variant costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
enum Command {
    Assign(commands::assign::Args),
    Odme(commands::odme::Args),
    Matrix(commands::matrix::Args),
    Model(commands::model::Args),
    Route(commands::route::Args),
    Trees(commands::trees::Args),
    #[cfg(feature = "access")]
    Access(commands::access::Args),
    Sssp(commands::sssp::Args),
    Ksp(commands::ksp::Args),
    #[cfg(feature = "transit")]
    Journey(commands::journey::Args),
    #[cfg(feature = "transit")]
    TransitAssign(commands::transit_assign::Args),
    #[cfg(feature = "cycles")]
    Cycles(commands::cycles::Args),
    #[cfg(feature = "dp")]
    Cut(commands::cut::Args),
    #[cfg(feature = "dp")]
    Vrp(commands::vrp::Args),
    #[cfg(feature = "overlay")]
    Overlay(commands::overlay::Args),
    #[cfg(feature = "mpi")]
    Cluster(commands::cluster::Args),
    Stats(commands::stats::Args),
    Generate(commands::generate::Args),
    Doctor(commands::doctor::Args),
    /// Print a completion script for a shell (bash, zsh, fish, elvish, powershell).
    ///
    /// Example: urbanflow completions bash > ~/.local/share/bash-completion/completions/urbanflow
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
}

fn main() -> ExitCode {
    // Before any thread starts (see `startup`).
    startup::quiet_device_probe();
    // A usage error exits with 1 (clap's own default, 2, is the code of a missed target here),
    // `--help` and `--version` with 0.
    let cli = Cli::try_parse().unwrap_or_else(|e| {
        let _ = e.print();
        std::process::exit(if e.use_stderr() { 1 } else { 0 })
    });
    match cli.command {
        Command::Assign(a) => finish(commands::assign::run(a)),
        Command::Odme(a) => finish(commands::odme::run(&a)),
        Command::Matrix(a) => finish(commands::matrix::run(&a)),
        Command::Model(a) => finish(commands::model::run(&a)),
        Command::Route(a) => finish(commands::route::run(a)),
        Command::Trees(a) => finish(commands::trees::run(a)),
        #[cfg(feature = "access")]
        Command::Access(a) => finish(commands::access::run(a)),
        Command::Sssp(a) => finish(commands::sssp::run(a)),
        Command::Ksp(a) => finish(commands::ksp::run(a)),
        #[cfg(feature = "transit")]
        Command::Journey(a) => finish(commands::journey::run(a)),
        #[cfg(feature = "transit")]
        Command::TransitAssign(a) => finish(commands::transit_assign::run(a)),
        #[cfg(feature = "cycles")]
        Command::Cycles(a) => commands::cycles::main(a),
        #[cfg(feature = "dp")]
        Command::Cut(a) => finish(commands::cut::run(a)),
        #[cfg(feature = "dp")]
        Command::Vrp(a) => finish(commands::vrp::run(a)),
        #[cfg(feature = "overlay")]
        Command::Overlay(a) => finish(commands::overlay::run(a)),
        #[cfg(feature = "mpi")]
        Command::Cluster(a) => commands::cluster::main(a),
        Command::Stats(a) => commands::stats::run(a),
        Command::Generate(a) => commands::generate::run(a),
        Command::Doctor(a) => commands::doctor::run(a),
        Command::Completions { shell } => {
            clap_complete::generate(shell, &mut Cli::command(), "urbanflow", &mut std::io::stdout());
            ExitCode::SUCCESS
        }
    }
}
