//! Embedded commands of the PGN supplement (2001): `[%name operands]` inside
//! comments, with typed access to `clk`, `egt`, `emt`, `mct`, `eval`, `csl`, `cal`.
