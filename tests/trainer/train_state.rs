//! The Train view's settings as a specification: the URL hash both ways, bad values named,
//! per-layer quantizers, the three networks' configs, and the `qscope train` command the view
//! shows — which, run, gives the numbers the view's trainer gives.

use std::process::Command;

use qscope_explore::learned::learned_rows;
use qscope_explore::one_batch::{exact, rows, summary};
use qscope_explore::pace::{Pace, PaceClock, StepBy};
use qscope_explore::train::{HiddenActivation, Net, TrainParams, is_train, parse_hidden};
use qscope_nn::{Activation, Feature, Loss, OptimizerKind, Pick, QuantizedTensor, Trainer};
use qscope_quant::parse;

fn params(hash: &str) -> TrainParams {
    let (p, problems) = TrainParams::parse(hash);
    assert!(problems.is_empty(), "{hash}: {problems:?}");
    p
}

#[test]
fn the_issue_example_hash_reads_as_written() {
    let p = params("#view=train&dataset=xor&hidden=8,8&wq=qkeras.quantized_bits(4,0,1)&play=1");
    assert_eq!(p.dataset.name(), "xor");
    assert_eq!(p.hidden, vec![8, 8]);
    assert_eq!(p.wq, "qkeras.quantized_bits(4,0,1)");
    assert!(p.play);
    assert!(is_train("#dataset=xor&view=train"));
    assert!(!is_train("#q=larq.ste_sign"));
}

#[test]
fn every_setting_survives_the_hash_round_trip() {
    let mut p = TrainParams {
        noise: 0.15,
        ratio: 0.7,
        features: vec![Feature::X1, Feature::X2, Feature::X1X2, Feature::SinX1],
        l1: 0.001,
        l2: 0.01,
        hidden: vec![16, 4, 2],
        activation: HiddenActivation::Function(Activation::Relu),
        aq: "qkeras.quantized_relu(4,2)".into(),
        quantize_output: true,
        twin_wq: "larq.approx_sign".into(),
        twin_aq: "qkeras.quantized_relu(3, 1)".into(),
        loss: Loss::BinaryCrossEntropy,
        lr: 0.003,
        batch: 25,
        optimizer: OptimizerKind::Adam,
        seed: 42,
        play: true,
        ..TrainParams::default()
    };
    p.set_layer_spec(QuantizedTensor::Weights, 1, "larq.ste_sign");
    p.set_layer_spec(QuantizedTensor::Activation, 2, "");
    let hash = p.to_hash();
    assert!(hash.contains("&wq2=larq.ste_sign") && hash.contains("&aq3=&"), "{hash}");
    assert_eq!(params(&hash), p);
}

#[test]
fn float_weights_and_activations_survive_the_round_trip_too() {
    let p = TrainParams { wq: String::new(), aq: String::new(), ..TrainParams::default() };
    let hash = p.to_hash();
    assert!(hash.contains("&wq=&aq=&"), "{hash}");
    assert_eq!(params(&hash), p);
}

#[test]
fn a_csv_name_before_another_dataset_is_dropped_with_the_csv() {
    // Found by the trainer_hash fuzz target: the name stayed while the link no longer wrote it.
    let (p, problems) = TrainParams::parse("#csv=a.csv&view=train&dataset=xor");
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!((p.dataset, p.csv.as_str()), (qscope_nn::DatasetKind::Xor, ""));
    assert_eq!(params(&p.to_hash()), p);
    let (q, _) = TrainParams::parse("#view=train&dataset=xor&csv=a.csv");
    assert_eq!((q.dataset, q.csv.as_str()), (qscope_nn::DatasetKind::Csv, "a.csv"));
    assert_eq!(params(&q.to_hash()), q);
}

