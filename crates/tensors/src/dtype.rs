//! Element types and their conversion to float32, as `torch.Tensor.float()` converts them:
//! narrower floats widen exactly, float64 and integers wider than 24 bits round to the nearest
//! float32 (ties to even), booleans become 0 or 1.

/// An element type a tensor file can hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dtype {
    Bool,
    U8,
    I8,
    U16,
    I16,
    U32,
    I32,
    U64,
    I64,
    F16,
    BF16,
    F32,
    F64,
    /// float8_e4m3fn: no infinities, NaN is S.1111.111.
    F8E4M3,
    /// float8_e5m2: IEEE-like, with infinities.
    F8E5M2,
    /// float8_e8m0fnu: an exponent only, 2^(b−127), 0xFF is NaN (MX scales).
    F8E8M0,
}

/// How the bytes of one element are ordered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Endian {
    Little,
    Big,
}

impl Dtype {
    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            Dtype::Bool | Dtype::U8 | Dtype::I8 | Dtype::F8E4M3 | Dtype::F8E5M2 | Dtype::F8E8M0 => 1,
            Dtype::U16 | Dtype::I16 | Dtype::F16 | Dtype::BF16 => 2,
            Dtype::U32 | Dtype::I32 | Dtype::F32 => 4,
            Dtype::U64 | Dtype::I64 | Dtype::F64 => 8,
        }
    }

    /// The safetensors name ("F32", "BF16", "F8_E4M3"…).
    pub fn safetensors_name(self) -> &'static str {
        match self {
            Dtype::Bool => "BOOL",
            Dtype::U8 => "U8",
            Dtype::I8 => "I8",
            Dtype::U16 => "U16",
            Dtype::I16 => "I16",
            Dtype::U32 => "U32",
            Dtype::I32 => "I32",
            Dtype::U64 => "U64",
            Dtype::I64 => "I64",
            Dtype::F16 => "F16",
            Dtype::BF16 => "BF16",
            Dtype::F32 => "F32",
            Dtype::F64 => "F64",
            Dtype::F8E4M3 => "F8_E4M3",
            Dtype::F8E5M2 => "F8_E5M2",
            Dtype::F8E8M0 => "F8_E8M0",
        }
    }

    /// The dtype of a safetensors name.
    pub fn from_safetensors(name: &str) -> Option<Dtype> {
        Dtype::ALL.into_iter().find(|d| d.safetensors_name() == name)
    }

    /// Every dtype.
    pub const ALL: [Dtype; 16] = [
        Dtype::Bool,
        Dtype::U8,
        Dtype::I8,
        Dtype::U16,
        Dtype::I16,
        Dtype::U32,
        Dtype::I32,
        Dtype::U64,
        Dtype::I64,
        Dtype::F16,
        Dtype::BF16,
        Dtype::F32,
        Dtype::F64,
        Dtype::F8E4M3,
        Dtype::F8E5M2,
        Dtype::F8E8M0,
    ];

    /// Whether converting to float32 can round (float64, and integers wider than 24 bits): the
    /// listing says so.
    pub fn cast_rounds(self) -> bool {
        matches!(self, Dtype::F64 | Dtype::I32 | Dtype::U32 | Dtype::I64 | Dtype::U64)
    }

    /// Converts elements to float32, appending to `out`. `bytes.len()` is a multiple of
    /// [`Dtype::size`]; a trailing partial element is ignored.
    pub fn decode(self, endian: Endian, bytes: &[u8], out: &mut Vec<f32>) {
        // Each conversion is a loop of its own, the byte order decided outside it, so the
        // compiler can unroll (and vectorize) it: a bf16 checkpoint converts at memory speed.
        // Written into the spare room rather than pushed, so the loop has no capacity checks
        // (and vectorizes), and not zeroed first.
        macro_rules! each {
            ($n:literal, $f:expr) => {{
                let f = $f;
                let n = bytes.len() / $n;
                out.reserve(n);
                let room = &mut out.spare_capacity_mut()[..n];
                for (o, c) in room.iter_mut().zip(bytes.chunks_exact($n)) {
                    o.write(f(<[u8; $n]>::try_from(c).expect("chunks_exact")));
                }
                // SAFETY: the loop wrote all `n` elements of the room: `bytes` has `n` whole chunks.
                unsafe { out.set_len(out.len() + n) }
            }};
        }
        macro_rules! num {
            ($t:ty, $n:literal, $conv:expr) => {
                match endian {
                    Endian::Big => each!($n, |a: [u8; $n]| $conv(<$t>::from_be_bytes(a))),
                    Endian::Little => each!($n, |a: [u8; $n]| $conv(<$t>::from_le_bytes(a))),
                }
            };
        }
        match self {
            Dtype::Bool => each!(1, |a: [u8; 1]| if a[0] != 0 { 1.0 } else { 0.0 }),
            Dtype::U8 => each!(1, |a: [u8; 1]| f32::from(a[0])),
            Dtype::I8 => each!(1, |a: [u8; 1]| f32::from(a[0] as i8)),
            Dtype::F8E4M3 => each!(1, |a: [u8; 1]| e4m3(a[0])),
            Dtype::F8E5M2 => each!(1, |a: [u8; 1]| f16_bits(u16::from(a[0]) << 8)),
            Dtype::F8E8M0 => each!(1, |a: [u8; 1]| e8m0(a[0])),
            Dtype::U16 => num!(u16, 2, f32::from),
            Dtype::I16 => num!(i16, 2, f32::from),
            Dtype::F16 => num!(u16, 2, f16_bits),
            Dtype::BF16 => num!(u16, 2, |b: u16| f32::from_bits(u32::from(b) << 16)),
            // `as` rounds an integer or a float64 to the nearest float32, ties to even: what
            // torch's `.float()` (a C cast) does.
            Dtype::U32 => num!(u32, 4, |v: u32| v as f32),
            Dtype::I32 => num!(i32, 4, |v: i32| v as f32),
            Dtype::F32 => num!(u32, 4, f32::from_bits),
            Dtype::U64 => num!(u64, 8, |v: u64| v as f32),
            Dtype::I64 => num!(i64, 8, |v: i64| v as f32),
            Dtype::F64 => num!(u64, 8, |b: u64| f64::from_bits(b) as f32),
        }
    }

    /// How many elements of `bytes` the conversion to float32 changes (NaN counts as kept).
    pub fn rounded(self, endian: Endian, bytes: &[u8]) -> usize {
        let big = endian == Endian::Big;
        macro_rules! count {
            ($t:ty, $n:literal, $changed:expr) => {
                bytes
                    .chunks_exact($n)
                    .filter(|c| {
                        let a: [u8; $n] = (*c).try_into().expect("chunks_exact");
                        let v = if big { <$t>::from_be_bytes(a) } else { <$t>::from_le_bytes(a) };
                        $changed(v)
                    })
                    .count()
            };
        }
        match self {
            Dtype::U32 => count!(u32, 4, |v: u32| u64::from(v) != (v as f32) as u64),
            Dtype::I32 => count!(i32, 4, |v: i32| i64::from(v) != (v as f32) as i64),
            // Through i128, so 2^63 (what i64::MAX rounds to) compares as itself.
            Dtype::U64 => count!(u64, 8, |v: u64| i128::from(v) != (v as f32) as i128),
            Dtype::I64 => count!(i64, 8, |v: i64| i128::from(v) != (v as f32) as i128),
            Dtype::F64 => count!(u64, 8, |b: u64| {
                let v = f64::from_bits(b);
                !v.is_nan() && f64::from(v as f32) != v
            }),
            _ => 0,
        }
    }
}

