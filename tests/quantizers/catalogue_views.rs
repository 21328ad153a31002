//! Every catalogue entry at its defaults through the explorer's per-quantizer views: the
//! step-by-step explanation and the copy-as-code snippets. Each quantizer implements these
//! views itself (`explore::explain`, `explore::code`); the golden table records which of
//! them have a step-by-step account, so a change shows here. Every entry has a PyTorch snippet.

use qscope_explore::code::{Framework, snippet};
use qscope_explore::explain::explain;
use qscope_quant::{ENTRIES, Family, Report};

/// `(name, explained step by step)` at the defaults, in catalogue order.
const GOLDEN: &[(&str, bool)] = &[
    ("quantized_bits", true),
    ("quantized_linear", true),
    ("quantized_po2", true),
    ("quantized_relu_po2", false),
    ("quantized_relu", true),
    ("quantized_tanh", false),
    ("quantized_sigmoid", false),
    ("quantized_ulaw", false),
    ("quantized_hswish", false),
    ("binary", true),
    ("stochastic_binary", false),
    ("ternary", true),
    ("stochastic_ternary", true),
    ("bernoulli", false),
    ("_round_through", true),
    ("stochastic_round", false),
    ("stochastic_round_po2", false),
    ("hard_sigmoid", false),
    ("hard_tanh", false),
    ("smooth_sigmoid", false),
    ("smooth_tanh", false),
    ("binary_sigmoid", false),
    ("binary_tanh", false),
    ("SteSign", true),
    ("ApproxSign", true),
    ("SwishSign", true),
    ("SteHeaviside", true),
    ("MagnitudeAwareSign", true),
    ("SteTern", true),
    ("DoReFa", true),
    ("NoOp", true),
    ("softround", true),
    ("soft_round", true),
    ("ste", true),
    ("clipped_ste", true),
    ("lsq", true),
    ("pact", true),
    ("fake_quantize", true),
    ("float8_e4m3fn", true),
    ("float8_e5m2", true),
    ("float8_e4m3fnuz", true),
    ("float8_e5m2fnuz", true),
    ("float8_e4m3", true),
    ("float8_e3m4", true),
    ("float8_e8m0fnu", true),
    ("float6_e2m3fn", true),
    ("float6_e3m2fn", true),
    ("float4_e2m1fn", true),
    ("float8", true),
    ("affine", true),
    ("intx_fake_quantize", true),
    ("mx", true),
    ("nvfp4", true),
    ("nf4", true),
    ("fp4", true),
];

#[test]
fn the_golden_table_lists_the_catalogue_in_order() {
    let names: Vec<&str> = ENTRIES.iter().map(|e| e.info.name).collect();
    let golden: Vec<&str> = GOLDEN.iter().map(|g| g.0).collect();
    assert_eq!(names, golden);
}

#[test]
fn each_default_is_explained_step_by_step_where_the_golden_table_says() {
    for (e, &(name, detailed)) in ENTRIES.iter().zip(GOLDEN) {
        let q = (e.default)();
        let steps = explain(&q, &Report::default(), 0.3).steps;
        // Without an account of its own, the last step gives the generic reason.
        let generic = format!("dy/dx: the gradient {} gives here", q.info().qualified());
        assert_eq!(steps.last().unwrap().what != generic, detailed, "{name}: {steps:?}");
    }
}

#[test]
fn each_default_gets_its_library_pytorch_and_the_cli() {
    for (e, &(name, _)) in ENTRIES.iter().zip(GOLDEN) {
        let got: Vec<Framework> = snippet(&(e.default)()).into_iter().map(|(f, _)| f).collect();
        let library = match e.info.family {
            Family::QKeras => Some(Framework::QKeras),
            Family::Larq => Some(Framework::Larq),
            Family::Beyond | Family::MlDtypes | Family::Torchao | Family::Bnb => None,
        };
        let want: Vec<Framework> = library.into_iter().chain([Framework::PyTorch, Framework::Cli]).collect();
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
