//! The table of training settings as a specification: every setting reads back its default
//! through the hash, a CLI flag reads a value exactly as its hash key does, `qscope train
//! --help` lists every setting with its range and default, the per-layer keys are one syntax,
//! and the page and the CLI share their limits.

use crate::common::cli;

use cli::{qscope, stderr, stdout};
use qscope_explore::hash::encode;
use qscope_explore::settings::Range;
use qscope_explore::train::settings::{LayerKey, SETTINGS};
use qscope_explore::train::{MAX_HIDDEN_LAYERS, MAX_WIDTH, Net, TrainParams, parse_hidden};
use qscope_nn::{Config, DatasetKind, QuantizedTensor};

/// The page's defaults and the CLI's.
fn both_defaults() -> [TrainParams; 2] {
    [TrainParams::default(), TrainParams::playground()]
}

#[test]
fn every_default_reads_back_through_the_hash() {
    for defaults in both_defaults() {
        for s in SETTINGS.iter().filter(|s| s.key.is_some()) {
            let (key, value) = (s.key.unwrap(), s.value(&defaults));
            let hash = format!("#view=train&{key}={}", encode(&value));
            let (read, problems) = TrainParams::parse(&hash);
            assert!(problems.is_empty(), "{hash}: {problems:?}");
            assert_eq!(s.value(&read), value, "{hash}");
        }
    }
}

#[test]
fn the_hash_reads_back_every_default_whole() {
    for defaults in both_defaults() {
        let (read, problems) = TrainParams::parse(&defaults.to_hash());
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(read, defaults);
    }
}

#[test]
fn a_flag_reads_a_value_exactly_as_its_key_does() {
    let samples = ["", "0", "1", "0.5", "250", "x", "-1", "adam", "bce", "relu", "x1,x2", "8,8", "larq.ste_sign"];
    for s in SETTINGS.iter().filter(|s| s.key.is_some() && s.flag.is_some()) {
        let (key, flag) = (s.key.unwrap(), s.flag.unwrap());
        let defaults = both_defaults().map(|d| s.value(&d));
        for value in samples.iter().copied().chain(defaults.iter().map(String::as_str)) {
            let (mut by_key, mut by_flag) = (TrainParams::playground(), TrainParams::playground());
            let (k, f) = (by_key.set_key(key, value), by_flag.set_flag(flag, value));
            assert_eq!(k.is_ok(), f.is_ok(), "{key}={value}: {k:?}, {flag} {value}: {f:?}");
            assert_eq!(by_key, by_flag, "{key}={value}");
        }
    }
}

#[test]
fn the_cli_names_what_it_expected_as_the_hash_does() {
    let mut p = TrainParams::playground();
    assert_eq!(p.set_key("lr", "20").unwrap_err(), "expected a learning rate from 0.00001 to 10");
    assert_eq!(p.set_flag("--lr", "20").unwrap_err(), "--lr 20: expected a learning rate from 0.00001 to 10");
    assert_eq!(p.set_key("loss", "hinge").unwrap_err(), "expected mse, bce or softmax");
    assert_eq!(p.set_flag("--loss", "hinge").unwrap_err(), "unknown loss 'hinge'; expected mse, bce or softmax");
    assert_eq!(p.set_flag("--init", "lecun").unwrap_err(), "unknown init 'lecun'; expected auto, glorot or he");
}

#[test]
fn help_lists_every_setting_with_its_range_and_default() {
    let o = qscope(&["train", "--help"], "");
    assert!(o.status.success(), "{}", stderr(&o));
    // Lines are folded: compare with the whitespace collapsed.
    let help = stdout(&o).split_whitespace().collect::<Vec<_>>().join(" ");
    let cli = TrainParams::playground();
    for s in SETTINGS.iter().filter(|s| s.flag.is_some()) {
        let flag = s.flag.unwrap();
        assert!(help.contains(&format!(" {flag} ")), "{flag}");
        if matches!(s.range, Range::Switch) {
            continue;
        }
        let range = s.range.describe().split_whitespace().collect::<Vec<_>>().join(" ");
        // An empty quantizer is float; another empty default (the STE twin's: no twin) is none.
        let default = match s.value(&cli) {
            d if d.is_empty() && matches!(s.range, Range::Spec) => "float".to_string(),
            d if d.is_empty() => "none".to_string(),
            d => d,
        };
        assert!(help.contains(&format!("[{range}] (default {default})")), "{flag}: [{range}] (default {default})");
        let line = s.cli_help(&cli).split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(help.contains(&line), "{flag}: {line}");
    }
    assert!(help.contains("--wqN, --aqN SPEC"));
}

#[test]
fn a_layer_key_is_its_global_key_and_the_layer_from_1() {
    let w2 = LayerKey { tensor: QuantizedTensor::Weights, layer: 1 };
    assert_eq!(LayerKey::parse("wq2"), Some(w2));
    assert_eq!(w2.to_string(), "wq2");
    let a10 = LayerKey { tensor: QuantizedTensor::Activation, layer: 9 };
    assert_eq!(LayerKey::parse("aq10"), Some(a10));
    assert_eq!(a10.to_string(), "aq10");
    for not_one in ["wq", "wq0", "wqx", "wq+1", "xq1", "twin_wq1", "lr1"] {
        assert_eq!(LayerKey::parse(not_one), None, "{not_one}");
    }
}

#[test]
fn the_cli_and_the_page_share_the_architecture_limits() {
    assert_eq!((MAX_WIDTH, MAX_HIDDEN_LAYERS), (64, 8));
    assert!(parse_hidden(&MAX_WIDTH.to_string()).is_ok());
    let widest = format!("{}", MAX_WIDTH + 1);
    let o = qscope(&["train", "--hidden", &widest, "--epochs", "1"], "");
    assert!(!o.status.success() && stderr(&o).contains("widths 1 to 64"), "{}", stderr(&o));
    let mut c = Config::new(DatasetKind::Xor);
    c.hidden[0].width = MAX_WIDTH + 1;
    assert!(c.check().unwrap_err().contains("expected 1 to 64"));
}

#[test]
fn the_cli_defaults_are_the_trainers_own() {
    assert_eq!(TrainParams::playground().config(Net::Quantized), Ok(Config::new(DatasetKind::Circle)));
}
