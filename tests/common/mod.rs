pub mod svg;
pub mod vectors;
