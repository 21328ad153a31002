//! The quantizers: every one matches its library to the last bit, parses and prints its spec, and keeps its laws.

#[allow(dead_code)]
#[path = "../common/mod.rs"]
mod common;

mod beyond;
mod bnb;
mod casts;
mod catalogue_views;
mod conformance;
mod properties;
mod shapes;
mod spec;
mod torchao;
mod torchao_blocks;
mod torchao_int;
