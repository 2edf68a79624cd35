//! Engine drivers (UCI, XBoard), the built-in engine, mate solver, EPD analysis verbs and reports. Issue #7.
