//! Smart Game Format FF[1]..FF[4]: parser, writer, Go and Othello semantics. Issue #5.
