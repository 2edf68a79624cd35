//! Stand-ins for the verbs of features left out of the build
//! (`--no-default-features`): each says which feature it needs and exits 2.

use std::ffi::OsString;
use std::process::ExitCode;

// The arguments of a verb that is not built in: anything, unread.
#[derive(clap::Args)]
pub struct Missing {
    /// The verb's arguments (this build cannot run it).
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0..)]
    _args: Vec<OsString>,
}

/// Says that `verb` needs `feature` and how to build it; exit status 2.
pub fn missing(verb: &str, feature: &str) -> ExitCode {
    gamerec::say!(
        "gamerec {verb}: this gamerec was built without the `{feature}` feature; \
         build it with the default features (`cargo build --release -p gamerec-cli`) \
         or add `--features {feature}`"
    );
    ExitCode::from(2)
}
