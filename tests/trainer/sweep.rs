//! Accuracy against bits from the command line: `qscope train --sweep bits=…` trains the net
//! once per width written into the specs' `{bits}` and once float, and prints what the page's
//! sweep model computes for the same settings.

use std::process::Command;

use qscope_explore::train::TrainParams;
use qscope_explore::train::sweep::{Sweep, SweepRun, Vary};

fn qscope(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_qscope")).args(args).output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const ARGS: [&str; 8] = ["train", "--dataset", "xor", "--hidden", "4", "--epochs", "3", "--json"];

#[test]
fn a_sweep_prints_a_row_per_width_and_float_with_the_models_numbers() {
    let (ok, out, err) =
        qscope(&[&ARGS[..], &["--sweep", "bits=2,4", "--wq", "qkeras.quantized_bits({bits},0,1)"]].concat());
    assert!(ok, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    let (p, _) = TrainParams::parse(
        "#view=train&dataset=xor&hidden=4&wq=qkeras.quantized_bits(4,0,1)&aq=&activation=tanh&optimizer=sgd&lr=0.03&batch=10",
    );
    let p = TrainParams { ..p };
    let want = SweepRun::run(
        Sweep::varying(&TrainParams { features: TrainParams::playground().features, ..p }, Vary::Weights, &[2, 4], 3)
            .unwrap(),
    );
    for (line, o) in lines.iter().zip(&want) {
        let bits = o.bits.map_or("null".into(), |b| b.to_string());
        assert!(line.starts_with(&format!("{{\"bits\":{bits},")), "{line}");
        assert!(line.contains(&format!("\"test_loss\":{}", o.test_loss)), "{line} vs {o:?}");
    }
    assert!(lines[2].contains("\"spec\":\"float\""));
}

#[test]
fn a_template_without_a_sweep_and_a_sweep_without_a_template_are_named() {
    let (ok, _, err) = qscope(&[&ARGS[..], &["--wq", "qkeras.quantized_bits({bits},0,1)"]].concat());
    assert!(!ok && err.contains("{bits} in a spec needs --sweep bits=W"), "{err}");
    let (ok, _, err) = qscope(&[&ARGS[..], &["--sweep", "bits=2", "--wq", "larq.ste_sign"]].concat());
    assert!(!ok && err.contains("--sweep needs {bits} in a quantizer spec"), "{err}");
    let (ok, _, err) = qscope(&[&ARGS[..], &["--sweep", "2,4"]].concat());
    assert!(!ok && err.contains("expected bits=W"), "{err}");
}
