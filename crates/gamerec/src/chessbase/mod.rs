//! ChessBase DOS formats: CBF/CBI game files and FBK opening files. Issue #6.
