//! `qscope eval SPEC < numbers`: the first line is the spec (the default quantizer when it does
//! not parse), the rest the numbers. Never a panic; every output line reads back as the same
//! floats (as eval's input would), and the report's numbers and levels are made.
#![no_main]

use libfuzzer_sys::fuzz_target;
use qscope_explore::state::default_quantizer;
use qscope_quant::numbers::{parse_number, parse_numbers};
use qscope_quant::spec::fmt_f32;
use qscope_quant::{Ctx, parse};

fn same(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

fuzz_target!(|input: &str| {
    let (spec, numbers) = input.split_once('\n').unwrap_or(("", input));
    let q = parse(spec).unwrap_or_else(|_| default_quantizer());
    let Ok(x) = parse_numbers(numbers) else { return };
    for training in [true, false] {
        if q.unsupported(training).is_some() {
            continue;
        }
        let mut ctx = if training { Ctx::training(1) } else { Ctx::inference(1) };
        let (y, g, report) = q.eval(&x, &mut ctx);
        for i in 0..x.len() {
            for v in [x[i], y[i], g[i]] {
                let line = fmt_f32(v);
                let back = parse_number(&line, i).unwrap_or_else(|e| panic!("{v:?} prints as {line:?}: {e}"));
                assert!(same(back, v), "{v:?} prints as {line:?}, which reads as {back:?}");
            }
        }
        let levels = q.levels(&report);
        let _ = (levels.count(), levels.bounds());
    }
});
