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

#[test]
fn sample_with_a_spec_prints_the_panels_numbers_the_soft_lesson_quotes() {
    // soft step "LSQ: learn the step": the Selected panel's ∂Σy/∂s = 0.0342 (0.034183923), the
    // error panel's 15.2 dB, from a step of 0.3011992.
    let o = qscope(&["sample", "lsq"], "");
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with("# "), "{out}");
    assert!(out.contains("\nSQNR\t15.2 dB\t15.2"), "{out}");
    assert!(out.contains("\n∂Σy/∂step\t0.0342\t0.034183923\n"), "{out}");
    assert!(out.contains("\nscale\t0.3012\t0.3011992\n"), "the step LSQ starts at: {out}");
    let lesson = qscope_explore::lesson::builtin("soft").unwrap();
    assert!(lesson.contains("= 0.0342") && lesson.contains("15.2 dB") && lesson.contains("0.3011992"));
}

#[test]
fn sample_with_a_spec_counts_levels_used_and_clipped_inputs_as_the_error_panel_does() {
    // PACT at α = 1 (soft step "PACT: learn the clip"): ∂Σy/∂α counts the 23 inputs at or
    // above 1, over the sample tensor (not the plotted x sweep); clipped are those and the 493
    // below 0.
    let o = qscope(&["sample", "pact(alpha=1)"], "");
    assert!(o.status.success(), "{}", stderr(&o));
    let rows: Vec<Vec<String>> =
        stdout(&o).lines().skip(1).map(|l| l.split('\t').map(String::from).collect()).collect();
    let labels: Vec<&str> = rows.iter().map(|r| r[0].as_str()).collect();
    assert_eq!(labels, ["SQNR", "MSE", "levels used", "clipped", "scale", "∂Σy/∂alpha"], "{rows:?}");
    assert_eq!(rows[5][1..], ["23", "23"]);
    assert_eq!(rows[3][1..], ["51.6 %", "0.516"], "516 of 1000 inputs");
    let at_or_above = State::default().sample_spec().generate().iter().filter(|&&v| v >= 1.0).count();
    assert_eq!(at_or_above, 23);
    let (used, of) = rows[2][1].split_once(" of ").unwrap();
    assert!(used.parse::<u32>().unwrap() <= of.parse::<u32>().unwrap(), "{rows:?}");
    let lesson = qscope_explore::lesson::builtin("soft").unwrap();
    assert!(lesson.contains("23 at $\\alpha = 1$"), "the lesson quotes it");
}

#[test]
fn sample_with_a_spec_follows_the_mode_and_refuses_stats_beside_it() {
    let train = stdout(&qscope(&["sample", "stochastic_round(8)"], ""));
    let infer = stdout(&qscope(&["sample", "stochastic_round(8)", "--infer"], ""));
    assert!(train.lines().next().unwrap().contains(", training:"), "{train}");
    assert!(infer.lines().next().unwrap().contains(", inference:"), "{infer}");
    assert_ne!(train, infer, "stochastic rounding in training, deterministic in inference");
    let o = qscope(&["sample", "lsq", "--stats"], "");
    assert!(!o.status.success() && stderr(&o).contains("give a SPEC or --stats, not both"), "{}", stderr(&o));
    let o = qscope(&["sample", "quantized_bit(4)"], "");
    assert!(!o.status.success() && stderr(&o).contains("unknown quantizer"), "{}", stderr(&o));
}

#[test]
fn the_books_sample_example_is_what_qscope_sample_prints() {
    let book = include_str!("../../docs/src/cli.md");
    let start = book.find("```console\n$ qscope sample lsq\n").expect("the book's example")
        + "```console\n$ qscope sample lsq\n".len();
    let shown = &book[start..start + book[start..].find("```").unwrap()];
    let o = qscope(&["sample", "lsq"], "");
    assert_eq!(stdout(&o), shown);
}
