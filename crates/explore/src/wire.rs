//! The bytes the page and its worker exchange ([`crate::analysis`]): each value written field
//! by field, little-endian, lengths before contents. A reader never trusts what it reads: a
//! short, long or inconsistent message is an [`Err`] naming what was being read, never a panic
//! or an allocation the message's own length does not pay for.

use crate::blocks::BlockRow;
use crate::channels::ChannelStat;
use crate::formats::{Compared, Row};
use crate::metrics::Quality;
use crate::sample::{Histogram, Outputs};
use qscope_nn::table::Table;
use qscope_quant::{Block, Levels, Report};

/// What a message failed on.
pub type WireError = String;

/// Bytes being written.
#[derive(Default)]
pub struct Writer(pub Vec<u8>);

/// Bytes being read, from the front.
pub struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader(bytes)
    }

    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], WireError> {
        if self.0.len() < n {
            return Err(format!("message ends inside {what}"));
        }
        let (head, tail) = self.0.split_at(n);
        self.0 = tail;
        Ok(head)
    }

    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N], WireError> {
        Ok(self.take(N, what)?.try_into().expect("took N bytes"))
    }

    /// A length of items of at least `each` bytes, checked against what is left.
    fn len(&mut self, each: usize) -> Result<usize, WireError> {
        let n = u64::from_le_bytes(self.array("a length")?);
        match usize::try_from(n) {
            Ok(n) if n.saturating_mul(each.max(1)) <= self.0.len() => Ok(n),
            _ => Err(format!("a length of {n} is longer than the message")),
        }
    }

    /// The value `T` at the front.
    pub fn read<T: Wire>(&mut self) -> Result<T, WireError> {
        T::get(self)
    }

    /// Whether every byte was read (a message with bytes left over is malformed).
    pub fn done(&self) -> Result<(), WireError> {
        if self.0.is_empty() { Ok(()) } else { Err(format!("{} bytes left over", self.0.len())) }
    }
}

/// A value that crosses to the worker and back.
pub trait Wire: Sized {
    fn put(&self, w: &mut Writer);
    fn get(r: &mut Reader) -> Result<Self, WireError>;
}

/// `value` as bytes.
pub fn encode<T: Wire>(value: &T) -> Vec<u8> {
    let mut w = Writer::default();
    value.put(&mut w);
    w.0
}

/// The one value in `bytes`.
pub fn decode<T: Wire>(bytes: &[u8]) -> Result<T, WireError> {
    let mut r = Reader::new(bytes);
    let v = r.read()?;
    r.done()?;
    Ok(v)
}

macro_rules! numbers {
    ($($t:ty),*) => {$(
        impl Wire for $t {
            fn put(&self, w: &mut Writer) {
                w.0.extend_from_slice(&self.to_le_bytes());
            }
            fn get(r: &mut Reader) -> Result<Self, WireError> {
                Ok(<$t>::from_le_bytes(r.array(stringify!($t))?))
            }
        }
    )*};
}
numbers!(u8, u32, u64, i64, f32, f64);

impl Wire for usize {
    fn put(&self, w: &mut Writer) {
        (*self as u64).put(w);
    }
    fn get(r: &mut Reader) -> Result<Self, WireError> {
        let n = u64::get(r)?;
        usize::try_from(n).map_err(|_| format!("{n} does not fit a usize"))
    }
}

impl Wire for bool {
    fn put(&self, w: &mut Writer) {
        u8::from(*self).put(w);
    }
    fn get(r: &mut Reader) -> Result<Self, WireError> {
        match u8::get(r)? {
            0 => Ok(false),
            1 => Ok(true),
            b => Err(format!("{b} is not a bool")),
        }
    }
}

impl Wire for String {
    fn put(&self, w: &mut Writer) {
        self.len().put(w);
        w.0.extend_from_slice(self.as_bytes());
    }
    fn get(r: &mut Reader) -> Result<Self, WireError> {
        let n = r.len(1)?;
        let bytes = r.take(n, "a string")?;
        String::from_utf8(bytes.to_vec()).map_err(|_| "a string that is not UTF-8".to_string())
    }
}

impl<T: Wire> Wire for Option<T> {
    fn put(&self, w: &mut Writer) {
        self.is_some().put(w);
        if let Some(v) = self {
            v.put(w);
        }
    }
    fn get(r: &mut Reader) -> Result<Self, WireError> {
        Ok(if bool::get(r)? { Some(T::get(r)?) } else { None })
    }
}

impl<T: Wire> Wire for Vec<T> {
    fn put(&self, w: &mut Writer) {
        self.len().put(w);
        self.iter().for_each(|v| v.put(w));
    }
    fn get(r: &mut Reader) -> Result<Self, WireError> {
        let n = r.len(1)?;
        let mut v = Vec::with_capacity(n);
        for _ in 0..n {
            v.push(T::get(r)?);
        }
        Ok(v)
    }
}

impl<A: Wire, B: Wire> Wire for (A, B) {
    fn put(&self, w: &mut Writer) {
        self.0.put(w);
        self.1.put(w);
    }
    fn get(r: &mut Reader) -> Result<Self, WireError> {
        Ok((A::get(r)?, B::get(r)?))
    }
}

