//! A checkpoint scanned tensor by tensor: each tensor's SQNR under each compared quantizer, and
//! the SQNR over every element scanned (signal and noise summed over the tensors). `qscope scan`
//! and the page's "Scan all tensors" compute the same rows here; the page sorts them.

use crate::formats::compare_in;
use crate::state::Slot;
use crate::wire_struct;
use qscope_quant::parse;
use qscope_quant::shaped::Shape;
use qscope_tensors::Tensor;

/// A scan as the page's worker runs it: the tensors by name, in order, and the compared slots
/// (each slot's spec and whether it is hidden).
#[derive(Clone, Debug, PartialEq)]
pub struct Job {
    pub names: Vec<String>,
    pub slots: Vec<(String, bool)>,
    pub training: bool,
    pub seed: u64,
}

impl Job {
    /// The job's slots, parsed.
    pub fn slots(&self) -> Result<Vec<Slot>, String> {
        self.slots
            .iter()
            .map(|(spec, hidden)| {
                parse(spec).map(|quantizer| Slot { quantizer, hidden: *hidden }).map_err(|e| format!("{spec}: {e}"))
            })
            .collect()
    }
}

wire_struct!(Job { names, slots, training, seed });
wire_struct!(Scanned { name, shape, dtype, elements, sqnr, signal, noise, count });

/// One tensor's figures.
#[derive(Clone, Debug, PartialEq)]
pub struct Scanned {
    pub name: String,
    pub shape: Vec<usize>,
    pub dtype: String,
    pub elements: u64,
    /// SQNR in dB per compared quantizer, in slot order (+∞ where lossless).
    pub sqnr: Vec<f64>,
    /// Σx² over the finite elements.
    pub signal: f64,
    /// Σ(x − q(x))² per quantizer.
    pub noise: Vec<f64>,
    /// Finite elements counted.
    pub count: usize,
}

/// The figures of one tensor (each quantizer given it as its library would a weight of its
/// shape); the outputs are written to `scratch` ([`compare_in`]).
pub fn scan(
    name: &str,
    dtype: &str,
    slots: &[Slot],
    training: bool,
    seed: u64,
    tensor: &Tensor,
    scratch: &mut Vec<f32>,
) -> Scanned {
    let (values, shape) = (&tensor.values[..], Shape::new(tensor.shape.clone()));
    let compared = compare_in(slots, training, seed, values, &shape, scratch);
    let (rows, signal, count) = (compared.rows, compared.signal, compared.finite);
    Scanned {
        name: name.into(),
        shape: shape.dims.clone(),
        dtype: dtype.into(),
        elements: values.len() as u64,
        sqnr: rows.iter().map(|r| r.sqnr_db).collect(),
        signal,
        noise: rows.iter().map(|r| r.mse * count as f64).collect(),
        count,
    }
}

/// The SQNR per quantizer over every element of `rows`.
pub fn pooled(rows: &[Scanned]) -> Vec<f64> {
    let k = rows.first().map_or(0, |r| r.noise.len());
    let signal: f64 = rows.iter().map(|r| r.signal).sum();
    (0..k)
        .map(|i| {
            let noise: f64 = rows.iter().map(|r| r.noise[i]).sum();
            if noise == 0.0 { f64::INFINITY } else { 10.0 * (signal / noise).log10() }
        })
        .collect()
}

/// What the scan table is sorted by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SortBy {
    /// File order.
    File,
    Name,
    Elements,
    /// A quantizer's SQNR, worst first.
    Sqnr(usize),
}

