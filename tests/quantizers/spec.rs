//! The spec syntax: what parses, what it means, how it prints, and the errors.

use qscope_quant::{Alpha, ENTRIES, Literal, Quantizer, parse};

fn get(q: &Quantizer, name: &str) -> Literal {
    q.get(name).unwrap_or_else(|| panic!("{} has no '{name}'", q.info().qualified()))
}

fn error(spec: &str) -> String {
    match parse(spec) {
        Ok(q) => panic!("'{spec}' parsed as {q}, expected an error"),
        Err(e) => e.message,
    }
}

#[test]
fn positional_arguments_follow_the_constructor_order() {
    let q = parse("qkeras.quantized_bits(4,0,1,alpha=1)").unwrap();
    assert_eq!(get(&q, "bits"), Literal::Int(4));
    assert_eq!(get(&q, "integer"), Literal::Int(0));
    assert_eq!(get(&q, "symmetric"), Literal::Bool(true));
    assert_eq!(get(&q, "alpha"), Literal::Float(1.0));
}

#[test]
fn bare_qkeras_strings_parse_as_in_model_configs() {
    let q = parse("quantized_bits(4,0,1,alpha='auto_po2')").unwrap();
    assert_eq!(q.info().qualified(), "qkeras.quantized_bits");
    assert_eq!(get(&q, "alpha"), Literal::Str("auto_po2".into()));
    assert_eq!(parse("quantized_relu(4,0)").unwrap().info().qualified(), "qkeras.quantized_relu");
}

#[test]
fn larq_aliases_and_class_names_are_the_same_quantizer() {
    assert_eq!(parse("larq.ste_sign").unwrap(), parse("larq.SteSign()").unwrap());
    assert_eq!(parse("larq.SteTern(threshold_value=0.1)").unwrap(), parse("ste_tern(0.1)").unwrap());
    assert_eq!(parse("larq.approx_sign").unwrap(), parse("larq.ApproxSign()").unwrap());
    // Larq's backward-compatible alias: `larq.quantizers.get("NoOpQuantizer")` is NoOp.
    assert_eq!(parse("larq.NoOpQuantizer(precision=1)").unwrap(), parse("larq.NoOp(precision=1)").unwrap());
    assert_eq!(parse("larq.NoOpQuantizer(precision=1)").unwrap().to_string(), "larq.NoOp(precision=1)");
}

#[test]
fn beyond_entries_have_no_namespace() {
    assert_eq!(parse("softround").unwrap().info().qualified(), "softround");
    let q = parse("lsq(bits=4, step=0.1)").unwrap();
    assert_eq!(get(&q, "step"), Literal::Float(0.1));
    assert_eq!(parse("torch.fake_quantize(0.1, 3, 0, 15)").unwrap().info().qualified(), "fake_quantize");
}

#[test]
fn empty_parentheses_give_the_default_instance() {
    assert_eq!(parse("larq.ApproxSign()").unwrap(), parse("larq.ApproxSign").unwrap());
    assert_eq!(parse("qkeras.binary()").unwrap(), parse("binary").unwrap());
}

#[test]
fn values_accept_python_literals() {
    let q =
        parse(r#"qkeras.quantized_bits(bits=4, keep_negative=False, alpha="auto", var_name=None, qnoise_factor=5e-1)"#)
            .unwrap();
    assert_eq!(get(&q, "keep_negative"), Literal::Bool(false));
    assert_eq!(get(&q, "alpha"), Literal::Str("auto".into()));
    assert_eq!(get(&q, "qnoise_factor"), Literal::Float(0.5));
    let q = parse("qkeras.quantized_bits(4, scale_axis=[0, 1])").unwrap();
    assert_eq!(get(&q, "scale_axis"), Literal::List(vec![0.0, 1.0]));
}

#[test]
fn keras_config_dicts_parse() {
    let json = r#"{"class_name": "quantized_bits", "config": {"bits": 4, "integer": 0, "symmetric": 1,
        "alpha": null, "keep_negative": true, "use_stochastic_rounding": false, "qnoise_factor": 1.0,
        "post_training_scale": null}}"#;
    assert_eq!(parse(json).unwrap(), parse("qkeras.quantized_bits(4,0,1)").unwrap());
    let larq = r#"{"class_name": "SteSign", "config": {"name": "ste_sign", "trainable": true, "dtype": "float32", "clip_value": 0.5}}"#;
    assert_eq!(parse(larq).unwrap(), parse("larq.SteSign(clip_value=0.5)").unwrap());
}

