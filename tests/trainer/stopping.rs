//! Stopping as a specification: `--stop-acc` ends the command line's run at the epoch where the
//! page's play stops, and says why; the page's `stop` (an epoch) is its own, the CLI's
//! `--epochs` being that already.

use std::process::Command;
use std::sync::Arc;

use qscope_explore::runs::Runs;
use qscope_explore::train::bundled;
use qscope_explore::train::{Net, TrainParams};

fn wine(extra: &str) -> TrainParams {
    let hash = format!("#view=train&dataset=wine&hidden=8&optimizer=adam&lr=0.01&batch=10&seed=0&wq=&aq={extra}");
    let (mut p, problems) = TrainParams::parse(&hash);
    assert!(problems.is_empty(), "{problems:?}");
    p.table = Some(Arc::new(bundled::load(p.dataset).unwrap()));
    p
}

/// The epoch at which the page's play stops, and why.
fn page_stop(p: &TrainParams) -> (usize, String) {
    let mut runs = Runs::new(p).unwrap();
    let why = runs.steps_until(1000 * runs.q.batches_per_epoch(), &p.stop).unwrap().expect("a stop");
    (runs.q.epoch(), why)
}

fn cli(p: &TrainParams, extra: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_qscope"))
        .args(p.cli_command(Net::Quantized, 200).split_whitespace().skip(1))
        .args(extra)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn the_command_line_stops_at_the_accuracy_where_the_page_stops() {
    let p = wine("&stop_acc=92.5");
    assert_eq!(p.stop.accuracy, 92.5);
    let (epoch, why) = page_stop(&p);
    assert!(epoch > 1 && epoch < 200, "{epoch}");
    let json = cli(&p, &["--stop-acc", "92.5", "--json"]);
    assert_eq!(json.lines().count(), epoch, "one line per epoch trained:\n{json}");
    let text = cli(&p, &["--stop-acc", "92.5"]);
    assert!(text.contains(&format!("\n# {why}\n")), "{why}\n{text}");
}

#[test]
fn the_page_stops_at_the_set_epoch() {
    let (epoch, why) = page_stop(&wine("&stop=7"));
    assert_eq!((epoch, why.as_str()), (7, "stopped at epoch 7, as set"));
}

#[test]
fn a_stop_setting_out_of_range_is_named_and_the_rest_kept() {
    let (p, problems) = TrainParams::parse("#view=train&stop_acc=101&stop=-1&lr=0.05");
    assert_eq!(p.lr, 0.05);
    assert_eq!(p.stop, Default::default());
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(problems.iter().any(|m| m.contains("stop_acc")), "{problems:?}");
}
