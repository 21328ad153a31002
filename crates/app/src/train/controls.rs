//! The Train view's left column: data, architecture, quantizers (all layers, per layer, the STE
//! twin) and optimizer. Quantizers are picked from the catalogue or typed as specs; text
//! applies on Enter or blur and shows the parser's error instead of applying a bad value.
//! Quantizers and the learning rate change the running networks (no pause, the swap is marked
//! on the curves); anything else builds new networks and pauses.

use leptos::prelude::*;

use super::Train;
use super::csv_input::CsvInput;
use super::data::{DataStatusLine, describe};
use qscope_explore::train::settings::{
    ACTIVATION, AQ, BATCH, BATCH_RANGE, BATCHNORM, BOP_GAMMA, BOP_GAMMA_RANGE, BOP_THRESHOLD, BOP_THRESHOLD_RANGE,
    DATASET, HIDDEN, L1, L2, LOSS, LR, NOISE, NOISE_RANGE, OPTIMIZER, PENALTY_RANGE, QUANTIZE_OUTPUT, RATIO_RANGE,
    SEED, STOP_ACC, STOP_ACC_RANGE, STOP_EPOCH, STOP_EPOCH_RANGE, TRAIN_RATIO, TWIN_AQ, TWIN_WQ, WEIGHT_CLIP,
    WEIGHT_CLIP_RANGE, WQ,
};
use qscope_explore::train::{
    HiddenActivation, MAX_HIDDEN_LAYERS, MAX_WIDTH, TrainParams, parse_features, parse_hidden, parse_quantizer,
};
use qscope_nn::{Activation, DatasetKind, Feature, Loss, Named, OptimizerKind, QuantizedTensor};
use qscope_quant::{ENTRIES, Family};

type Edit = Box<dyn FnOnce(&mut TrainParams)>;

impl Train {
    /// A change that needs new networks: pauses first.
    fn rebuild_with(self, f: Edit) {
        self.playing.set(false);
        self.params.update(f);
    }

    /// A change the running networks take as they are (quantizers, learning rate).
    fn live(self, f: Edit) {
        self.params.update(f);
    }
}

