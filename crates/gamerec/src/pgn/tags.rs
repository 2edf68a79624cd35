//! Tag value semantics: Date, Round, Time, player lists, Result, TimeControl,
//! the supplemental tags of section 9, and the strict checks on their formats.