/// IEEE half precision bits to float32 (exact).
pub fn f16_bits(h: u16) -> f32 {
    let sign = u32::from(h >> 15) << 31;
    let exp = u32::from((h >> 10) & 0x1f);
    let man = u32::from(h & 0x3ff);
    let bits = match (exp, man) {
        (0, 0) => sign,
        // Subnormal: man · 2^−24, exact in float32.
        (0, m) => return sign_of(sign) * (m as f32) * f32::from_bits(0x3380_0000),
        (0x1f, 0) => sign | 0x7f80_0000,
        (0x1f, m) => sign | 0x7fc0_0000 | (m << 13),
        (e, m) => sign | ((e + 112) << 23) | (m << 13),
    };
    f32::from_bits(bits)
}

fn sign_of(sign: u32) -> f32 {
    if sign != 0 { -1.0 } else { 1.0 }
}

/// float8_e4m3fn to float32 (exact): bias 7, no infinities, S.1111.111 is NaN.
pub fn e4m3(b: u8) -> f32 {
    let s = sign_of(u32::from(b >> 7));
    let exp = i32::from((b >> 3) & 0xf);
    let man = f32::from(b & 7);
    if exp == 0xf && b & 7 == 7 {
        return f32::NAN.copysign(s);
    }
    if exp == 0 { s * man * (2.0f32).powi(-9) } else { s * (1.0 + man / 8.0) * (2.0f32).powi(exp - 7) }
}

