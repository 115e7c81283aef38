//! DAE (placeholder, filled below).