#[test]
fn bad_values_keep_their_defaults_and_are_named() {
    let (p, problems) = TrainParams::parse(
        "#view=train&dataset=sine&noise=2&hidden=8,999&wq=quantized_bitz(4)&lr=-1&batch=0&optimizer=rmsprop&loss=hinge&features=x3&ratio=1&l2=-1&seed=x&wq5=larq.ste_sign&colour=red",
    );
    assert_eq!(p, TrainParams::default());
    let expected = [
        "dataset=sine: not a classification dataset",
        "noise=2: expected a number from 0 to 0.5",
        "hidden=8,999: hidden '8,999': widths 1 to 64",
        "wq=quantized_bitz(4): ",
        "lr=-1: expected a learning rate",
        "batch=0: expected a batch size",
        "optimizer=rmsprop: expected sgd, adam or bop",
        "loss=hinge: expected mse, bce or softmax",
        "features=x3: ",
        "ratio=1: expected a training share",
        "l2=-1: expected a penalty",
        "seed=x: expected a whole number",
        "colour=red: unknown key",
        "wq5=larq.ste_sign: the network has 2 hidden layers",
    ];
    assert_eq!(problems.len(), expected.len(), "{problems:#?}");
    for want in expected {
        assert!(problems.iter().any(|p| p.starts_with(want)), "no problem starting '{want}' in {problems:#?}");
    }
}

#[test]
fn a_quantizer_the_trainer_refuses_is_named_in_the_hash() {
    let (p, problems) = TrainParams::parse("#view=train&wq=qkeras.stochastic_ternary(alpha=1)");
    assert_eq!(p.wq, TrainParams::default().wq);
    assert_eq!(problems.len(), 1, "{problems:?}");
}

#[test]
fn hidden_widths_parse_with_limits() {
    assert_eq!(parse_hidden(" 16, 16 "), Ok(vec![16, 16]));
    assert_eq!(parse_hidden(""), Ok(vec![]));
    assert!(parse_hidden("8,0").is_err());
    assert!(parse_hidden("1,1,1,1,1,1,1,1,1").is_err(), "at most 8 layers");
}

#[test]
fn a_layer_override_equal_to_the_global_quantizer_is_dropped() {
    let mut p = TrainParams::default();
    p.set_layer_spec(QuantizedTensor::Weights, 0, "larq.ste_sign");
    assert_eq!(p.weight_spec(0), "larq.ste_sign");
    assert_eq!(p.weight_spec(1), p.wq);
    p.set_layer_spec(QuantizedTensor::Weights, 0, &p.wq.clone());
    assert!(p.layer_wq.is_empty());
    p.set_layer_spec(QuantizedTensor::Activation, 1, "qkeras.quantized_tanh(4)");
    p.set_hidden(vec![8]);
    assert!(p.layer_aq.is_empty(), "overrides of removed layers go");
}

#[test]
fn the_float_twin_has_no_quantizer_and_the_output_layer_stays_float_by_default() {
    let p = params("#view=train&hidden=8,8&wq=larq.ste_sign&aq=qkeras.quantized_tanh(4)");
    let q = p.config(Net::Quantized).unwrap();
    assert!(q.hidden.iter().all(|h| h.weights.is_some() && h.output.is_some()));
    assert_eq!(q.output_weights, None);
    let f = p.config(Net::Float).unwrap();
    assert!(f.hidden.iter().all(|h| h.weights.is_none() && h.output.is_none()) && f.output_weights.is_none());
    assert_eq!((f.seed, f.dataset, f.batch), (q.seed, q.dataset, q.batch));
    let p = params("#view=train&hidden=8,8&wq=larq.ste_sign&qo=1");
    assert_eq!(p.config(Net::Quantized).unwrap().output_weights, Some(parse("larq.ste_sign").unwrap()));
}

