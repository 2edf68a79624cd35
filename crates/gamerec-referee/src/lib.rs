//! Argus: the automated tournament referee over EPD (EPD spec section 8). Issue #8.