#[component]
pub fn TrainControls(train: Train) -> impl IntoView {
    let params = train.params;
    let set = move |f: Edit| train.rebuild_with(f);
    let hidden_text = move || {
        let h: Vec<String> = params.with(|p| p.hidden.iter().map(usize::to_string).collect());
        h.join(",")
    };
    let add_layer = move |_| {
        set(Box::new(|p| {
            if p.hidden.len() < MAX_HIDDEN_LAYERS {
                let mut h = p.hidden.clone();
                h.push(h.last().copied().unwrap_or(8));
                p.set_hidden(h);
            }
        }))
    };
    let is_table = move || params.with(|p| p.dataset.is_table());
    let remove_layer = move |_| {
        set(Box::new(|p| {
            let mut h = p.hidden.clone();
            h.pop();
            p.set_hidden(h);
        }))
    };
    view! {
        <section class="card train-controls" aria-label="Training settings">
            <h2>"Data"</h2>
            <label class="row">{format!("{} ", DATASET.label)}
                <select class="select" data-testid="train-dataset" on:change=move |ev| {
                    if let Ok(k) = DatasetKind::parse(&event_target_value(&ev)) { set(Box::new(move |p| p.set_dataset(k))) }
                }>
                    <optgroup label="generated (2-D)">
                        {DatasetKind::ALL.into_iter().filter(|d| !d.is_regression() && !d.is_table()).map(|d| view! {
                            <option value=d.name() selected=move || params.with(|p| p.dataset == d)>{d.name()}</option>
                        }).collect_view()}
                    </optgroup>
                    <optgroup label="real (bundled)">
                        {DatasetKind::BUNDLED.into_iter().map(|d| view! {
                            <option value=d.name() selected=move || params.with(|p| p.dataset == d)>{d.name()}</option>
                        }).collect_view()}
                    </optgroup>
                    <optgroup label="your own">
                        <option value=DatasetKind::Csv.name() selected=move || params.with(|p| p.dataset == DatasetKind::Csv)>"a CSV file…"</option>
                    </optgroup>
                </select>
            </label>
            <Show when=move || params.with(|p| p.dataset == DatasetKind::Csv)>
                <CsvInput train=train />
            </Show>
            <DataStatusLine train=train />
            <p class="muted small" data-testid="train-data-size" class:hidden=move || params.with(|p| p.table.is_none())>
                {move || params.with(|p| p.table.as_deref().map(describe).unwrap_or_default())}
                {move || params.with(|p| (p.table.is_some() && !p.raw).then_some(", standardized"))}
            </p>
            <Show when=move || !is_table()>
                <label class="row">{move || format!("{} {:.2} ", NOISE.label, params.with(|p| p.noise))}
                    <input type="range" min=NOISE_RANGE.min max=NOISE_RANGE.max step="0.05" prop:value=move || params.with(|p| p.noise.to_string())
                        on:change=move |ev| { if let Ok(v) = event_target_value(&ev).parse::<f32>() { set(Box::new(move |p| p.noise = v)) } } />
                </label>
            </Show>
            <label class="row">{move || format!("{} {:.0} % ", TRAIN_RATIO.label, params.with(|p| p.ratio * 100.0))}
                <input type="range" min=RATIO_RANGE.min max=RATIO_RANGE.max step="0.1" data-testid="train-ratio" prop:value=move || params.with(|p| p.ratio.to_string())
                    on:change=move |ev| { if let Ok(v) = event_target_value(&ev).parse::<f32>() { set(Box::new(move |p| p.ratio = v)) } } />
            </label>
            <Show when=move || !is_table() fallback=move || view! {
                <label class="row check">
                    <input type="checkbox" data-testid="train-standardize" prop:checked=move || params.with(|p| !p.raw)
                        on:change=move |ev| { let on = event_target_checked(&ev); set(Box::new(move |p| p.raw = !on)) } />
                    " standardize the features (by the training split's mean and deviation)"
                </label>
            }>
                <Features train=train />
            </Show>
            <h2>"Network"</h2>
            <TextSetting label=HIDDEN.label testid="train-hidden" hint="widths, comma-separated, e.g. 16,16; empty: no hidden layer" value=Signal::derive(hidden_text)
                apply=move |text: String| parse_hidden(&text).map(|h| set(Box::new(move |p| p.set_hidden(h)))) />
            <div class="row">
                <button type="button" class="button" data-testid="train-add-layer" on:click=add_layer title="add a hidden layer">"+ layer"</button>
                <button type="button" class="button" data-testid="train-remove-layer" on:click=remove_layer title="remove the last hidden layer">"− layer"</button>
            </div>
            <Activation train=train />
            <label class="row check" title=BATCHNORM.doc>
                <input type="checkbox" data-testid="train-batchnorm" prop:checked=move || params.with(|p| p.batchnorm)
                    on:change=move |ev| { let on = event_target_checked(&ev); set(Box::new(move |p| p.batchnorm = on)) } />
                {format!(" {}", BATCHNORM.label)}
            </label>
            <h2>"Quantizers"</h2>
            <p class="muted small">"Every hidden layer; empty is float. They change the running nets."</p>
            <QuantizerSetting label=WQ.label testid="train-wq" value=Signal::derive(move || params.with(|p| p.wq.clone()))
                apply=move |s| train.live(Box::new(move |p| p.wq = s)) />
            <QuantizerSetting label=AQ.label testid="train-aq" value=Signal::derive(move || params.with(|p| p.aq.clone()))
                apply=move |s| train.live(Box::new(move |p| p.aq = s)) />
            <label class="row check">
                <input type="checkbox" data-testid="train-qo" prop:checked=move || params.with(|p| p.quantize_output)
                    on:change=move |ev| { let on = event_target_checked(&ev); train.live(Box::new(move |p| p.quantize_output = on)) } />
                {format!(" {}", QUANTIZE_OUTPUT.label)}
            </label>
            <PerLayer train=train />
            <h2>"STE twin"</h2>
            <p class="muted small">"A third net: the quantized one with another quantizer, e.g. larq.approx_sign beside larq.ste_sign. Empty: as the quantized net; both empty: off."</p>
            <QuantizerSetting label=TWIN_WQ.label testid="train-twin-wq" value=Signal::derive(move || params.with(|p| p.twin_wq.clone()))
                apply=move |s| train.live(Box::new(move |p| p.twin_wq = s)) />
            <QuantizerSetting label=TWIN_AQ.label testid="train-twin-aq" value=Signal::derive(move || params.with(|p| p.twin_aq.clone()))
                apply=move |s| train.live(Box::new(move |p| p.twin_aq = s)) />
            <Optimizer train=train />
        </section>
    }
}