/// `rows` sorted by `by` (ties in file order).
pub fn sorted(rows: &[Scanned], by: SortBy) -> Vec<&Scanned> {
    let mut v: Vec<(usize, &Scanned)> = rows.iter().enumerate().collect();
    match by {
        SortBy::File => {}
        SortBy::Name => v.sort_by(|a, b| a.1.name.cmp(&b.1.name).then(a.0.cmp(&b.0))),
        SortBy::Elements => v.sort_by(|a, b| b.1.elements.cmp(&a.1.elements).then(a.0.cmp(&b.0))),
        SortBy::Sqnr(i) => v.sort_by(|a, b| {
            let key = |r: &Scanned| r.sqnr.get(i).copied().filter(|s| !s.is_nan()).unwrap_or(f64::INFINITY);
            key(a.1).total_cmp(&key(b.1)).then(a.0.cmp(&b.0))
        }),
    }
    v.into_iter().map(|(_, r)| r).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{decode, encode};

    fn slots() -> Vec<Slot> {
        vec![Slot::new(parse("bnb.nf4").unwrap()), Slot::new(parse("ml_dtypes.float8_e4m3fn").unwrap())]
    }

    fn tensor(shape: Vec<usize>, spread: f32) -> Tensor {
        let n = shape.iter().product();
        let values = (0..n).map(|i| ((i * 37 % 101) as f32 / 50.0 - 1.0) * spread).collect();
        Tensor { values, shape, ..Tensor::default() }
    }

    #[test]
    fn a_job_and_its_rows_cross_to_the_worker_and_back() {
        let job = Job {
            names: vec!["a".into(), "b.weight".into()],
            slots: vec![("bnb.nf4".into(), false), ("ml_dtypes.float8_e4m3fn".into(), true)],
            training: true,
            seed: 9,
        };
        let back: Job = decode(&encode(&job)).unwrap();
        assert_eq!(back, job);
        assert_eq!(back.slots().unwrap()[1].quantizer, parse("ml_dtypes.float8_e4m3fn").unwrap());
        let row = scan("a", "BF16", &slots(), true, 0, &tensor(vec![16, 16], 1.0), &mut Vec::new());
        assert_eq!(decode::<Scanned>(&encode(&row)).unwrap(), row);
    }

    #[test]
    fn a_job_naming_a_quantizer_that_does_not_parse_says_which() {
        let job = Job { names: vec![], slots: vec![("bnb.nf9".into(), false)], training: false, seed: 0 };
        assert!(job.slots().unwrap_err().starts_with("bnb.nf9: "));
    }

    #[test]
    fn the_pooled_sqnr_lies_between_the_tensors_own() {
        let mut scratch = Vec::new();
        let rows = [
            scan("a", "F32", &slots(), true, 0, &tensor(vec![16, 16], 1.0), &mut scratch),
            scan("b", "F32", &slots(), true, 0, &tensor(vec![512], 0.01), &mut scratch),
        ];
        for (i, all) in pooled(&rows).iter().enumerate() {
            let (x, y) = (rows[0].sqnr[i], rows[1].sqnr[i]);
            assert!(*all >= x.min(y) - 1e-9 && *all <= x.max(y) + 1e-9, "{x} {y} {all}");
        }
    }

    #[test]
    fn a_reused_scratch_buffer_gives_the_numbers_of_a_fresh_one() {
        let mut scratch = vec![7.0; 4096];
        let t = tensor(vec![16, 16], 1.0);
        assert_eq!(
            scan("a", "F32", &slots(), true, 0, &t, &mut scratch),
            scan("a", "F32", &slots(), true, 0, &t, &mut Vec::new())
        );
    }

    #[test]
    fn sorting_by_a_quantizer_puts_the_worst_tensor_first() {
        let rows = vec![
            Scanned {
                name: "b".into(),
                shape: vec![],
                dtype: "F32".into(),
                elements: 1,
                sqnr: vec![20.0],
                signal: 1.0,
                noise: vec![0.01],
                count: 1,
            },
            Scanned {
                name: "a".into(),
                shape: vec![],
                dtype: "F32".into(),
                elements: 9,
                sqnr: vec![f64::INFINITY],
                signal: 1.0,
                noise: vec![0.0],
                count: 9,
            },
            Scanned {
                name: "c".into(),
                shape: vec![],
                dtype: "F32".into(),
                elements: 4,
                sqnr: vec![12.0],
                signal: 1.0,
                noise: vec![0.1],
                count: 4,
            },
        ];
        let names = |v: Vec<&Scanned>| v.iter().map(|r| r.name.clone()).collect::<Vec<_>>();
        assert_eq!(names(sorted(&rows, SortBy::Sqnr(0))), ["c", "b", "a"]);
        assert_eq!(names(sorted(&rows, SortBy::Name)), ["a", "b", "c"]);
        assert_eq!(names(sorted(&rows, SortBy::Elements)), ["a", "c", "b"]);
        assert_eq!(names(sorted(&rows, SortBy::File)), ["b", "a", "c"]);
    }
}
