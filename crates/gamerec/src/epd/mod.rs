//! Extended Position Description: records, opcodes, normalisation. Issue #4.