#[test]
fn printing_is_canonical_and_parses_back() {
    for spec in [
        "qkeras.quantized_bits(4,0,1,alpha='auto')",
        "larq.SteTern(threshold_value=0.1, ternary_weight_networks=True)",
        "larq.DoReFa(k_bit=3, mode='weights')",
        "lsq(bits=3, step=0.25, signed=False)",
        "qkeras.quantized_po2(4, 1.5, log2_rounding='floor')",
        "qkeras.quantized_relu(bits=3, integer=1, negative_slope=0.25, relu_upper_bound=None)",
    ] {
        let q = parse(spec).unwrap();
        let printed = q.to_string();
        assert_eq!(parse(&printed).unwrap(), q, "{spec} printed as {printed}");
    }
    assert_eq!(parse("quantized_bits(4,0,1)").unwrap().to_string(), "qkeras.quantized_bits(bits=4, symmetric=True)");
    assert_eq!(parse("larq.ste_sign").unwrap().to_string(), "larq.SteSign");
}

#[test]
fn every_default_instance_is_valid_and_prints_its_bare_name() {
    for e in ENTRIES {
        let q = (e.default)();
        assert_eq!(q.validate(), Ok(()), "{}", e.info.qualified());
        assert_eq!(q.to_string(), e.info.qualified());
        assert_eq!(parse(&e.info.qualified()).unwrap(), q);
    }
}

#[test]
fn unknown_names_suggest_the_closest() {
    let m = error("qkeras.quantized_bit(4)");
    assert!(
        m.contains("unknown quantizer 'qkeras.quantized_bit'") && m.contains("did you mean 'qkeras.quantized_bits'"),
        "{m}"
    );
    let m = error("larq.SteSing");
    assert!(m.contains("did you mean 'larq.SteSign'"), "{m}");
}

#[test]
fn unknown_arguments_name_the_allowed_ones() {
    let m = error("larq.SteSign(clip=1)");
    assert!(m.contains("no parameter 'clip'") && m.contains("did you mean 'clip_value'"), "{m}");
}

#[test]
fn out_of_range_values_say_what_is_allowed() {
    let m = error("qkeras.quantized_bits(bits=0)");
    assert!(m.contains("bits=0") && m.contains("from 1 to 32"), "{m}");
    let m = error("qkeras.quantized_bits(4, -1)");
    assert!(m.contains("integer=-1") && m.contains("from 0 to 127"), "{m}");
    let m = error("qkeras.quantized_bits(4, 6, alpha='auto')");
    assert!(m.contains("integer=6: exceeds bits=4"), "{m}");
    let m = error("qkeras.quantized_relu(4, 6)");
    assert!(m.contains("integer=6: exceeds bits=4"), "{m}");
}

#[test]
fn quantized_bits_takes_more_integer_bits_than_bits_as_qkeras_does() {
    // QKeras' own test_quantized_bits uses quantized_bits(8, 100, 1, True): a step of 2^93.
    let q = parse("qkeras.quantized_bits(8, 100, 1, True)").unwrap();
    assert_eq!(q.to_string(), "qkeras.quantized_bits(integer=100, symmetric=True)");
    assert!(error("qkeras.quantized_bits(8, 128)").contains("from 0 to 127"));
}

#[test]
fn nan_parameters_are_rejected() {
    let m = error("larq.SwishSign(beta=nan)");
    assert!(m.contains("beta") && m.contains("NaN"), "{m}");
    let m = error("qkeras.quantized_bits(4, alpha=nan)");
    assert!(m.contains("alpha"), "{m}");
}

#[test]
fn wrong_types_are_rejected() {
    let m = error("qkeras.quantized_bits(bits='four')");
    assert!(m.contains("bits=") && m.contains("expected an integer"), "{m}");
    let m = error("qkeras.quantized_bits(4, alpha='max')");
    assert!(m.contains("'auto' or 'auto_po2'"), "{m}");
    let m = error("larq.DoReFa(mode='weight')");
    assert!(m.contains("'activations', 'weights'"), "{m}");
}