/// Writes and reads a struct field by field, in the order named.
#[macro_export]
macro_rules! wire_struct {
    ($t:ty { $($f:ident),* $(,)? }) => {
        impl $crate::wire::Wire for $t {
            fn put(&self, w: &mut $crate::wire::Writer) {
                $($crate::wire::Wire::put(&self.$f, w);)*
            }
            fn get(r: &mut $crate::wire::Reader) -> Result<Self, $crate::wire::WireError> {
                Ok(Self { $($f: r.read()?),* })
            }
        }
    };
}

wire_struct!(Block { len, amax, scale, code, zero_point });

/// The names of learnable parameters a report gives gradients for (a report names them as
/// `&'static str`; the bytes carry the name, read back to the same static text).
const PARAMETERS: [&str; 6] = ["alpha", "step", "clip", "scale", "threshold", "zero_point"];

impl Wire for Report {
    fn put(&self, w: &mut Writer) {
        self.scale.put(w);
        self.threshold.put(w);
        self.amax.put(w);
        self.blocks.put(w);
        let grads: Vec<(String, f32)> = self.param_grads.iter().map(|(n, g)| (n.to_string(), *g)).collect();
        grads.put(w);
        self.stochastic.put(w);
    }
    fn get(r: &mut Reader) -> Result<Self, WireError> {
        let (scale, threshold, amax, blocks) = (r.read()?, r.read()?, r.read()?, r.read()?);
        let grads: Vec<(String, f32)> = r.read()?;
        let param_grads = grads
            .into_iter()
            .map(|(n, g)| match PARAMETERS.iter().find(|p| **p == n) {
                Some(p) => Ok((*p, g)),
                None => Err(format!("no parameter is called {n:?}")),
            })
            .collect::<Result<_, _>>()?;
        Ok(Report { scale, threshold, amax, blocks, param_grads, stochastic: r.read()? })
    }
}

impl Wire for Levels {
    fn put(&self, w: &mut Writer) {
        match self {
            Levels::Uniform { lo, step, count } => (0u8, *lo, *step, *count).put(w),
            Levels::Set(v) => {
                1u8.put(w);
                v.put(w);
            }
            Levels::Grid { step } => (2u8, *step).put(w),
            Levels::Continuous => 3u8.put(w),
        }
    }
    fn get(r: &mut Reader) -> Result<Self, WireError> {
        Ok(match u8::get(r)? {
            0 => Levels::Uniform { lo: r.read()?, step: r.read()?, count: r.read()? },
            1 => Levels::Set(r.read()?),
            2 => Levels::Grid { step: r.read()? },
            3 => Levels::Continuous,
            k => return Err(format!("{k} is not a kind of levels")),
        })
    }
}

impl<A: Wire, B: Wire, C: Wire, D: Wire> Wire for (A, B, C, D) {
    fn put(&self, w: &mut Writer) {
        self.0.put(w);
        self.1.put(w);
        self.2.put(w);
        self.3.put(w);
    }
    fn get(r: &mut Reader) -> Result<Self, WireError> {
        Ok((r.read()?, r.read()?, r.read()?, r.read()?))
    }
}

impl Wire for Outputs {
    fn put(&self, w: &mut Writer) {
        match self {
            Outputs::Stems(s) => {
                0u8.put(w);
                s.put(w);
            }
            Outputs::Bins(h) => {
                1u8.put(w);
                h.put(w);
            }
        }
    }
    fn get(r: &mut Reader) -> Result<Self, WireError> {
        Ok(match u8::get(r)? {
            0 => Outputs::Stems(r.read()?),
            1 => Outputs::Bins(r.read()?),
            k => return Err(format!("{k} is not a kind of outputs")),
        })
    }
}

wire_struct!(Histogram { lo, hi, counts, below, above });
wire_struct!(Quality { mse, sqnr_db, levels_used, clip_fraction, count });
wire_struct!(ChannelStat { index, amax, sqnr_db, scale });
wire_struct!(BlockRow { index, block, codes_used, codes, quality });
wire_struct!(Row { slot, spec, label, bits, mse, sqnr_db, not_finite });
wire_struct!(Compared { rows, signal, finite });

