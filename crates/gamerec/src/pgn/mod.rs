//! Portable Game Notation: import (lenient) and export (strict) formats, the 2001 supplement. Issue #3.