/// float8_e8m0fnu to float32 (exact): 2^(b−127); 0xFF is NaN.
pub fn e8m0(b: u8) -> f32 {
    match b {
        0xff => f32::NAN,
        // 2^−127 is a float32 subnormal.
        0 => f32::from_bits(0x0040_0000),
        b => f32::from_bits(u32::from(b) << 23),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(d: Dtype, bytes: &[u8]) -> f32 {
        let mut v = Vec::new();
        d.decode(Endian::Little, bytes, &mut v);
        v[0]
    }

    #[test]
    fn half_precision_widens_exactly_at_its_edges() {
        assert_eq!(f16_bits(0x0001), 2f32.powi(-24));
        assert_eq!(f16_bits(0x8001), -(2f32.powi(-24)));
        assert_eq!(f16_bits(0x03ff), 1023.0 * 2f32.powi(-24));
        assert_eq!(f16_bits(0x7bff), 65504.0);
        assert_eq!(f16_bits(0x3c00), 1.0);
        assert_eq!(f16_bits(0xfc00), f32::NEG_INFINITY);
        assert!(f16_bits(0x7e00).is_nan());
        assert_eq!(f16_bits(0x8000).to_bits(), 0x8000_0000);
    }

    #[test]
    fn float8_e4m3_has_no_infinity_and_tops_out_at_448() {
        assert_eq!(e4m3(0x7e), 448.0);
        assert!(e4m3(0x7f).is_nan() && e4m3(0xff).is_nan());
        assert_eq!(e4m3(0x01), 2f32.powi(-9));
        assert_eq!(e4m3(0x38), 1.0);
        assert_eq!(e4m3(0x80).to_bits(), 0x8000_0000);
    }

    #[test]
    fn float8_e5m2_is_the_top_byte_of_a_half() {
        assert_eq!(one(Dtype::F8E5M2, &[0x7b]), 57344.0);
        assert_eq!(one(Dtype::F8E5M2, &[0x7c]), f32::INFINITY);
        assert_eq!(one(Dtype::F8E5M2, &[0x01]), 2f32.powi(-16));
    }

    #[test]
    fn e8m0_is_a_power_of_two() {
        assert_eq!(e8m0(127), 1.0);
        assert_eq!(e8m0(0), 2f32.powi(-127));
        assert_eq!(e8m0(254), 2f32.powi(127));
        assert!(e8m0(255).is_nan());
    }

    #[test]
    fn wide_integers_round_to_nearest_even_and_are_counted() {
        let v = (1i64 << 24) + 1;
        assert_eq!(one(Dtype::I64, &v.to_le_bytes()), (1u32 << 24) as f32);
        let v = (1i64 << 24) + 3;
        assert_eq!(one(Dtype::I64, &v.to_le_bytes()), ((1u32 << 24) + 4) as f32);
        let bytes: Vec<u8> =
            [1i64 << 24, (1 << 24) + 1, i64::MAX, i64::MIN].iter().flat_map(|v| v.to_le_bytes()).collect();
        assert_eq!(Dtype::I64.rounded(Endian::Little, &bytes), 2);
    }

    #[test]
    fn big_endian_and_little_endian_give_the_same_value() {
        let x = 1.5f64;
        let mut a = Vec::new();
        Dtype::F64.decode(Endian::Big, &x.to_be_bytes(), &mut a);
        Dtype::F64.decode(Endian::Little, &x.to_le_bytes(), &mut a);
        assert_eq!(a, [1.5, 1.5]);
    }

    #[test]
    fn float64_rounding_is_counted_but_not_nan() {
        let bytes: Vec<u8> = [0.1f64, 0.5, f64::NAN, 1e300].iter().flat_map(|v| v.to_le_bytes()).collect();
        assert_eq!(Dtype::F64.rounded(Endian::Little, &bytes), 2);
    }
}