/// A table (the user's CSV, read by the worker) crosses field by field and is checked again on
/// arrival ([`Table::new`]): a message cannot make a table the reader would have refused.
impl Wire for Table {
    fn put(&self, w: &mut Writer) {
        self.name.put(w);
        self.features.put(w);
        self.classes.put(w);
        self.x.put(w);
        self.y.put(w);
    }
    fn get(r: &mut Reader) -> Result<Self, WireError> {
        let (name, features, classes): (String, Vec<String>, Vec<String>) = (r.read()?, r.read()?, r.read()?);
        Table::new(&name, features, classes, r.read()?, r.read()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_table_comes_back_as_it_went_and_a_bad_one_is_refused() {
        let names = |n: &str, k: usize| (0..k).map(|i| format!("{n}{i}")).collect::<Vec<_>>();
        let x: Vec<f32> = (0..24).map(|i| i as f32 * 0.5 - 3.0).collect();
        let y: Vec<u8> = (0..12).map(|i| (i % 3) as u8).collect();
        let t = Table::new("t.csv", names("f", 2), names("c", 3), x.clone(), y).unwrap();
        let back: Table = decode(&encode(&t)).unwrap();
        assert_eq!((back.x.clone(), back.y.clone()), (t.x.clone(), t.y.clone()));
        assert_eq!(back, t);
        let mut bad = Writer::default();
        ("t.csv".to_string(), (names("f", 2), names("c", 3))).put(&mut bad);
        (x, vec![7u8; 12]).put(&mut bad);
        assert_eq!(decode::<Table>(&bad.0).unwrap_err(), "t.csv: row 1 has class 7 of 3");
    }

    fn block(len: usize, amax: f32) -> Block {
        Block { len, amax, scale: amax / 6.0, code: Some(127), zero_point: None }
    }

    #[test]
    fn a_report_comes_back_as_it_went() {
        let report = Report {
            scale: Some(0.25),
            threshold: None,
            amax: Some(f32::NAN),
            blocks: vec![block(32, 1.5), block(7, -0.0)],
            param_grads: vec![("step", -3.5), ("alpha", 0.0)],
            stochastic: true,
        };
        let back: Report = decode(&encode(&report)).unwrap();
        assert_eq!(encode(&back), encode(&report), "every bit, NaN included");
        assert_eq!(back.param_grads, report.param_grads);
    }

    #[test]
    fn every_learnable_parameter_of_the_catalogue_has_a_name_on_the_wire() {
        let mut missing = Vec::new();
        for q in qscope_quant::ENTRIES.iter().map(|e| (e.default)()) {
            let x: Vec<f32> = (0..64).map(|i| (i as f32 - 31.5) / 16.0).collect();
            let report = q.eval(&x, &mut qscope_quant::Ctx::training(0)).2;
            missing.extend(report.param_grads.iter().map(|p| p.0).filter(|n| !PARAMETERS.contains(n)));
        }
        assert!(missing.is_empty(), "{missing:?}");
    }

    #[test]
    fn a_truncated_message_is_an_error_naming_what_it_ends_in() {
        let bytes = encode(&vec!["a".to_string(), "bc".to_string()]);
        for cut in 0..bytes.len() {
            assert!(decode::<Vec<String>>(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        assert_eq!(decode::<u32>(&[1, 2]).unwrap_err(), "message ends inside u32");
    }

    #[test]
    fn a_length_longer_than_the_message_is_refused_before_allocating() {
        let mut bytes = encode(&u64::MAX);
        bytes.push(0);
        assert!(decode::<Vec<u64>>(&bytes).unwrap_err().contains("longer than the message"));
    }

    #[test]
    fn bytes_left_over_make_a_message_malformed() {
        let mut bytes = encode(&7u32);
        bytes.push(0);
        assert_eq!(decode::<u32>(&bytes).unwrap_err(), "1 bytes left over");
    }

    proptest! {
        #[test]
        fn numbers_and_lists_round_trip(v in proptest::collection::vec((any::<u64>(), any::<f32>(), any::<Option<bool>>()), 0..20), s in ".*") {
            let value: Vec<(u64, (f32, Option<bool>))> = v.iter().map(|(a, b, c)| (*a, (*b, *c))).collect();
            let back: Vec<(u64, (f32, Option<bool>))> = decode(&encode(&value)).unwrap();
            let bits = |v: &[(u64, (f32, Option<bool>))]| v.iter().map(|(a, (b, c))| (*a, b.to_bits(), *c)).collect::<Vec<_>>();
            prop_assert_eq!(bits(&back), bits(&value));
            prop_assert_eq!(decode::<String>(&encode(&s)).unwrap(), s);
        }

        #[test]
        fn no_bytes_make_the_reader_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let _ = decode::<Report>(&bytes);
            let _ = decode::<Vec<(String, Option<f64>)>>(&bytes);
            let _ = decode::<crate::analysis::Ask>(&bytes);
            let _ = decode::<crate::analysis::Answer>(&bytes);
            let _ = decode::<crate::scan::Job>(&bytes);
            let _ = decode::<crate::scan::Scanned>(&bytes);
        }

        #[test]
        fn a_damaged_answer_is_refused_or_read_whole(at in 0usize..4096, byte in any::<u8>()) {
            // An answer with one byte changed: an error, or a value written as exactly those bytes
            // (every message has one reading).
            let values: Vec<f32> = (0..256).map(|i| ((i * 37 % 101) as f32 - 50.0) * 0.01).collect();
            let ask = crate::analysis::Ask::Run { spec: "torchao.nvfp4".into(), training: false, seed: 0, axis: None, channel: 0 };
            let mut bytes = encode(&crate::analysis::answer(&ask, &[16, 16], &values, &mut |_, _| {}).unwrap());
            let at = at % bytes.len();
            bytes[at] = byte;
            if let Ok(a) = decode::<crate::analysis::Answer>(&bytes) {
                prop_assert_eq!(encode(&a), bytes);
            }
        }
    }
}