#[test]
fn syntax_errors_point_at_the_problem() {
    assert!(error("quantized_bits(4,0,1) extra").contains("unexpected text 'extra'"));
    assert!(error("quantized_bits(4,0").contains("unexpected end"));
    assert!(error("quantized_bits(4,,1)").contains("expected a value"));
    assert!(error("quantized_bits(4, alpha='auto)").contains("unterminated string"));
    assert!(error("").contains("expected a quantizer name"));
    assert!(error("quantized_bits(4,alpha=1,0)").contains("positional argument 3 follows a keyword"));
    assert!(error("quantized_bits(4, bits=4)").contains("'bits' is given twice"));
    assert!(error("larq.NoOp(1, 2)").contains("at most 1 positional"));
}

#[test]
fn cross_parameter_rules_of_the_library_hold() {
    assert!(error("qkeras.quantized_bits(4, min_po2_exponent=-3)").contains("only supported with alpha='auto_po2'"));
    assert!(error("qkeras.ternary(alpha='auto', threshold=0.3)").contains("threshold"));
    assert!(error("qkeras.quantized_relu_po2(4, negative_slope=0.3)").contains("power of two"));
    assert!(error("fake_quantize(0.1, 20, 0, 15)").contains("zero_point"));
    assert!(parse("qkeras.quantized_bits(4, alpha='auto_po2', min_po2_exponent=-3)").is_ok());
}

#[test]
fn alpha_kinds_are_distinguished() {
    let alpha = |s: &str| match parse(s).unwrap() {
        Quantizer::QuantizedBits(q) => q.alpha,
        _ => unreachable!(),
    };
    assert_eq!(alpha("quantized_bits(4)"), Alpha::None);
    assert_eq!(alpha("quantized_bits(4, alpha=0.5)"), Alpha::Value(0.5));
    assert_eq!(alpha("quantized_bits(4, alpha='auto')"), Alpha::Auto);
    assert_eq!(alpha("quantized_bits(4, alpha=\"auto_po2\")"), Alpha::AutoPo2);
}

#[test]
fn a_string_with_quotes_backslashes_or_line_breaks_prints_escaped_and_parses_back() {
    let q = parse(r#"qkeras.quantized_bits(var_name="it's a \\ b\n")"#).unwrap();
    assert_eq!(get(&q, "var_name"), Literal::Str("it's a \\ b\n".into()));
    assert_eq!(q.to_string(), r"qkeras.quantized_bits(var_name='it\'s a \\ b\n')");
    assert_eq!(parse(&q.to_string()).unwrap(), q);
}

#[test]
fn an_axis_list_holds_whole_numbers_only_so_it_prints_back() {
    assert_eq!(
        get(&parse("qkeras.quantized_bits(scale_axis=[0, 2])").unwrap(), "scale_axis"),
        Literal::List(vec![0.0, 2.0])
    );
    for bad in ["[1.5]", "[1e400]"] {
        let e = error(&format!("qkeras.quantized_linear(scale_axis={bad})"));
        assert!(e.contains("expected None, an integer or a list of integers"), "{e}");
    }
    let mut q = parse("qkeras.quantized_linear").unwrap();
    assert!(q.set("scale_axis", &Literal::List(vec![f64::NAN])).is_err());
}

/// Spec-like text: a catalogue name and arguments drawn from values the parameters take.
fn spec_like() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let names: Vec<String> = ENTRIES.iter().map(|e| e.info.qualified()).collect();
    let arg = prop_oneof![
        "-?[0-9]{1,2}(\\.[0-9]{1,3})?(e-?[0-9])?",
        prop::sample::select(vec!["True", "False", "None", "'auto'", "'auto_po2'", "inf", "nan", "[1, 2]", "'it\\'s'"])
            .prop_map(str::to_string),
    ];
    let keyed =
        (prop::option::of(prop::sample::select(vec!["bits", "alpha", "integer", "symmetric", "var_name"])), arg)
            .prop_map(|(k, v)| k.map_or(v.clone(), |k| format!("{k}={v}")));
    (prop::sample::select(names), prop::collection::vec(keyed, 0..4))
        .prop_map(|(name, args)| format!("{name}({})", args.join(", ")))
}

proptest::proptest! {
    #[test]
    fn spec_like_text_that_parses_prints_to_a_spec_of_the_same_quantizer(text in spec_like()) {
        if let Ok(q) = parse(&text) {
            let printed = q.to_string();
            proptest::prop_assert_eq!(parse(&printed).map_err(|e| e.message), Ok(q.clone()), "{} prints as {}", text, printed);
            proptest::prop_assert_eq!(parse(&printed).unwrap().to_string(), printed);
        }
    }
}
