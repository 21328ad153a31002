//! The native `qscope` command line.

use crate::common::cli;

use cli::{qscope, stderr, stdout};

#[test]
fn eval_prints_x_y_and_dydx_per_input() {
    let o = qscope(&["eval", "qkeras.quantized_bits(4,0,1)"], "0.3 -2\n0.1875");
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "0.3 0.25 1\n-2 -0.875 1\n0.1875 0.25 1\n");
}

#[test]
fn eval_accepts_non_finite_inputs() {
    let o = qscope(&["eval", "larq.SteSign"], "nan inf -inf");
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "nan nan 0\ninf 1 0\n-inf -1 0\n");
    let o = qscope(&["eval", "qkeras.quantized_bits(4,0,1)"], "inf -inf");
    assert_eq!(stdout(&o), "inf 0.875 1\n-inf -0.875 1\n");
}

#[test]
fn eval_rejects_a_bad_spec_with_one_line() {
    let o = qscope(&["eval", "qkeras.quantized_bitz(4)"], "1");
    assert!(!o.status.success());
    let e = stderr(&o);
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(e.contains("did you mean 'qkeras.quantized_bits'"), "{e}");
}

#[test]
fn eval_rejects_a_bad_number_naming_it() {
    let o = qscope(&["eval", "softround"], "1 2 abc");
    assert!(!o.status.success());
    assert!(stderr(&o).contains("input value 3 ('abc') is not a number"), "{}", stderr(&o));
}

#[test]
fn eval_seed_fixes_the_random_stream() {
    let x = "0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8 -0.1 -0.2 -0.3 -0.4 -0.5 -0.6";
    let run = |seed: &str| stdout(&qscope(&["eval", "qkeras.stochastic_round(precision=0.5)", "--seed", seed], x));
    assert_eq!(run("7"), run("7"));
    assert_ne!(run("7"), run("8"));
}

#[test]
fn eval_infer_switches_stochastic_quantizers_to_inference() {
    let x = "-0.2 -0.1 0.1 0.2";
    let a = stdout(&qscope(&["eval", "qkeras.stochastic_binary", "--infer", "--seed", "1"], x));
    let b = stdout(&qscope(&["eval", "qkeras.stochastic_binary", "--infer", "--seed", "2"], x));
    assert_eq!(a, b);
    let ys: Vec<&str> = a.lines().map(|l| l.split(' ').nth(1).unwrap()).collect();
    assert_eq!(ys, vec!["-1", "-1", "1", "1"]);
}

#[test]
fn eval_report_prints_the_data_dependent_scale() {
    let o = qscope(&["eval", "qkeras.ternary(alpha='auto')", "--report"], "-2 -1 0 1 2");
    assert!(stderr(&o).contains("# scale "), "{}", stderr(&o));
    assert!(stderr(&o).contains("# threshold "), "{}", stderr(&o));
}

#[test]
fn list_covers_every_quantizer() {
    let o = qscope(&["list"], "");
    let out = stdout(&o);
    for e in qscope_quant::ENTRIES {
        assert!(out.contains(&format!("  {}", e.info.qualified())), "missing {}", e.info.qualified());
    }
    assert!(out.contains("bits") && out.contains("= 8"));
}

#[test]
fn unknown_commands_fail_with_a_hint() {
    let o = qscope(&["evaluate"], "");
    assert!(!o.status.success());
    assert!(stderr(&o).contains("unknown command 'evaluate'"));
}

#[test]
fn eval_reports_what_the_library_refuses_in_training() {
    let o = qscope(&["eval", "qkeras.stochastic_ternary"], "0.5");
    assert!(!o.status.success());
    assert!(stderr(&o).contains("needs alpha='auto' or 'auto_po2' in training"), "{}", stderr(&o));
    let o = qscope(&["eval", "qkeras.stochastic_ternary", "--infer"], "0.5 0.1");
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn bench_prints_one_json_row_per_measurement() {
    let o = qscope(&["bench", "--n", "1000,2000", "--reps", "3"], "");
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let rows: Vec<&str> = out.lines().filter(|l| l.starts_with('{')).collect();
    // Per size: one copy row and forward + forward_backward for each benchmark kernel.
    assert_eq!(rows.len(), 2 * (1 + qscope_bench::kernels().len() * 2), "{out}");
    for key in [
        "\"kernel\":",
        "\"pass\":",
        "\"impl\":\"native\"",
        "\"runtime\":\"native\"",
        "\"n\":1000",
        "\"elements_per_s\":",
    ] {
        assert!(out.contains(key), "missing {key} in {out}");
    }
}

#[test]
fn code_prints_the_snippet_of_the_specs_own_library_by_default() {
    use qscope_explore::code::{Framework, snippet_in};
    for (spec, native) in [("qkeras.quantized_bits(4,0,1)", "qkeras"), ("larq.SteSign", "larq"), ("lsq", "pytorch")] {
        let q = qscope_quant::parse(spec).unwrap();
        assert_eq!(Framework::native(&q).key(), native);
        let o = qscope(&["code", spec], "");
        assert!(o.status.success(), "{spec}: {}", stderr(&o));
        assert_eq!(stdout(&o), format!("{}\n", snippet_in(&q, Framework::native(&q)).unwrap()), "{spec}");
    }
}

#[test]
fn code_prints_exactly_what_the_explorer_offers_in_each_language() {
    use qscope_explore::code::snippet;
    for spec in ["larq.SteSign", "lsq(bits=4, step=0.1)", "qkeras.binary"] {
        let q = qscope_quant::parse(spec).unwrap();
        for (lang, text) in snippet(&q) {
            let o = qscope(&["code", spec, "--lang", lang.key()], "");
            assert!(o.status.success(), "{spec} {}: {}", lang.key(), stderr(&o));
            assert_eq!(stdout(&o), format!("{text}\n"), "{spec} {}", lang.key());
        }
    }
}

#[test]
fn code_refuses_a_language_that_cannot_express_the_spec_with_one_line() {
    let o = qscope(&["code", "larq.SteSign", "--lang", "qkeras"], "");
    assert!(!o.status.success());
    assert_eq!(stderr(&o), "qscope: larq.SteSign is not a QKeras quantizer; try --lang larq\n");
    assert_eq!(stdout(&o), "");
}

#[test]
fn code_refuses_an_unknown_language_naming_the_known_ones() {
    let o = qscope(&["code", "larq.SteSign", "--lang", "rust"], "");
    assert!(!o.status.success());
    assert_eq!(stderr(&o), "qscope: --lang rust: unknown language; expected qkeras, larq, pytorch or cli\n");
}

#[test]
fn code_refuses_a_bad_spec_with_one_line() {
    let o = qscope(&["code", "qkeras.quantized_bitz(4)"], "");
    assert!(!o.status.success());
    assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("did you mean 'qkeras.quantized_bits'"), "{}", stderr(&o));
}

#[test]
fn code_help_lists_the_languages() {
    let o = qscope(&["code", "--help"], "");
    assert!(o.status.success());
    assert!(stdout(&o).contains("--lang LANG  qkeras|larq|pytorch|cli;"), "{}", stdout(&o));
}