#[test]
fn the_third_twin_swaps_only_the_quantizers_it_names() {
    let p = params("#view=train&hidden=8,8&wq=larq.ste_sign&wq2=&aq=qkeras.quantized_tanh(4)&twin_wq=larq.approx_sign");
    assert!(p.has_twin());
    let t = p.config(Net::Twin).unwrap();
    let approx = Some(parse("larq.approx_sign").unwrap());
    assert_eq!((&t.hidden[0].weights, &t.hidden[1].weights), (&approx, &approx));
    assert_eq!(
        t.hidden[0].output,
        Some(parse("qkeras.quantized_tanh(4)").unwrap()),
        "activations as the quantized net's"
    );
    assert_eq!(p.config(Net::Quantized).unwrap().hidden[1].weights, None, "wq2= makes layer 2 float");
    assert!(!params("#view=train").has_twin());
}

#[test]
fn only_architecture_changes_need_new_trainers() {
    let p = TrainParams::default();
    let mut live = p.clone();
    live.wq = "larq.ste_sign".into();
    live.set_layer_spec(QuantizedTensor::Activation, 0, "qkeras.quantized_tanh(4)");
    live.lr = 0.1;
    live.play = true;
    assert_eq!(live.rebuild_key(), p.rebuild_key());
    for change in [
        TrainParams { seed: 1, ..p.clone() },
        TrainParams { hidden: vec![4], ..p.clone() },
        TrainParams { twin_wq: "larq.approx_sign".into(), ..p.clone() },
    ] {
        assert_ne!(change.rebuild_key(), p.rebuild_key());
    }
}

#[test]
fn pace_and_what_a_step_takes_live_in_the_hash_when_not_the_default() {
    let p = params("#view=train&pace=20&stepby=batch");
    assert_eq!((p.pace, p.stepby), (Pace::PerSecond(20), StepBy::Batch));
    assert!(p.to_hash().ends_with("&pace=20&stepby=batch"), "{}", p.to_hash());
    assert_eq!(params(&p.to_hash()), p);
    let default = TrainParams::default();
    assert_eq!((default.pace, default.stepby), (Pace::Max, StepBy::Epoch));
    let hash = default.to_hash();
    assert!(!hash.contains("pace=") && !hash.contains("stepby="), "{hash}");
    assert_eq!(params("#view=train&pace=max&stepby=epoch"), default);
    for pace in Pace::CHOICES.into_iter().chain([Pace::PerSecond(7), Pace::PerSecond(1000)]) {
        let p = TrainParams { pace, ..TrainParams::default() };
        assert_eq!(params(&p.to_hash()).pace, pace);
    }
    assert_eq!(Pace::CHOICES.map(Pace::label), ["1 epoch/s", "5 epochs/s", "20 epochs/s", "100 epochs/s", "max"]);
}

#[test]
fn a_bad_pace_or_step_is_named_and_keeps_its_default() {
    let (p, problems) = TrainParams::parse("#view=train&pace=0&pace=1001&pace=fast&pace=2.5&stepby=week");
    assert_eq!((p.pace, p.stepby), (Pace::Max, StepBy::Epoch));
    assert_eq!(problems.len(), 5, "{problems:#?}");
    for (problem, key) in problems.iter().zip(["pace=0", "pace=1001", "pace=fast", "pace=2.5", "stepby=week"]) {
        assert!(problem.starts_with(&format!("{key}: expected")), "{problem}");
    }
    assert!(problems[0].contains("from 1 to 1000, or max") && problems[4].contains("epoch or batch"));
}

#[test]
fn pace_and_what_a_step_takes_change_no_trainer() {
    let p = TrainParams::default();
    let q = TrainParams { pace: Pace::PerSecond(5), stepby: StepBy::Batch, ..p.clone() };
    assert_eq!(q.rebuild_key(), p.rebuild_key());
}

