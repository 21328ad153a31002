//! `qscope bench`: native throughput of the benchmark kernels.

use crate::args::{Command, Opt, list, number};

pub(crate) const USAGE: &[(&str, &str)] =
    &[("bench [--n 1000000,4000000] [--reps 15]", "native throughput as JSON rows")];

struct BenchOptions {
    sizes: Vec<usize>,
    reps: usize,
}

fn command() -> Command<BenchOptions> {
    Command {
        name: "bench",
        about: "\
bench measures the benchmark kernels forward and forward + backward, and a plain copy, over
tensors of each size, and prints the median elements per second as JSON rows (the rows of
target/bench.json)."
            .into(),
        options: vec![
            Opt::value("--n", "N,...", "tensor sizes (default 1000000,4000000)", |o: &mut BenchOptions, v| {
                o.sizes = list("--n", v, |s| s.parse().map_err(|_| "expected sizes".to_string()))?;
                Ok(())
            }),
            Opt::value(
                "--reps",
                "N",
                "timed repetitions per row, the median is printed (default 15)",
                |o: &mut BenchOptions, v| {
                    o.reps = number("--reps", v, "a count")?;
                    Ok(())
                },
            ),
        ],
        max_free: Some(0),
        extra: "bench takes options only".into(),
    }
}

pub(crate) fn help() -> String {
    command().help()
}

/// Native throughput of the benchmark kernels and of a plain copy, as JSON rows
/// (the format of target/bench.json).
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    use qscope_bench::{Workload, kernels, median};
    use std::time::Instant;
    let mut o = BenchOptions { sizes: vec![1_000_000, 4_000_000], reps: 15 };
    command().parse(args, &mut o)?;
    let (sizes, reps) = (o.sizes, o.reps);
    let mut rows = Vec::new();
    let mut sink = 0.0;
    for &n in &sizes {
        let mut time = |w: &mut Workload, f: &dyn Fn(&mut Workload)| {
            f(w);
            f(w); // warm-up
            let t: Vec<f64> = (0..reps)
                .map(|_| {
                    let s = Instant::now();
                    f(w);
                    n as f64 / s.elapsed().as_secs_f64()
                })
                .collect();
            sink += w.checksum();
            median(t)
        };
        let kernels = kernels();
        let mut w = Workload::new(&kernels[0], n)?;
        let copy = time(&mut w, &|w| w.copy());
        rows.push(format!(r#"{{"kernel":"copy","pass":"forward","impl":"copy","runtime":"native","n":{n},"elements_per_s":{copy:.0}}}"#));
        for spec in &kernels {
            let mut w = Workload::new(spec, n)?;
            for (pass, f) in [
                ("forward", &(|w: &mut Workload| w.forward()) as &dyn Fn(&mut Workload)),
                ("forward_backward", &|w: &mut Workload| w.forward_backward()),
            ] {
                let eps = time(&mut w, f);
                rows.push(format!(r#"{{"kernel":"{spec}","pass":"{pass}","impl":"native","runtime":"native","n":{n},"elements_per_s":{eps:.0}}}"#));
            }
        }
    }
    println!("[\n{}\n]", rows.join(",\n"));
    if sink.is_nan() {
        eprintln!("(checksum {sink})");
    }
    Ok(())
}
