//! Links the `gamerec` binary as a position-dependent executable on Linux.
//!
//! The binary carries the Arrow, Parquet and SVG stacks, whose vtables and
//! tables need about 48,000 load-time relocations in a PIE: applying them
//! costs every run about 0.6 ms and 200 page faults, 1% of checking a
//! 30 MB PGN file. Linked at a fixed address, the linker resolves them.

fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
