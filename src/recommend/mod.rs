//! recommend layer (see lib.rs).
