//! The trainer on tables as a specification: the bundled real datasets train to the accuracies
//! the issue aims at (the book states them), many classes through softmax, the confusion matrix
//! agreeing with the accuracy, standardization by the training split, and the command line
//! giving the page's numbers for a table.

use std::process::Command;
use std::sync::Arc;

use qscope_explore::train::bundled;
use qscope_explore::train::{Net, TrainParams};
use qscope_nn::{DatasetKind, Loss, Metrics, Trainer};

/// The recipe: `hidden` units, Adam at 0.01, batches of 32, 80 % to train, seed 0.
fn params(hash: &str) -> TrainParams {
    let base = "#view=train&optimizer=adam&lr=0.01&batch=32&ratio=0.8&seed=0&wq=&aq=";
    let (mut p, problems) = TrainParams::parse(&format!("{base}&{hash}"));
    assert!(problems.is_empty(), "{hash}: {problems:?}");
    p.table = Some(Arc::new(bundled::load(p.dataset).unwrap()));
    p
}

fn trained(p: &TrainParams, epochs: usize) -> (Trainer, Metrics) {
    let mut t = Trainer::new(p.config(Net::Quantized).unwrap()).unwrap();
    let mut m = None;
    for _ in 0..epochs {
        m = Some(t.step_epoch().unwrap());
    }
    (t, m.unwrap())
}

fn test_acc(hash: &str, epochs: usize) -> f64 {
    trained(&params(hash), epochs).1.test_acc.unwrap()
}

#[test]
fn digits_64_32_10_float_reaches_96_percent_in_30_epochs() {
    let acc = test_acc("dataset=digits&hidden=32&activation=relu", 30);
    assert!(acc >= 0.96, "{acc}");
}

#[test]
fn digits_with_4_bit_weights_and_activations_reaches_94_percent() {
    let acc = test_acc(
        "dataset=digits&hidden=32&activation=relu&wq=qkeras.quantized_bits(4,0,1)&aq=qkeras.quantized_relu(4)",
        30,
    );
    assert!(acc >= 0.94, "{acc}");
}

#[test]
fn digits_with_binary_weights_and_activations_reaches_85_percent() {
    let acc = test_acc("dataset=digits&hidden=32&activation=larq.ste_sign&wq=larq.ste_sign", 30);
    assert!(acc >= 0.85, "{acc}");
}

#[test]
fn iris_and_wine_float_reach_90_percent() {
    for dataset in ["iris", "wine"] {
        let acc = test_acc(&format!("dataset={dataset}&hidden=8&batch=10"), 100);
        assert!(acc >= 0.9, "{dataset}: {acc}");
    }
}

#[test]
fn a_dataset_of_more_than_two_classes_chooses_softmax_with_one_output_per_class() {
    let p = params("dataset=digits&hidden=32");
    assert_eq!(p.loss, Loss::SoftmaxCrossEntropy);
    assert_eq!(p.config(Net::Quantized).unwrap().widths(), [64, 32, 10]);
    let (p2, problems) = TrainParams::parse("#view=train&dataset=iris&loss=mse");
    assert!(problems.is_empty());
    let mut p2 = p2;
    p2.table = Some(Arc::new(bundled::load(DatasetKind::Iris).unwrap()));
    assert_eq!(p2.config(Net::Quantized).unwrap_err(), "iris has 3 classes: use the softmax loss");
}

#[test]
fn breast_cancer_trains_with_any_binary_loss() {
    for loss in ["mse", "bce", "softmax"] {
        let acc = test_acc(&format!("dataset=breast_cancer&hidden=8&loss={loss}"), 20);
        assert!(acc >= 0.9, "{loss}: {acc}");
    }
}

#[test]
fn the_confusion_matrix_counts_every_test_example_and_its_diagonal_is_the_accuracy() {
    let (t, m) = trained(&params("dataset=wine&hidden=8&batch=10"), 5);
    let (k, counts) = (t.classes(), t.confusion(true));
    assert_eq!((k, counts.len()), (3, 9));
    let total: u32 = counts.iter().sum();
    assert_eq!(total as usize, t.split_sizes().1);
    let diagonal: u32 = (0..k).map(|i| counts[i * k + i]).sum();
    assert_eq!(diagonal as f64 / total as f64, m.test_acc.unwrap());
    // Row sums are the test split's classes.
    let table = t.config().table.clone().unwrap();
    for (class, row) in counts.chunks(k).enumerate() {
        let want = t.test_rows().iter().filter(|&&r| usize::from(table.y[r]) == class).count();
        assert_eq!(row.iter().sum::<u32>() as usize, want, "class {class}");
    }
    assert_eq!(t.test_predictions().len(), t.split_sizes().1);
}