/// The hidden activation: a function, or any quantizer used as one (QKeras' `QActivation`),
/// whose STE is then the activation's derivative.
#[component]
fn Activation(train: Train) -> impl IntoView {
    let params = train.params;
    let is_fn = move || params.with(|p| matches!(p.activation, HiddenActivation::Function(_)));
    let choose = move |ev| {
        let a = match Activation::parse(&event_target_value(&ev)) {
            Ok(a) => HiddenActivation::Function(a),
            Err(_) => HiddenActivation::Quantizer("qkeras.quantized_relu(4,2)".into()),
        };
        train.rebuild_with(Box::new(move |p| p.activation = a))
    };
    let apply = move |s: String| {
        let a =
            if s.is_empty() { Ok(HiddenActivation::Function(Activation::Linear)) } else { HiddenActivation::parse(&s) };
        if let Ok(a) = a {
            train.rebuild_with(Box::new(move |p| p.activation = a))
        }
    };
    view! {
        <label class="row">{format!("{} ", ACTIVATION.label)}
            <select class="select" data-testid="train-activation" on:change=choose>
                {Activation::ALL.iter().map(|&a| view! {
                    <option value=a.name() selected=move || params.with(|p| p.activation == HiddenActivation::Function(a))>{a.name()}</option>
                }).collect_view()}
                <option value="quantizer" selected=move || !is_fn()>"a quantizer"</option>
            </select>
        </label>
        <Show when=move || !is_fn()>
            <QuantizerSetting label="activation" testid="train-activation-spec"
                value=Signal::derive(move || params.with(|p| p.activation.to_string())) apply=apply />
        </Show>
    }
}

/// The input features, as TensorFlow Playground offers them (at least one stays on).
#[component]
fn Features(train: Train) -> impl IntoView {
    let params = train.params;
    let boxes = Feature::ALL.map(|f| {
        let on = move || params.with(|p| p.features.contains(&f));
        let toggle = move |ev| {
            let checked = event_target_checked(&ev);
            let mut names: Vec<&str> = params.with_untracked(|p| p.features.iter().map(|x| x.name()).collect());
            if checked {
                names.push(f.name())
            } else {
                names.retain(|n| *n != f.name())
            }
            match parse_features(&names.join(",")) {
                Ok(features) => train.rebuild_with(Box::new(move |p| p.features = features)),
                // The last feature cannot go: put the tick back.
                Err(_) => train.params.update(|_| ()),
            }
        };
        view! {
            <label class="feature"><input type="checkbox" data-testid=format!("train-feature-{}", f.name())
                prop:checked=on on:change=toggle />{feature_label(f)}</label>
        }
    });
    view! { <div class="features" role="group" aria-label="input features">{boxes.collect_view()}</div> }
}

fn feature_label(f: Feature) -> &'static str {
    match f {
        Feature::X1 => "x₁",
        Feature::X2 => "x₂",
        Feature::X1Squared => "x₁²",
        Feature::X2Squared => "x₂²",
        Feature::X1X2 => "x₁x₂",
        Feature::SinX1 => "sin x₁",
        Feature::SinX2 => "sin x₂",
    }
}

