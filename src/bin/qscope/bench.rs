//! `qscope bench`: native throughput of the benchmark kernels.

/// Native throughput of the benchmark kernels and of a plain copy, as JSON rows
/// (the format of target/bench.json).
pub(crate) fn bench(args: &[String]) -> Result<(), String> {
    use qscope::bench::{KERNELS, Workload, median};
    use std::time::Instant;
    let mut sizes = vec![1_000_000usize, 4_000_000];
    let mut reps = 15usize;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let v = it.next().ok_or_else(|| format!("{a} needs a value"))?;
        match a.as_str() {
            "--n" => {
                sizes = v
                    .split(',')
                    .map(|s| s.trim().parse().map_err(|_| format!("--n {v}: expected sizes")))
                    .collect::<Result<_, _>>()?
            }
            "--reps" => reps = v.parse().map_err(|_| format!("--reps {v}: expected a count"))?,
            _ => return Err(format!("unknown option '{a}' for bench")),
        }
    }
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
        let mut w = Workload::new(KERNELS[0], n)?;
        let copy = time(&mut w, &|w| w.copy());
        rows.push(format!(r#"{{"kernel":"copy","pass":"forward","impl":"copy","runtime":"native","n":{n},"elements_per_s":{copy:.0}}}"#));
        for spec in KERNELS {
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
