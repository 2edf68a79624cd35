//! Portable Game Notation: import (lenient) and export (strict) formats, the
//! 2001 supplement's embedded commands, tag semantics and collation.
//!
//! | file | what |
//! |---|---|
//! | (reader, visitor, builder, writer) | issue #3 core: the import reader, visitor API, owned-tree builder, export writer |
//! | `commands` | `[%name operands]` embedded commands (supplement 2001) |
//! | `tags` | tag value semantics and strict checks (Date, Round, TimeControl, ...) |
//! | `collate` | the standard's collation order for sorting games |
//! | `timecontrol` | clock values, the TimeControl and Clock tags, derived move times |

pub mod collate;
pub mod commands;
pub mod tags;
pub mod timecontrol;