/// Per-layer overrides of the quantizers, in a disclosure (open when any layer differs).
#[component]
fn PerLayer(train: Train) -> impl IntoView {
    let params = train.params;
    let layers = Memo::new(move |_| params.with(|p| p.hidden.len()));
    let overridden = move || params.with(|p| !(p.layer_wq.is_empty() && p.layer_aq.is_empty()));
    view! {
        <details class="per-layer" prop:open=overridden data-testid="train-per-layer">
            <summary>"per layer"</summary>
            {move || (0..layers.get()).map(|l| {
                let width = move || params.with(|p| p.hidden.get(l).copied().unwrap_or(0));
                let spec = move |slot: QuantizedTensor| Signal::derive(move || params.with(|p| match slot {
                    QuantizedTensor::Weights => p.weight_spec(l).to_string(),
                    QuantizedTensor::Activation => p.act_spec(l).to_string(),
                }));
                let apply = move |slot: QuantizedTensor| move |s: String| train.live(Box::new(move |p| p.set_layer_spec(slot, l, &s)));
                view! {
                    <div class="layer-row">
                        <label class="row">{format!("layer {} width ", l + 1)}
                            <input type="number" min="1" max=MAX_WIDTH class="num-input" data-testid=format!("train-width-{}", l + 1)
                                prop:value=move || width().to_string()
                                on:change=move |ev| {
                                    if let Ok(w) = event_target_value(&ev).parse::<usize>() {
                                        train.rebuild_with(Box::new(move |p| {
                                            let mut h = p.hidden.clone();
                                            if let Some(x) = h.get_mut(l) { *x = w.clamp(1, MAX_WIDTH) }
                                            p.set_hidden(h);
                                        }))
                                    }
                                } />
                        </label>
                        <QuantizerSetting label="w" testid=format!("train-wq-{}", l + 1) value=spec(QuantizedTensor::Weights) apply=apply(QuantizedTensor::Weights) />
                        <QuantizerSetting label="a" testid=format!("train-aq-{}", l + 1) value=spec(QuantizedTensor::Activation) apply=apply(QuantizedTensor::Activation) />
                    </div>
                }
            }).collect_view()}
        </details>
    }
}

