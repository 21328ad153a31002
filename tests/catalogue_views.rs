//! Every catalogue entry at its defaults through the explorer's per-quantizer views: the
//! step-by-step explanation and the copy-as-code snippets. Each quantizer implements these
//! views itself (`explore::explain`, `explore::code`); the golden table records which of
//! them have a step-by-step account and a PyTorch snippet, so a change shows here.

use qscope::explore::code::{Framework, snippet};
use qscope::explore::explain::explain;
use qscope::quant::{ENTRIES, Family, Report};

/// `(name, explained step by step, has a PyTorch snippet)` at the defaults, in catalogue order.
const GOLDEN: &[(&str, bool, bool)] = &[
    ("quantized_bits", true, true),
    ("quantized_linear", true, true),
    ("quantized_po2", true, false),
    ("quantized_relu_po2", false, false),
    ("quantized_relu", true, true),
    ("quantized_tanh", false, false),
    ("quantized_sigmoid", false, false),
    ("quantized_ulaw", false, false),
    ("quantized_hswish", false, false),
    ("binary", true, true),
    ("stochastic_binary", false, false),
    ("ternary", true, true),
    ("stochastic_ternary", true, false),
    ("bernoulli", false, false),
    ("_round_through", true, true),
    ("stochastic_round", false, false),
    ("stochastic_round_po2", false, false),
    ("hard_sigmoid", false, false),
    ("hard_tanh", false, false),
    ("smooth_sigmoid", false, false),
    ("smooth_tanh", false, false),
    ("binary_sigmoid", false, false),
    ("binary_tanh", false, false),
    ("SteSign", true, true),
    ("ApproxSign", true, true),
    ("SwishSign", true, false),
    ("SteHeaviside", true, true),
    ("MagnitudeAwareSign", true, true),
    ("SteTern", true, true),
    ("DoReFa", true, true),
    ("NoOp", true, true),
    ("softround", true, false),
    ("soft_round", true, true),
    ("ste", true, true),
    ("clipped_ste", true, true),
    ("lsq", true, true),
    ("pact", true, true),
    ("fake_quantize", true, true),
];

#[test]
fn the_golden_table_lists_the_catalogue_in_order() {
    let names: Vec<&str> = ENTRIES.iter().map(|e| e.info.name).collect();
    let golden: Vec<&str> = GOLDEN.iter().map(|g| g.0).collect();
    assert_eq!(names, golden);
}

#[test]
fn each_default_is_explained_step_by_step_where_the_golden_table_says() {
    for (e, &(name, detailed, _)) in ENTRIES.iter().zip(GOLDEN) {
        let q = (e.default)();
        let steps = explain(&q, &Report::default(), 0.3).steps;
        // Without an account of its own, the last step gives the generic reason.
        let generic = format!("dy/dx: the gradient {} gives here", q.info().qualified());
        assert_eq!(steps.last().unwrap().what != generic, detailed, "{name}: {steps:?}");
    }
}

#[test]
fn each_default_gets_its_library_pytorch_where_the_golden_table_says_and_the_cli() {
    for (e, &(name, _, torch)) in ENTRIES.iter().zip(GOLDEN) {
        let got: Vec<Framework> = snippet(&(e.default)()).into_iter().map(|(f, _)| f).collect();
        let library = match e.info.family {
            Family::QKeras => Some(Framework::QKeras),
            Family::Larq => Some(Framework::Larq),
            Family::Beyond => None,
        };
        let want: Vec<Framework> =
            library.into_iter().chain(torch.then_some(Framework::PyTorch)).chain([Framework::Cli]).collect();
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn the_qkeras_functions_are_the_helpers_called_on_x() {
    let functions: Vec<&str> = ENTRIES.iter().filter(|e| e.info.function).map(|e| e.info.name).collect();
    assert_eq!(
        functions,
        [
            "_round_through",
            "stochastic_round",
            "stochastic_round_po2",
            "hard_sigmoid",
            "hard_tanh",
            "smooth_sigmoid",
            "smooth_tanh",
            "binary_sigmoid",
            "binary_tanh"
        ]
    );
    for e in ENTRIES.iter().filter(|e| e.info.function) {
        let (_, text) = &snippet(&(e.default)())[0];
        let name = e.info.name;
        assert_eq!(text, &format!("from qkeras.quantizers import {name}\ny = {name}(x)"));
    }
}