#[test]
fn the_pace_clock_owes_pace_times_batches_per_epoch_a_second_at_any_frame_rate() {
    // 20 epochs/s of 25 batches: 500 batches a second, at 60 fps or at uneven frames.
    let mut clock = PaceClock::default();
    let even: usize = (0..180).map(|_| clock.due(1000.0 / 60.0, 20, 25)).sum();
    assert!((1499..=1500).contains(&even), "{even} batches in 3 s at 60 fps");
    let mut clock = PaceClock::default();
    let uneven: usize = (0..60).map(|k| clock.due(if k % 2 == 0 { 10.0 } else { 40.0 }, 5, 25)).sum();
    assert!((187..=188).contains(&uneven), "{uneven} batches in 1.5 s"); // 5 · 25 · 1.5 = 187.5
    let mut clock = PaceClock::default();
    let slow: usize = (0..10).map(|_| clock.due(100.0, 1, 25)).sum();
    assert_eq!(slow, 25, "pace 1: one epoch a second");
}

#[test]
fn a_long_gap_between_frames_never_trains_in_a_burst() {
    let mut clock = PaceClock::default();
    assert_eq!(clock.due(60_000.0, 20, 25), 50, "a minute hidden counts as 100 ms");
    assert_eq!(clock.due(f64::NAN, 20, 25), 0);
    assert_eq!(clock.due(-5.0, 20, 25), 0);
}

#[test]
fn the_one_batch_walkthrough_names_every_number_exactly() {
    let p = params("#view=train&dataset=xor&hidden=8,8&optimizer=sgd&lr=0.1");
    let mut t = Trainer::new(p.config(Net::Quantized).unwrap()).unwrap();
    let w = t.step_traced(Pick::Largest { layer: 0 }).unwrap();
    let shown = rows(&w, p.optimizer, p.lr);
    let keys: Vec<&str> = shown.iter().map(|r| r.key).collect();
    let expected =
        ["latent-before", "q-before", "grad-q", "ste", "grad-w", "update", "latent-after", "q-after", "flipped"];
    assert_eq!(keys, expected);
    let numbers = [w.latent_before, w.q_before, w.grad_q, w.ste, w.grad_w, w.update, w.latent_after, w.q_after];
    for (row, v) in shown.iter().zip(numbers) {
        assert_eq!(row.value.parse::<f32>().unwrap().to_bits(), v.to_bits(), "{}", row.key);
    }
    assert_eq!(shown[5].label, "SGD update −lr·∂L/∂w");
    assert_eq!(shown[8].value, if w.flipped { "yes" } else { "no" });
    let said = summary(&w, 3);
    assert!(said.starts_with(&format!("weight {} → {} of hidden layer 1: w ", w.from + 1, w.to + 1)), "{said}");
}

#[test]
fn the_walkthrough_shows_adam_and_the_penalty_when_there_is_one() {
    let p = params("#view=train&dataset=xor&hidden=8&l1=0.01");
    let mut t = Trainer::new(p.config(Net::Quantized).unwrap()).unwrap();
    let w = t.step_traced(Pick::At { layer: 1, index: 2 }).unwrap();
    let shown = rows(&w, p.optimizer, p.lr);
    assert!(shown.iter().any(|r| r.key == "grad-total" && r.label == "∂L/∂w + penalty"));
    assert!(shown.iter().any(|r| r.key == "update" && r.label == "Adam update Δw"));
    assert!(summary(&w, 2).contains("of output layer") && summary(&w, 2).ends_with("float weights, no level."));
    let flipped = shown.iter().find(|r| r.key == "flipped").unwrap();
    assert_eq!((flipped.value.as_str(), flipped.meaning.as_str()), ("no", "float weights have no levels"));
    assert_eq!([exact(0.5), exact(-0.125), exact(1e-10), exact(0.0)], ["0.5", "-0.125", "1e-10", "0"]);
}