#[component]
fn Optimizer(train: Train) -> impl IntoView {
    let params = train.params;
    let set = move |f: Edit| train.rebuild_with(f);
    let lr_log = move || params.with(|p| p.lr.log10());
    view! {
        <h2>"Optimizer"</h2>
        <label class="row">{move || format!("{} {} ", LR.label, params.with(|p| p.lr))}
            <input type="range" min="-4" max="0.5" step="0.1" data-testid="train-lr" prop:value=move || lr_log().to_string()
                on:change=move |ev| {
                    if let Ok(v) = event_target_value(&ev).parse::<f32>() {
                        let lr = (10f32.powf(v) * 1e4).round() / 1e4;
                        train.live(Box::new(move |p| p.lr = lr.max(1e-4)))
                    }
                } />
        </label>
        <label class="row">{format!("{} ", BATCH.label)}
            <input type="number" min=BATCH_RANGE.min max=BATCH_RANGE.max class="num-input" data-testid="train-batch-size" prop:value=move || params.with(|p| p.batch.to_string())
                on:change=move |ev| { if let Ok(v) = event_target_value(&ev).parse::<usize>() { set(Box::new(move |p| p.batch = BATCH_RANGE.clamp(v))) } } />
        </label>
        <label class="row">{format!("{} ", OPTIMIZER.label)}
            <select class="select" data-testid="train-optimizer" on:change=move |ev| { if let Ok(o) = OptimizerKind::parse(&event_target_value(&ev)) { set(Box::new(move |p| p.optimizer = o)) } }>
                {OptimizerKind::ALL.iter().map(|&o| view! { <option value=o.name() selected=move || params.with(|p| p.optimizer == o)>{o.name()}</option> }).collect_view()}
            </select>
        </label>
        <Show when=move || params.with(|p| p.optimizer == OptimizerKind::Bop)>
            <label class="row" title=BOP_THRESHOLD.doc>{format!("{} ", BOP_THRESHOLD.label)}
                <input type="number" min=BOP_THRESHOLD_RANGE.min max=BOP_THRESHOLD_RANGE.max step="any" class="num-input" data-testid="train-bop-threshold" prop:value=move || params.with(|p| format!("{:e}", p.bop_threshold))
                    on:change=move |ev| { if let Ok(v) = event_target_value(&ev).parse::<f32>() { set(Box::new(move |p| p.bop_threshold = BOP_THRESHOLD_RANGE.clamp(v))) } } />
            </label>
            <label class="row" title=BOP_GAMMA.doc>{format!("{} ", BOP_GAMMA.label)}
                <input type="number" min=BOP_GAMMA_RANGE.min max=BOP_GAMMA_RANGE.max step="any" class="num-input" data-testid="train-bop-gamma" prop:value=move || params.with(|p| format!("{:e}", p.bop_gamma))
                    on:change=move |ev| { if let Ok(v) = event_target_value(&ev).parse::<f32>() { set(Box::new(move |p| p.bop_gamma = BOP_GAMMA_RANGE.clamp(v))) } } />
            </label>
        </Show>
        <label class="row">{format!("{} ", LOSS.label)}
            <select class="select" data-testid="train-loss" on:change=move |ev| { if let Ok(l) = Loss::parse(&event_target_value(&ev)) { set(Box::new(move |p| p.loss = l)) } }>
                {Loss::ALL.map(|l| view! { <option value=l.name() selected=move || params.with(|p| p.loss == l)>{l.name()}</option> }).collect_view()}
            </select>
        </label>
        <label class="row">{format!("{} ", L1.label)}
            <input type="number" min=PENALTY_RANGE.min max=PENALTY_RANGE.max step="0.001" class="num-input" data-testid="train-l1" prop:value=move || params.with(|p| p.l1.to_string())
                on:change=move |ev| { if let Ok(v) = event_target_value(&ev).parse::<f32>() { set(Box::new(move |p| p.l1 = PENALTY_RANGE.clamp(v))) } } />
        </label>
        <label class="row">{format!("{} ", L2.label)}
            <input type="number" min=PENALTY_RANGE.min max=PENALTY_RANGE.max step="0.001" class="num-input" data-testid="train-l2" prop:value=move || params.with(|p| p.l2.to_string())
                on:change=move |ev| { if let Ok(v) = event_target_value(&ev).parse::<f32>() { set(Box::new(move |p| p.l2 = PENALTY_RANGE.clamp(v))) } } />
        </label>
        <label class="row" title=WEIGHT_CLIP.doc>{format!("{} ", WEIGHT_CLIP.label)}
            <input type="number" min=WEIGHT_CLIP_RANGE.min max=WEIGHT_CLIP_RANGE.max step="0.1" class="num-input" data-testid="train-weight-clip" prop:value=move || params.with(|p| p.weight_clip.to_string())
                on:change=move |ev| { if let Ok(v) = event_target_value(&ev).parse::<f32>() { set(Box::new(move |p| p.weight_clip = WEIGHT_CLIP_RANGE.clamp(v))) } } />
        </label>
        <label class="row">{format!("{} ", SEED.label)}
            <input type="number" min="0" class="num-input" data-testid="train-seed" prop:value=move || params.with(|p| p.seed.to_string())
                on:change=move |ev| { if let Ok(v) = event_target_value(&ev).parse::<u64>() { set(Box::new(move |p| p.seed = v)) } } />
        </label>
        <StopSettings train=train />
    }
}

