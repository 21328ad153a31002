//! The trainer: the MLP engine, the Train view's settings and link, and block formats in training.

#[allow(dead_code)]
#[path = "../common/mod.rs"]
mod common;

mod batchnorm;
mod block_training;
mod bop;
mod nn;
mod stopping;
mod sweep;
mod tables;
mod train_state;
mod weight_clip;