#[test]
fn a_table_is_split_by_the_seed_and_standardized_by_its_training_rows() {
    let p = params("dataset=iris&hidden=4");
    let a = Trainer::new(p.config(Net::Quantized).unwrap()).unwrap();
    assert_eq!(a.split_sizes(), (120, 30));
    let b = Trainer::new(p.config(Net::Quantized).unwrap()).unwrap();
    assert_eq!(a.test_rows(), b.test_rows());
    let other = TrainParams { seed: 1, ..p.clone() };
    assert_ne!(a.test_rows(), Trainer::new(other.config(Net::Quantized).unwrap()).unwrap().test_rows());
    // The test rows and the training rows partition the table.
    let mut seen = [false; 150];
    a.test_rows().iter().for_each(|&r| seen[r] = true);
    assert_eq!(seen.iter().filter(|&&s| s).count(), 30);
    // Raw features (iris in centimetres, all positive) train another net than standardized ones.
    let raw = TrainParams { raw: true, ..p.clone() };
    assert!(!raw.config(Net::Quantized).unwrap().standardize);
    let loss = |p: &TrainParams| trained(p, 1).1.test_loss;
    assert_ne!(loss(&raw), loss(&p));
}

#[test]
fn a_table_that_is_not_loaded_is_named() {
    let (p, _) = TrainParams::parse("#view=train&dataset=digits");
    assert_eq!(p.config(Net::Quantized).unwrap_err(), "the digits data is not loaded");
}

#[test]
fn the_command_line_trains_a_bundled_dataset_to_the_pages_numbers() {
    let p = params("dataset=wine&hidden=8&batch=10");
    let (t, _) = trained(&p, 3);
    let out = Command::new(env!("CARGO_BIN_EXE_qscope"))
        .args(p.cli_command(Net::Quantized, 3).split_whitespace().skip(1))
        .arg("--json")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let last = text.lines().last().unwrap();
    let m = t.history().last().unwrap();
    assert!(last.contains(&format!("\"test_loss\":{}", m.test_loss)), "{last}");
    let rows: Vec<String> = t.confusion(true).chunks(3).map(|r| format!("[{},{},{}]", r[0], r[1], r[2])).collect();
    assert!(last.contains(&format!("\"test_confusion\":[{}]", rows.join(","))), "{last}");
}

#[test]
fn the_command_line_trains_a_csv_with_the_label_column_named() {
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("insects.csv");
    let mut text = String::from("kind,width,height\n");
    for i in 0..40 {
        let k = i % 2;
        text += &format!("{},{},{}\n", ["ant", "bee"][k], k as f32 * 3.0 + (i % 5) as f32 * 0.1, 1.0 - k as f32);
    }
    std::fs::write(&path, text).unwrap();
    let run = |extra: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_qscope"))
            .args(["train", "--data", path.to_str().unwrap(), "--hidden", "4", "--epochs", "2"])
            .args(extra)
            .output()
            .unwrap();
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (ok, out, err) = run(&["--label", "kind"]);
    assert!(ok, "{err}");
    assert!(out.contains("insects.csv 2-4-1 (2 features standardized, 2 classes), 20 train / 20 test points"), "{out}");
    assert!(out.contains("#      ant bee\n# ant ") && out.contains("\n# bee "), "{out}");
    let (ok, _, err) = run(&["--label", "colour"]);
    assert!(
        !ok && err.contains("no column 'colour' for the label; the columns are 'kind', 'width', 'height'"),
        "{err}"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_qscope")).args(["train", "--label", "kind"]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("--label names a column of --data FILE.csv"));
}

#[test]
fn the_confusion_matrix_names_the_epoch_it_counted_while_the_next_is_evaluated() {
    use qscope_explore::runs::Runs;
    use qscope_explore::train::confusion::Confusion;
    use qscope_explore::train::stop::Stop;
    let mut r = Runs::new(&params("dataset=wine&hidden=8&batch=10")).unwrap();
    let per_epoch = r.q.batches_per_epoch();
    assert_eq!(r.work(per_epoch, &Stop::default()).unwrap(), (per_epoch, None));
    assert!(r.q.is_evaluating() && r.q.epoch() == 1);
    let before = Confusion::of(&r.q).unwrap();
    assert_eq!(before.epoch, 0, "the untrained net's counts, named so");
    r.settle().unwrap();
    let after = Confusion::of(&r.q).unwrap();
    assert_eq!(after.epoch, 1);
    assert_eq!(after.totals().0, before.totals().0);
}
