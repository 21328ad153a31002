//! Lessons: the format teachers write, the task language, lesson links, and `qscope lesson`.

#[allow(dead_code)]
#[path = "../common/mod.rs"]
mod common;

mod authoring;
mod lesson;
mod lesson_cli;