/// Splits a POSIX shell command line of bare words, single-quoted strings and `\'`.
fn shell_words(line: &str) -> Vec<String> {
    let (mut words, mut word, mut quoted, mut any) = (Vec::new(), String::new(), false, false);
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' if !quoted => {
                word.extend(chars.next());
                any = true;
            }
            '\'' => {
                quoted = !quoted;
                any = true;
            }
            ' ' if !quoted => {
                if any {
                    words.push(std::mem::take(&mut word));
                }
                any = false;
            }
            c => {
                word.push(c);
                any = true;
            }
        }
    }
    if any {
        words.push(word);
    }
    words
}

/// The JSON line `qscope train` prints for the last epoch of the view's run.
fn last_json(p: &TrainParams, net: Net, epochs: usize) -> (String, String) {
    let words = shell_words(&p.cli_command(net, epochs));
    assert_eq!(words[..2], ["qscope", "train"]);
    let out = Command::new(env!("CARGO_BIN_EXE_qscope")).args(&words[1..]).arg("--json").output().unwrap();
    assert!(out.status.success(), "{words:?}: {}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let cli = stdout.lines().last().unwrap().to_string();
    let mut t = Trainer::new(p.config(net).unwrap()).unwrap();
    let mut m = t.step_epoch().unwrap();
    for _ in 1..epochs {
        m = t.step_epoch().unwrap();
    }
    let num = |v: f64| format!("{v}");
    let acc = |v: Option<f64>| v.map_or("null".into(), num);
    let view = format!(
        r#"{{"epoch":{},"train_loss":{},"test_loss":{},"train_acc":{},"test_acc":{}}}"#,
        m.epoch,
        num(m.train_loss),
        num(m.test_loss),
        acc(m.train_acc),
        acc(m.test_acc)
    );
    (cli, view)
}

#[test]
fn the_shown_cli_command_reproduces_every_network_of_the_view() {
    let p = params(
        "#view=train&dataset=spiral&hidden=8,6&activation=tanh&wq=qkeras.quantized_bits(4,0,1,alpha='auto')\
         &wq2=larq.ste_sign&aq=qkeras.quantized_tanh(4)&qo=1&twin_wq=larq.approx_sign&loss=softmax&features=x1,x2,x1x2,sinx2&ratio=0.6&l2=0.001&lr=0.01&batch=5\
         &optimizer=adam&seed=7&noise=0.1",
    );
    for net in [Net::Quantized, Net::Float, Net::Twin] {
        let (cli, view) = last_json(&p, net, 3);
        assert_eq!(cli, view, "{net:?}: {}", p.cli_command(net, 3));
    }
}

#[test]
fn cli_train_with_a_twin_trains_the_views_three_nets_each_as_its_own_command_does() {
    let p = params(
        "#view=train&dataset=circle&hidden=6&activation=tanh&wq=larq.ste_sign&twin_wq=larq.approx_sign&lr=0.03&seed=5",
    );
    let mut words = shell_words(&p.cli_command(Net::Quantized, 3));
    words.extend(["--twin-wq".into(), "larq.approx_sign".into(), "--json".into()]);
    let out = Command::new(env!("CARGO_BIN_EXE_qscope")).args(&words[1..]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let last = String::from_utf8(out.stdout).unwrap().lines().last().unwrap().to_string();
    // Each net's fields, renamed as a single net's line names them.
    let fields = |prefix: &str| {
        let body = last.trim_start_matches('{').trim_end_matches('}');
        let kept: Vec<String> = body
            .split(',')
            .filter_map(|kv| {
                let (k, v) = kv.split_once(':').unwrap();
                let k = k.trim_matches('"');
                let own = if prefix.is_empty() {
                    (!k.starts_with("float_") && !k.starts_with("twin_")).then_some(k)
                } else {
                    k.strip_prefix(prefix).or((k == "epoch").then_some(k))
                };
                own.map(|k| format!("\"{k}\":{v}"))
            })
            .collect();
        format!("{{{}}}", kept.join(","))
    };
    for (net, prefix) in [(Net::Quantized, ""), (Net::Float, "float_"), (Net::Twin, "twin_")] {
        let (alone, _) = last_json(&p, net, 3);
        assert_eq!(fields(prefix), alone, "{net:?} in {last}");
    }
}

#[test]
fn cli_train_prints_the_steps_an_lsq_net_learns_as_the_view_learns_them() {
    let p = params("#view=train&dataset=circle&hidden=4,2&wq=lsq(2)&seed=3");
    let (cli, _) = last_json(&p, Net::Quantized, 3);
    let mut t = Trainer::new(p.config(Net::Quantized).unwrap()).unwrap();
    for _ in 0..3 {
        t.step_epoch().unwrap();
    }
    let layers = t.layers();
    let rows = learned_rows(layers);
    assert_eq!(rows.len(), 2, "one step per hidden layer");
    let pairs: Vec<String> = rows.iter().map(|r| format!(r#""{}":{}"#, r.key(layers.len()), r.value)).collect();
    assert!(cli.ends_with(&format!(r#","learned":{{{}}}}}"#, pairs.join(","))), "{cli}");
}

#[test]
fn the_shown_cli_command_quotes_what_a_shell_would_split() {
    let p = params("#view=train&wq=qkeras.quantized_bits(4, 0, alpha='auto')&hidden=");
    let cmd = p.cli_command(Net::Quantized, 10);
    assert!(cmd.contains(r"--wq 'qkeras.quantized_bits(4, 0, alpha='\''auto'\'')'"), "{cmd}");
    assert!(cmd.contains("--hidden ''"), "{cmd}");
    let words = shell_words(&cmd);
    let at = words.iter().position(|w| w == "--wq").unwrap();
    assert_eq!(words[at + 1], "qkeras.quantized_bits(4, 0, alpha='auto')");
    assert_eq!(words[words.iter().position(|w| w == "--hidden").unwrap() + 1], "");
}

/// A hash of the trainer's keys, each with a value it may accept or refuse.
fn trainer_hash() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let pair = prop_oneof![
        prop::sample::select(vec!["dataset=xor", "dataset=circle", "dataset=spiral", "dataset=sine"]),
        prop::sample::select(vec!["hidden=8,8", "hidden=", "hidden=3", "hidden=999", "hidden=4,4,4"]),
        prop::sample::select(vec!["wq=larq.ste_sign", "wq=qkeras.quantized_bits(4,0,1)", "wq=", "wq=nope"]),
        prop::sample::select(vec!["aq=qkeras.quantized_tanh(4)", "aq=", "wq2=ste", "aq1=larq.approx_sign", "wq9=ste"]),
        prop::sample::select(vec!["twin_wq=larq.approx_sign", "twin_aq=ste", "qo=1", "qo=0"]),
        prop::sample::select(vec!["lr=0.1", "lr=-1", "batch=10", "batch=0", "optimizer=sgd", "loss=hinge"]),
        prop::sample::select(vec!["features=x1,x2,x1x2", "features=x3", "ratio=0.5", "l1=0.01", "l2=2"]),
        prop::sample::select(vec!["pace=20", "pace=max", "pace=fast", "stepby=batch", "play=1", "seed=7"]),
        prop::sample::select(vec!["activation=tanh", "activation=relu", "noise=0.2", "colour=red"]),
    ];
    prop::collection::vec(pair, 0..12).prop_map(|pairs| format!("#view=train&{}", pairs.join("&")))
}

proptest::proptest! {
    #[test]
    fn any_trainer_hash_reads_back_from_its_printed_form(hash in trainer_hash()) {
        let (p, _) = TrainParams::parse(&hash);
        let printed = p.to_hash();
        let (again, problems) = TrainParams::parse(&printed);
        proptest::prop_assert!(problems.is_empty(), "{} prints as {}: {:?}", hash, printed, problems);
        proptest::prop_assert_eq!(&again, &p, "{} prints as {}", hash, printed);
        proptest::prop_assert_eq!(again.to_hash(), printed);
    }
}
