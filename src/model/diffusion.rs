//! Image-generation sizing (to be written).
