#![no_main]
//! Engine specs as command lines, event files and `match.json` give them.
//! The input, as lossy UTF-8, is a spec; after its first line break, the
//! rest is a second argument (`--each` options, the names of `--limits`).
//! - `EngineSpec`, `EngineSetup` (`gamerec_engine`), `GoEngineSpec`: what
//!   is read is a spec of its kind; an engine command whose words need no
//!   quoting reads back from its display; every option has a name and a
//!   value on one line, an option or a GTP command no line break;
//! - `spec_with_options` (`match --each`) adds the options to the spec's
//!   own, in front;
//! - `option_setting` (`--option NAME=VALUE`) and the default player names
//!   of a spec (`default_name`, `GoEngineSpec::default_name`);
//! - `EngineLimits::parse` (`--limits`): limits read are written back to
//!   text that reads to the same; `EngineLimits::parse_for` names one of
//!   the engines.
//!
//! Every error message stays short whatever the spec holds.
use std::path::Path;

use gamerec_engine::gtp::GoEngineSpec;
use gamerec_engine::{
    EngineCommand, EngineSetup, EngineSpec, default_name, option_setting, spec_with_options,
};
use gamerec_referee::match_runner::EngineLimits;
use libfuzzer_sys::fuzz_target;

#[path = "common/mod.rs"]
mod common;
use common::check_message;

fn one_line(text: &str) -> bool {
    !text.contains(['\n', '\r'])
}

/// A word that reads as itself, unquoted.
fn plain(word: &str) -> bool {
    !word.is_empty() && !word.contains(|c: char| c.is_whitespace() || c == '"' || c == '\'')
}

/// A command whose words need no quoting reads back from its display.
fn check_command(cmd: &EngineCommand) {
    let plain = |w: &std::ffi::OsString| w.to_str().is_some_and(plain);
    if plain(&cmd.program) && cmd.args.iter().all(plain) {
        let back = EngineCommand::parse(&cmd.display()).expect("a command displayed");
        assert_eq!(&back, cmd);
    }
}

fn check_spec(spec: &EngineSpec) {
    match spec {
        EngineSpec::Builtin => {}
        EngineSpec::Uci(cmd) | EngineSpec::Xboard(cmd) => check_command(cmd),
    }
}

fn check_setup(text: &str, setup: &EngineSetup) {
    check_spec(&setup.spec);
    if let Some(depth) = setup.depth {
        assert!(setup.spec == EngineSpec::Builtin && (1..=64).contains(&depth));
    }
    for (name, value) in &setup.options {
        assert!(!name.is_empty() && !name.contains(['=', '|']), "{name:?}");
        assert!(!value.contains('|'), "{value:?}");
        assert!(one_line(name) && one_line(value), "{name:?}={value:?}");
        assert_eq!((name.trim(), value.trim()), (name.as_str(), value.as_str()));
    }
    let name = default_name(text);
    match &setup.spec {
        EngineSpec::Builtin => assert!(name.starts_with("builtin"), "{name:?}"),
        EngineSpec::Uci(cmd) | EngineSpec::Xboard(cmd) => check_name(cmd, &name),
    }
}

/// A default name is the file name of the program.
fn check_name(cmd: &EngineCommand, name: &str) {
    assert!(!name.is_empty() && !name.contains('|'), "{name:?}");
    let program = cmd.program.to_string_lossy();
    let file = Path::new(program.as_ref()).file_name();
    assert_eq!(name, file.map_or(program.clone(), |f| f.to_string_lossy()));
}

fn setups(text: &str, each: &str) {
    match text.parse::<EngineSpec>() {
        Ok(spec) => check_spec(&spec),
        Err(e) => check_message("spec", &e.to_string()),
    }
    let setup = match text.parse::<EngineSetup>() {
        Ok(s) => s,
        Err(e) => return check_message("setup", &e.to_string()),
    };
    check_setup(text, &setup);
    // `--each` options go in front of the spec's own.
    let with = spec_with_options(text, Some(each));
    let Ok(alone) = format!("builtin|{each}").parse::<EngineSetup>() else {
        return;
    };
    let both: EngineSetup = with.parse().expect("a spec with valid options");
    assert_eq!((&both.spec, both.depth), (&setup.spec, setup.depth));
    let expected: Vec<_> = alone.options.iter().chain(&setup.options).collect();
    assert_eq!(both.options.iter().collect::<Vec<_>>(), expected);
}

fn go(text: &str) {
    match text.parse::<GoEngineSpec>() {
        Ok(spec) => {
            assert!(GoEngineSpec::looks_like(text), "{text:?}");
            if let GoEngineSpec::Gtp(cmd, init) = &spec {
                check_command(cmd);
                for c in init {
                    assert!(!c.is_empty() && one_line(c) && c.trim() == c, "{c:?}");
                }
            }
            let name = GoEngineSpec::default_name(text);
            match &spec {
                GoEngineSpec::Gtp(cmd, _) => check_name(cmd, &name),
                _ => assert_eq!(name, text),
            }
        }
        Err(e) => check_message("go spec", &e.to_string()),
    }
}

fn limits(text: &str, rest: &str) {
    match EngineLimits::parse(text) {
        Ok(l) => {
            let written = l.to_string();
            let back = EngineLimits::parse(&written)
                .unwrap_or_else(|e| panic!("limits written unreadable: {e}: {written}"));
            assert_eq!(back, l, "{written}");
        }
        Err(e) => check_message("limits", &e),
    }
    let names: Vec<String> = rest.lines().map(str::to_owned).collect();
    match EngineLimits::parse_for(text, &names) {
        Ok((i, _)) => assert!(i < names.len()),
        Err(e) => check_message("limits for", &e),
    }
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (first, rest) = text.split_once('\n').unwrap_or((&text, ""));
    setups(&text, rest);
    setups(first, rest);
    go(&text);
    match option_setting(&text) {
        Ok((name, value)) => {
            assert!(!name.is_empty() && !name.contains('='));
            assert!(one_line(&name) && one_line(&value));
            assert_eq!((name.trim(), value.trim()), (name.as_str(), value.as_str()));
        }
        Err(e) => check_message("option", &e.to_string()),
    }
    limits(first, rest);
});
