//! A checkpoint scanned tensor by tensor: each tensor's SQNR under each compared quantizer, and
//! the SQNR over every element scanned (signal and noise summed over the tensors). `qscope scan`
//! and the page's "Scan all tensors" compute the same rows here; the page sorts them.

use crate::formats::{Compared, Streamed, compare_in};
use crate::state::Slot;
use crate::wire_struct;
use qscope_quant::parse;
use qscope_quant::shaped::Shape;
use qscope_tensors::{Info, Source, Tensor, read_into, read_pieces};

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
    scanned(
        name,
        dtype,
        shape.dims.clone(),
        values.len() as u64,
        compare_in(slots, training, seed, values, &shape, scratch),
    )
}

/// A scan's memory, kept from tensor to tensor: the system is asked for pages once, not for
/// every tensor.
#[derive(Default)]
pub struct Buffers {
    /// A tensor's values (whole, or the piece being fed).
    values: Vec<f32>,
    /// The quantized outputs.
    outputs: Vec<f32>,
}

/// The tensor `info` of `src`, read and scanned: fed to a [`Streamed`] comparison as it is read
/// where every quantizer can take it in pieces (the tensor never held as float32), else read
/// whole ([`scan`]); the same numbers either way.
pub async fn read_and_scan<S: Source + ?Sized>(
    src: &S,
    info: &Info,
    slots: &[Slot],
    (training, seed): (bool, u64),
    b: &mut Buffers,
) -> Result<Scanned, String> {
    let shape = Shape::new(info.shape.clone());
    if let Some((mut streamed, piece)) = Streamed::new(slots, training, seed, &shape) {
        let outputs = &mut b.outputs;
        if read_pieces(src, info, piece, &mut b.values, |x| streamed.feed(x, outputs)).await? {
            return Ok(scanned(&info.name, &info.stored, shape.dims, info.elements, streamed.finish()));
        }
    }
    let t = read_into(src, info, std::mem::take(&mut b.values)).await?;
    let row = scan(&info.name, &info.stored, slots, training, seed, &t, &mut b.outputs);
    b.values = t.values;
    Ok(row)
}

fn scanned(name: &str, dtype: &str, shape: Vec<usize>, elements: u64, compared: Compared) -> Scanned {
    let (rows, signal, count) = (compared.rows, compared.signal, compared.finite);
    Scanned {
        name: name.into(),
        shape,
        dtype: dtype.into(),
        elements,
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
    use qscope_tensors::{block_on, list};

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

    /// A safetensors file of one float32 tensor.
    fn file(t: &Tensor) -> Vec<u8> {
        let mut json = format!(
            "{{\"w\":{{\"dtype\":\"F32\",\"shape\":{:?},\"data_offsets\":[0,{}]}}}}",
            t.shape,
            t.values.len() * 4
        );
        while json.len() % 8 != 0 {
            json.push(' ');
        }
        let mut f = (json.len() as u64).to_le_bytes().to_vec();
        f.extend(json.bytes());
        f.extend(t.values.iter().flat_map(|v| v.to_le_bytes()));
        f
    }

    #[test]
    fn a_tensor_fed_piece_by_piece_as_it_is_read_gives_the_whole_tensors_bits() {
        let specs = [
            "ml_dtypes.float8_e4m3fn",
            "bnb.nf4",
            "torchao.mx(elem_dtype='fp4_e2m1')",
            "torchao.affine(mapping_type='asymmetric',group_size=32)",
            "larq.ste_sign",
        ];
        let mut slots: Vec<Slot> = specs.iter().map(|s| Slot::new(parse(s).unwrap())).collect();
        slots[3].hidden = true;
        // Rows of 1024 and of 11008 (an LLM's MLP width: MX's pieces of 44,032 elements, fed
        // 704,512 at a time, a multiple of every quantizer's pieces).
        for (shape, fed) in [(vec![96, 1024], 16_384), (vec![3, 5, 11_008], 704_512)] {
            let mut t = tensor(shape, 1.0);
            t.values[5000] = f32::NAN;
            t.values[77_777] = f32::INFINITY;
            let f = file(&t);
            let listing = block_on(list(&f[..])).unwrap();
            let (_, piece) =
                Streamed::new(&slots, true, 3, &Shape::new(t.shape.clone())).expect("every slot can be cut");
            assert_eq!(piece, fed, "{:?}", t.shape);
            let mut b = Buffers::default();
            let got = block_on(read_and_scan(&f[..], &listing.tensors[0], &slots, (true, 3), &mut b)).unwrap();
            assert!(b.values.capacity() <= fed, "held a piece at a time, never more");
            assert_eq!(got, scan("w", "F32", &slots, true, 3, &t, &mut Vec::new()), "{:?}", t.shape);
            assert_eq!(got.count, t.values.len() - 2);
        }
    }

    #[test]
    fn a_quantizer_that_needs_the_whole_tensor_reads_it_whole_with_the_same_rows() {
        let per_channel = "qkeras.quantized_bits(4,0,1,alpha='auto')";
        let slots = vec![Slot::new(parse("bnb.nf4").unwrap()), Slot::new(parse(per_channel).unwrap())];
        let t = tensor(vec![64, 512], 0.3);
        assert!(Streamed::new(&slots, true, 0, &Shape::new(t.shape.clone())).is_none());
        let f = file(&t);
        let listing = block_on(list(&f[..])).unwrap();
        let got = block_on(read_and_scan(&f[..], &listing.tensors[0], &slots, (true, 0), &mut Buffers::default()));
        assert_eq!(got.unwrap(), scan("w", "F32", &slots, true, 0, &t, &mut Vec::new()));
    }

    #[test]
    fn a_tensor_of_one_piece_or_less_is_compared_whole() {
        let t = tensor(vec![128], 1.0);
        assert!(Streamed::new(&slots(), true, 0, &Shape::new(t.shape.clone())).is_none());
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
