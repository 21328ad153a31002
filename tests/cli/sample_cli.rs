//! `qscope sample`: the explorer's sample tensor from the command line, value for value, and the
//! summary a lesson quotes.

use crate::common::cli;

use cli::{qscope, stderr, stdout};
use qscope_explore::sample::{Dist, SampleSpec};
use qscope_explore::state::State;

#[test]
fn sample_prints_the_explorers_sample_tensor_value_for_value() {
    let o = qscope(&["sample"], "");
    assert!(o.status.success(), "{}", stderr(&o));
    let printed: Vec<f32> = stdout(&o).lines().map(|l| l.parse().unwrap()).collect();
    let explorer = State::default().sample_spec().generate();
    assert_eq!(printed.len(), 1000);
    assert_eq!(
        printed.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
        explorer.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
    );
}

#[test]
fn sample_takes_the_explorers_sample_settings_and_seed() {
    let o = qscope(&["sample", "--sample", "laplace,0.1", "--seed", "3"], "");
    assert!(o.status.success(), "{}", stderr(&o));
    let printed: Vec<f32> = stdout(&o).lines().map(|l| l.parse().unwrap()).collect();
    let spec = SampleSpec { dist: Dist::Laplace, spread: 0.1, seed: 3, ..SampleSpec::default() };
    assert_eq!(printed, spec.generate());
}

#[test]
fn sample_stats_give_the_numbers_the_binary_lesson_quotes() {
    // binary step 1: "mean |x| 0.39844906"; step 3: TWN's Δ = 0.7 · mean |x| = 0.27891433.
    let o = qscope(&["sample", "--stats"], "");
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with("# 1000 × normal (σ 0.5), seed 0\nn\t1000\n"), "{out}");
    assert!(out.contains("\nmean |x|\t0.39844906\n"), "{out}");
    let lesson = qscope_explore::lesson::builtin("binary").unwrap();
    assert!(lesson.contains("mean $|x|$ 0.39844906") || lesson.contains("0.39844906"), "the lesson quotes it");
}

#[test]
fn sample_names_a_bad_distribution() {
    let o = qscope(&["sample", "--sample", "gauss,1"], "");
    assert!(!o.status.success());
    assert!(stderr(&o).contains("unknown distribution 'gauss'"), "{}", stderr(&o));
}