/// When play stops by itself: at an epoch, at a test accuracy (changes nothing running).
#[component]
fn StopSettings(train: Train) -> impl IntoView {
    let params = train.params;
    view! {
        <h2>"Stop"</h2>
        <label class="row" title=STOP_EPOCH.doc>{format!("{} ", STOP_EPOCH.label)}
            <input type="number" min=STOP_EPOCH_RANGE.min max=STOP_EPOCH_RANGE.max step="1" class="num-input" data-testid="train-stop-epoch" prop:value=move || params.with(|p| p.stop.epoch.to_string())
                on:change=move |ev| { if let Ok(v) = event_target_value(&ev).parse::<usize>() { train.live(Box::new(move |p| p.stop.epoch = STOP_EPOCH_RANGE.clamp(v))) } } />
        </label>
        <label class="row" title=STOP_ACC.doc>{format!("{} ", STOP_ACC.label)}
            <input type="number" min=STOP_ACC_RANGE.min max=STOP_ACC_RANGE.max step="0.1" class="num-input" data-testid="train-stop-acc" prop:value=move || params.with(|p| p.stop.accuracy.to_string())
                on:change=move |ev| { if let Ok(v) = event_target_value(&ev).parse::<f32>() { train.live(Box::new(move |p| p.stop.accuracy = STOP_ACC_RANGE.clamp(v))) } } />
        </label>
    }
}

/// The catalogue entry a spec names ("" for float or an unreadable spec).
fn entry_name(spec: &str) -> String {
    parse_quantizer(spec).ok().flatten().map_or(String::new(), |q| q.info().qualified())
}

/// A quantizer: a catalogue pick (its library defaults) and the spec, editable.
#[component]
fn QuantizerSetting(
    label: &'static str,
    #[prop(into)] testid: String,
    value: Signal<String>,
    apply: impl Fn(String) + Copy + 'static,
) -> impl IntoView {
    let commit = move |text: String| parse_quantizer(&text).map(|_| apply(text.trim().to_string()));
    let current = Memo::new(move |_| value.with(|v| entry_name(v)));
    let pick = move |ev| {
        let name = event_target_value(&ev);
        let spec =
            ENTRIES.iter().find(|e| e.info.qualified() == name).map_or(String::new(), |e| (e.default)().to_string());
        apply(spec);
    };
    let groups = Family::ALL.map(|family| {
        let options = ENTRIES.iter().filter(move |e| e.info.family == family).map(move |e| {
            let name = e.info.qualified();
            let (value, n) = (name.clone(), name.clone());
            view! { <option value=value selected=move || current.with(|c| *c == n)>{name}</option> }
        });
        view! { <optgroup label=family.title()>{options.collect_view()}</optgroup> }
    });
    view! {
        <div class="quantizer-setting">
            <select class="select" data-testid=format!("{testid}-pick") aria-label=format!("{label}: pick a quantizer") on:change=pick>
                <option value="" selected=move || current.with(String::is_empty)>"float"</option>
                {groups.collect_view()}
            </select>
            <TextSetting label=label testid=testid hint="a quantizer spec; empty: float" value=value apply=commit />
        </div>
    }
}

/// A text setting: applies on Enter or blur; a parse error shows under it and keeps the
/// previous value.
#[component]
fn TextSetting(
    label: &'static str,
    #[prop(into)] testid: String,
    /// What the field takes (its tooltip).
    hint: &'static str,
    value: Signal<String>,
    apply: impl Fn(String) -> Result<(), String> + Copy + 'static,
) -> impl IntoView {
    let error = RwSignal::new(None::<String>);
    let error_id = format!("{testid}-error");
    let commit = move |text: String| match apply(text) {
        Ok(()) => error.set(None),
        Err(e) => error.set(Some(e)),
    };
    view! {
        <label class="row text-setting">{label}" "
            <input type="text" class="spec" spellcheck="false" data-testid=testid title=hint
                prop:value=move || value.get()
                on:change=move |ev| commit(event_target_value(&ev)) />
        </label>
        <Show when=move || error.with(Option::is_some)>
            <p class="control-error" role="alert" data-testid=error_id.clone()>{move || error.get().unwrap_or_default()}</p>
        </Show>
    }
}
