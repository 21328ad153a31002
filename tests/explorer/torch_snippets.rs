//! The PyTorch snippets as a specification: every quantizer and configuration has one, its
//! gradient windows never rest on `torch.clamp`'s gradient (which changed between torch
//! releases), and where it cannot agree with qscope bit for bit it says so in the text.

use qscope_explore::code::{Agreement, Framework, agreement, snippet_in};
use qscope_quant::{ENTRIES, Quantizer, parse};

/// Configurations beyond the defaults: data-dependent scales, qnoise, no STE, stochastic
/// rounding, the activation and stochastic quantizers, and the papers' STEs.
const CONFIGURATIONS: &[&str] = &[
    "qkeras.quantized_bits(4, 0, 1, alpha='auto')",
    "qkeras.quantized_bits(4, 1, 1, alpha='auto_po2')",
    "qkeras.quantized_bits(4, 0, 1, qnoise_factor=0.5)",
    "qkeras.quantized_bits(4, 0, 1, use_ste=False)",
    "qkeras.quantized_bits(4, 0, 1, use_stochastic_rounding=True)",
    "qkeras.quantized_linear(4, alpha='auto_po2')",
    "qkeras.quantized_linear(4, use_stochastic_rounding=True)",
    "qkeras.quantized_po2(5, max_value=2.0, quadratic_approximation=True)",
    "qkeras.quantized_relu_po2(4, use_stochastic_rounding=True)",
    "qkeras.quantized_relu(3, 1, use_sigmoid=1, negative_slope=0.125)",
    "qkeras.quantized_tanh(4, use_real_tanh=True)",
    "qkeras.quantized_sigmoid(4, use_real_sigmoid=True)",
    "qkeras.quantized_hswish(4, 2, alpha='auto')",
    "qkeras.binary(alpha='auto', use_stochastic_rounding=True)",
    "qkeras.ternary(alpha='auto_po2')",
    "qkeras.stochastic_ternary(alpha='auto')",
    "qkeras.bernoulli(alpha='auto', use_real_sigmoid=False)",
    "qkeras._round_through(use_stochastic_rounding=True)",
    "larq.SteTern(ternary_weight_networks=True)",
    "larq.DoReFa(k_bit=3, mode='weights')",
    "soft_round(alpha=2.0, hard=True)",
    "lsq(bits=3, step=0.5)",
];

fn q(spec: &str) -> Quantizer {
    parse(spec).unwrap_or_else(|e| panic!("{spec}: {e}"))
}

/// Every default and every configuration above.
fn all() -> Vec<Quantizer> {
    ENTRIES.iter().map(|e| (e.default)()).chain(CONFIGURATIONS.iter().map(|s| q(s))).collect()
}

fn torch(quant: &Quantizer) -> String {
    snippet_in(quant, Framework::PyTorch).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn every_catalogue_entry_and_configuration_has_a_pytorch_snippet_that_defines_y() {
    for quant in all() {
        let text = torch(&quant);
        assert!(text.starts_with("import torch\n"), "{text}");
        assert!(text.contains("\ny = "), "{text}");
    }
}

#[test]
fn no_pytorch_snippet_takes_a_gradient_window_from_torch_clamp() {
    for quant in all() {
        let text = torch(&quant);
        assert!(!text.contains("torch.clamp(") && !text.contains("torch.clip("), "{text}");
        assert!(!text.contains("x.clamp(") && !text.contains(" x.clip("), "{text}");
    }
}

#[test]
fn a_clipped_ste_writes_its_closed_window_with_torch_where_or_a_mask() {
    let text = torch(&q("larq.SteSign"));
    assert!(text.contains("w = (x.abs() <= 1.0).float()"), "{text}");
    let text = torch(&q("qkeras.quantized_linear"));
    assert!(text.contains("torch.where(w, x, x.detach())"), "{text}");
}

#[test]
fn a_non_exact_agreement_is_stated_in_the_snippet() {
    for quant in all() {
        let text = torch(&quant);
        let agreement = agreement(&quant, Framework::PyTorch).unwrap();
        match agreement.note() {
            None => assert!(agreement == Agreement::Exact && !text.contains("agrees with qscope"), "{text}"),
            Some(note) => assert!(text.contains(&note), "{text}"),
        }
    }
}

#[test]
fn stochastic_configurations_agree_in_distribution() {
    for spec in ["qkeras.stochastic_round", "qkeras.quantized_bits(4, 0, 1, use_stochastic_rounding=True)"] {
        assert!(matches!(agreement(&q(spec), Framework::PyTorch), Some(Agreement::Distribution { .. })), "{spec}");
    }
}

#[test]
fn soft_round_states_the_tanh_difference_in_ulps() {
    assert!(matches!(agreement(&q("soft_round"), Framework::PyTorch), Some(Agreement::Ulps { .. })));
}

#[test]
fn shoks_soft_round_is_shoks_own_function() {
    let text = torch(&q("softround"));
    assert!(text.contains("from shok.utils.functions.soft_round import SoftRound\ny = SoftRound.apply(x)"), "{text}");
    assert_eq!(agreement(&q("softround"), Framework::PyTorch), Some(Agreement::Exact));
}

#[test]
fn lsq_follows_the_paper_and_says_torchs_learnable_fake_quant_differs() {
    let text = torch(&q("lsq"));
    assert!(text.contains("torch._fake_quantize_learnable_per_tensor_affine differs"), "{text}");
    assert!(text.contains("w = (u > -8.0) & (u < 7.0)  # open window on v/s"), "{text}");
    assert!(text.contains("s = torch.tensor("), "{text}");
}

#[test]
fn pact_names_its_learnable_clip_alpha() {
    let text = torch(&q("pact"));
    assert!(text.contains("alpha = torch.tensor(6.0, requires_grad=True)"), "{text}");
}
