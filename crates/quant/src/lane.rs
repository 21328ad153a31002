//! One element or four: the arithmetic a kernel needs, written once for both.
//!
//! A kernel's math is a generic function over [`Lane`]; it runs on `f32` (the scalar
//! path, the tail of every slice, and every scalar computation of the kernels) and on
//! [`F32x4`] (WASM SIMD, `f32x4` v128 ops) and natively on `F32x8` (AVX2, where the build targets it). Every operation is the same IEEE operation in
//! both (round-half-even `nearest`, `floor`, `div`, comparisons, NaN-passing `clip`), so
//! the two paths are bit-identical. The rounding and sign rules below (`clip`, `sgn0`,
//! `ste_blend`, …) are the only definitions: scalar code calls them at `f32`. [`Wide`] puts
//! several lanes side by side as one (the products' wide tiles; `Wide<f32, 4>` is the portable
//! four-lane twin of `F32x4`). This is the crate's one SIMD abstraction — the elementwise
//! drivers ([`super::simd`]) and the dense layer products (`nn::linalg`) both compute on it.

use std::ops::{Add, BitAnd, BitOr, Div, Mul, Neg, Not, Sub};

#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
mod avx2;
mod ranged;
mod tf;
mod wide;
#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
pub use avx2::F32x8;
pub use ranged::exp_in_range;
pub(crate) use tf::exp_reduced;
pub use tf::{exp, log, sigmoid, tanh};
pub use wide::Wide;

/// A vector of `f32` lanes (or a single `f32`).
pub trait Lane:
    Copy + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self> + Div<Output = Self> + Neg<Output = Self>
{
    /// Per-lane booleans.
    type Mask: Copy + BitAnd<Output = Self::Mask> + BitOr<Output = Self::Mask> + Not<Output = Self::Mask>;

    /// Lanes in one value (1 for `f32`).
    const WIDTH: usize;

    fn splat(v: f32) -> Self;
    /// The first `WIDTH` values of `s` (`s.len() ≥ WIDTH`).
    fn load(s: &[f32]) -> Self;
    /// Into the first `WIDTH` values of `s` (`s.len() ≥ WIDTH`).
    fn store(self, s: &mut [f32]);
    /// Round half to even (`tf.round`).
    fn nearest(self) -> Self;
    fn floor(self) -> Self;
    fn abs(self) -> Self;
    fn sqrt(self) -> Self;
    /// `⌊log2 v⌋` of a positive normal `v`, from its exponent bits (as a float).
    fn exponent(self) -> Self;
    /// `v / 2^⌊log2 v⌋` ∈ [1, 2) of a positive normal `v`, from its mantissa bits.
    fn mantissa(self) -> Self;
    /// `2^⌊log2 v⌋` of a non-negative `v` from its exponent bits alone: 0 for zero and
    /// subnormals, +inf for +inf and NaN.
    fn binade(self) -> Self;
    /// The bits of `self` plus those of `o` as wrapping 32-bit integers (so `v.iadd(c).binade()`
    /// rounds a positive `v` up to the next power of two where `c` carries its mantissa over, and
    /// a table value is reached by adding the integer steps between its neighbours).
    fn iadd(self, o: Self) -> Self;
    /// `o < self ? o : self` (wasm's `pmin`: `self` where either is NaN).
    fn pmin(self, o: Self) -> Self;
    /// `self < o ? o : self` (wasm's `pmax`: `self` where either is NaN).
    fn pmax(self, o: Self) -> Self;
    /// `2^e` for integer-valued `e`: exact on [−126, 127], 0 below, +inf above.
    fn pow2(self) -> Self;
    /// `self`'s magnitude with `sign`'s sign bit (NaNs included: a NaN's sign bit is read too).
    fn copysign(self, sign: Self) -> Self;
    fn lt(self, o: Self) -> Self::Mask;
    fn le(self, o: Self) -> Self::Mask;
    fn gt(self, o: Self) -> Self::Mask;
    fn ge(self, o: Self) -> Self::Mask;
    /// `self == o` (false where either is NaN; `−0 == +0`).
    fn eq(self, o: Self) -> Self::Mask;
    /// `if m { a } else { b }` per lane.
    fn select(m: Self::Mask, a: Self, b: Self) -> Self;
    /// `self`'s magnitude with `sign`'s sign bit, flipped where `sign` is NaN (ml_dtypes'
    /// float6/float4 rule: a NaN becomes a zero of the other sign).
    fn copysign_nan_flipped(self, sign: Self) -> Self;
    /// Whether any lane of `m` is set (a kernel's rare slow path, taken per vector).
    fn any(m: Self::Mask) -> bool;
    /// Per lane, the operand whose bits are the larger signed 32-bit integer: for floats whose
    /// sign bit is clear, the larger, a NaN above +inf (a running `max|x|` in one integer op).
    fn imax(self, o: Self) -> Self;
    /// The bits of `self` and `o`, and-ed (`x.iand(-0.0)` is x's sign bit alone).
    fn iand(self, o: Self) -> Self;
    /// The bits of `self` and `o`, or-ed.
    fn ior(self, o: Self) -> Self;
    /// The bits of `self` and `o`, xor-ed.
    fn ixor(self, o: Self) -> Self;
    /// Per lane, whether `self`'s bits are the larger signed 32-bit integer (for floats whose
    /// sign bit is clear, `self > o` with a NaN above +inf: one `i32x4.gt_s`).
    fn igt(self, o: Self) -> Self::Mask;
    /// A mask's bits as lanes: all ones (−1 as an integer) where set, 0 elsewhere (a count of
    /// set lanes by [`Lane::iadd`], negated).
    fn mask_bits(m: Self::Mask) -> Self;

    /// Per lane, one of four values: `table[k]` where the lane's bits are `0x0302_0100 +
    /// k·0x0404_0404` (the byte offsets of `table[k]`, as `i8x16.swizzle` reads them — one
    /// instruction on F32x4, bytes ≥ 16 giving 0 there); bits 2–3 of the lane on the others.
    fn lookup4(table: [f32; 4], at: Self) -> Self;

    /// Per lane, the pair `table[k]` for `k` the lane's value, an integer in [0, 255] (NaN
    /// reads entry 0), as two vectors: each lane's pair is one 64-bit read (on F32x4 its
    /// index is converted and read four lanes at once, with no bounds check: the table has 256
    /// entries).
    fn lookup_pairs(table: &[[f32; 2]; 256], at: Self) -> (Self, Self);

    /// The lanes folded into one value by `f` as a tree of neighbours, lower lanes on the left:
    /// `f(f(l0, l1), f(l2, l3))` for four lanes (an odd lane out is carried up), the lane itself
    /// at `f32`. `f` is applied to whole vectors and only lane 0 of its result is read, so for
    /// `pmin`/`pmax` (which keep the left operand on a tie) the result is the first lane holding
    /// the extreme, as a left-to-right fold gives. F32x4 does it in two shuffles and two `f`s
    /// (a fold lane by lane through scalar selects costs branches in V8).
    #[inline(always)]
    fn reduce(self, f: impl Fn(Self, Self) -> Self) -> f32 {
        const MAX_WIDTH: usize = 64;
        assert!(Self::WIDTH <= MAX_WIDTH, "lanes wider than {MAX_WIDTH}");
        let mut lanes = [0.0f32; MAX_WIDTH];
        self.store(&mut lanes);
        let mut len = Self::WIDTH;
        while len > 1 {
            for i in 0..len / 2 {
                let mut out = [0.0f32; MAX_WIDTH];
                f(Self::splat(lanes[2 * i]), Self::splat(lanes[2 * i + 1])).store(&mut out);
                lanes[i] = out[0];
            }
            if len % 2 == 1 {
                lanes[len / 2] = lanes[len - 1];
            }
            len = len.div_ceil(2);
        }
        lanes[0]
    }
}

impl Lane for f32 {
    type Mask = bool;
    const WIDTH: usize = 1;

    #[inline(always)]
    fn splat(v: f32) -> Self {
        v
    }
    #[inline(always)]
    fn load(s: &[f32]) -> Self {
        s[0]
    }
    #[inline(always)]
    fn store(self, s: &mut [f32]) {
        s[0] = self;
    }
    #[inline(always)]
    fn nearest(self) -> Self {
        self.round_ties_even()
    }
    #[inline(always)]
    fn floor(self) -> Self {
        f32::floor(self)
    }
    #[inline(always)]
    fn binade(self) -> Self {
        f32::from_bits(self.to_bits() & 0x7f80_0000)
    }
    #[inline(always)]
    fn iadd(self, o: Self) -> Self {
        f32::from_bits(self.to_bits().wrapping_add(o.to_bits()))
    }
    #[inline(always)]
    fn pmin(self, o: Self) -> Self {
        if o < self { o } else { self }
    }
    #[inline(always)]
    fn pmax(self, o: Self) -> Self {
        if self < o { o } else { self }
    }
    #[inline(always)]
    fn abs(self) -> Self {
        f32::abs(self)
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        f32::sqrt(self)
    }
    #[inline(always)]
    fn exponent(self) -> Self {
        (((self.to_bits() >> 23) & 0xff) as i32 - 127) as f32
    }
    #[inline(always)]
    fn mantissa(self) -> Self {
        f32::from_bits((self.to_bits() & 0x007f_ffff) | 0x3f80_0000)
    }
    #[inline(always)]
    fn pow2(self) -> Self {
        // pmax/pmin order, as the SIMD path: NaN becomes −127.
        let a = if -127.0 < self { self } else { -127.0 };
        let e = (if 128.0 < a { 128.0 } else { a }) as i32;
        if e == -127 { 0.0 } else { f32::from_bits(((e + 127) as u32) << 23) }
    }
    #[inline(always)]
    fn copysign(self, sign: Self) -> Self {
        f32::copysign(self, sign)
    }
    #[inline(always)]
    fn lt(self, o: Self) -> bool {
        self < o
    }
    #[inline(always)]
    fn le(self, o: Self) -> bool {
        self <= o
    }
    #[inline(always)]
    fn gt(self, o: Self) -> bool {
        self > o
    }
    #[inline(always)]
    fn ge(self, o: Self) -> bool {
        self >= o
    }
    #[inline(always)]
    fn eq(self, o: Self) -> bool {
        self == o
    }
    #[inline(always)]
    fn select(m: bool, a: Self, b: Self) -> Self {
        if m { a } else { b }
    }
    #[inline(always)]
    fn copysign_nan_flipped(self, sign: Self) -> Self {
        f32::copysign(self, if sign.is_nan() { -sign } else { sign })
    }
    #[inline(always)]
    fn any(m: bool) -> bool {
        m
    }
    #[inline(always)]
    fn imax(self, o: Self) -> Self {
        if (o.to_bits() as i32) > (self.to_bits() as i32) { o } else { self }
    }
    #[inline(always)]
    fn iand(self, o: Self) -> Self {
        f32::from_bits(self.to_bits() & o.to_bits())
    }
    #[inline(always)]
    fn ior(self, o: Self) -> Self {
        f32::from_bits(self.to_bits() | o.to_bits())
    }
    #[inline(always)]
    fn ixor(self, o: Self) -> Self {
        f32::from_bits(self.to_bits() ^ o.to_bits())
    }
    #[inline(always)]
    fn igt(self, o: Self) -> bool {
        (self.to_bits() as i32) > (o.to_bits() as i32)
    }
    #[inline(always)]
    fn mask_bits(m: bool) -> Self {
        f32::from_bits((m as u32).wrapping_neg())
    }
    #[inline(always)]
    fn reduce(self, _: impl Fn(Self, Self) -> Self) -> f32 {
        self
    }
    #[inline(always)]
    fn lookup4(table: [f32; 4], at: Self) -> Self {
        table[(at.to_bits() >> 2) as usize & 3]
    }
    #[inline(always)]
    fn lookup_pairs(table: &[[f32; 2]; 256], at: Self) -> (Self, Self) {
        let [a, b] = table[at as usize & 255];
        (a, b)
    }
}

/// Keras `clip` / `tf.clip_by_value`: `min(max(v, lo), hi)`; NaN passes through.
/// `pmax`/`pmin` are exactly `v < lo ? lo : v` and `hi < a ? hi : a` (one instruction each).
#[inline(always)]
pub fn clip<V: Lane>(v: V, lo: V, hi: V) -> V {
    v.pmax(lo).pmin(hi)
}

/// Gradient mask of `clip`: 1 on `[lo, hi]` (both ends inclusive), else 0 (NaN → 0).
#[inline(always)]
pub fn inside<V: Lane>(v: V, lo: V, hi: V) -> V {
    V::select(v.ge(lo) & v.le(hi), V::splat(1.0), V::splat(0.0))
}

/// Sign with zero mapped to +1 (Larq's `sign`, QKeras' 1-bit paths); NaN stays NaN.
#[inline(always)]
pub fn sgn_plus<V: Lane>(v: V) -> V {
    V::select(v.lt(V::splat(0.0)), V::splat(-1.0), V::select(v.ge(V::splat(0.0)), V::splat(1.0), v))
}

/// `tf.sign`: −1, 0 (keeping ±0) or +1; NaN stays NaN (`v·0` keeps NaN and the zero's sign).
#[inline(always)]
pub fn sgn0<V: Lane>(v: V) -> V {
    let zero_or_nan = v * V::splat(0.0);
    V::select(v.gt(V::splat(0.0)), V::splat(1.0), V::select(v.lt(V::splat(0.0)), V::splat(-1.0), zero_or_nan))
}

/// QKeras' straight-through combination `x + stop_gradient(q·(xq − x))`, evaluated in
/// float32 as the library does, so values agree to the bit.
///
/// Where that expression is an artefact — `|x| > 2^20`, where `xq` is lost to
/// cancellation, and ±inf, where it gives NaN — qscope returns the intended value
/// `(1 − q)·x + q·xq` instead (see README, "Where qscope differs").
#[inline(always)]
pub fn ste_blend<V: Lane>(x: V, xq: V, q: f32) -> V {
    let lib = ste_lib(x, xq, q);
    let far = if q == 1.0 { xq } else { V::splat(1.0 - q) * x + V::splat(q) * xq };
    V::select(x.abs().le(V::splat(1_048_576.0)), lib, far)
}

/// [`ste_blend`]'s library expression alone: `ste_blend` itself where `|x| ≤ 2^20`.
#[inline(always)]
pub fn ste_lib<V: Lane>(x: V, xq: V, q: f32) -> V {
    // 1·d is d: no multiply for the usual q = 1.
    if q == 1.0 { x + (xq - x) } else { x + V::splat(q) * (xq - x) }
}

/// QKeras' `use_ste=False` combination `(1 − q)·x + stop_gradient(q·xq)`;
/// `one_minus_q` is `1 − q` as Python computes it before casting to float32.
#[inline(always)]
pub fn no_ste_blend<V: Lane>(x: V, xq: V, q: f32, one_minus_q: f32) -> V {
    if q == 1.0 { xq } else { V::splat(one_minus_q) * x + V::splat(q) * xq }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
pub use simd128::F32x4;

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd128 {
    use super::Lane;
    use core::arch::wasm32::*;
    use std::ops::{Add, BitAnd, BitOr, Div, Mul, Neg, Not, Sub};

    /// Four `f32` lanes in a WASM `v128`.
    #[derive(Clone, Copy, Debug)]
    pub struct F32x4(pub v128);

    /// Four lane masks (all ones / all zeros) in a `v128`.
    #[derive(Clone, Copy, Debug)]
    pub struct M32x4(pub v128);

    macro_rules! binop {
        ($tr:ident, $f:ident, $op:ident) => {
            impl $tr for F32x4 {
                type Output = F32x4;
                #[inline(always)]
                fn $f(self, o: F32x4) -> F32x4 {
                    F32x4($op(self.0, o.0))
                }
            }
        };
    }
    binop!(Add, add, f32x4_add);
    binop!(Sub, sub, f32x4_sub);
    binop!(Mul, mul, f32x4_mul);
    binop!(Div, div, f32x4_div);

    impl Neg for F32x4 {
        type Output = F32x4;
        #[inline(always)]
        fn neg(self) -> F32x4 {
            F32x4(f32x4_neg(self.0))
        }
    }

    impl BitAnd for M32x4 {
        type Output = M32x4;
        #[inline(always)]
        fn bitand(self, o: M32x4) -> M32x4 {
            M32x4(v128_and(self.0, o.0))
        }
    }

    impl BitOr for M32x4 {
        type Output = M32x4;
        #[inline(always)]
        fn bitor(self, o: M32x4) -> M32x4 {
            M32x4(v128_or(self.0, o.0))
        }
    }

    impl Not for M32x4 {
        type Output = M32x4;
        #[inline(always)]
        fn not(self) -> M32x4 {
            M32x4(v128_not(self.0))
        }
    }

    impl Lane for F32x4 {
        type Mask = M32x4;
        const WIDTH: usize = 4;

        #[inline(always)]
        fn splat(v: f32) -> Self {
            F32x4(f32x4_splat(v))
        }
        #[inline(always)]
        fn load(s: &[f32]) -> Self {
            assert!(s.len() >= 4);
            // SAFETY: four f32 are in bounds; v128 loads need no alignment.
            F32x4(unsafe { v128_load(s.as_ptr() as *const v128) })
        }
        #[inline(always)]
        fn store(self, s: &mut [f32]) {
            assert!(s.len() >= 4);
            // SAFETY: four f32 are in bounds; v128 stores need no alignment.
            unsafe { v128_store(s.as_mut_ptr() as *mut v128, self.0) }
        }
        #[inline(always)]
        fn nearest(self) -> Self {
            F32x4(f32x4_nearest(self.0))
        }
        #[inline(always)]
        fn floor(self) -> Self {
            F32x4(f32x4_floor(self.0))
        }
        #[inline(always)]
        fn binade(self) -> Self {
            F32x4(v128_and(self.0, i32x4_splat(0x7f80_0000)))
        }
        #[inline(always)]
        fn iadd(self, o: Self) -> Self {
            F32x4(i32x4_add(self.0, o.0))
        }
        #[inline(always)]
        fn pmin(self, o: Self) -> Self {
            F32x4(f32x4_pmin(self.0, o.0))
        }
        #[inline(always)]
        fn pmax(self, o: Self) -> Self {
            F32x4(f32x4_pmax(self.0, o.0))
        }
        #[inline(always)]
        fn abs(self) -> Self {
            F32x4(f32x4_abs(self.0))
        }
        #[inline(always)]
        fn sqrt(self) -> Self {
            F32x4(f32x4_sqrt(self.0))
        }
        #[inline(always)]
        fn exponent(self) -> Self {
            let e = i32x4_sub(v128_and(u32x4_shr(self.0, 23), i32x4_splat(0xff)), i32x4_splat(127));
            F32x4(f32x4_convert_i32x4(e))
        }
        #[inline(always)]
        fn mantissa(self) -> Self {
            F32x4(v128_or(v128_and(self.0, i32x4_splat(0x007f_ffff)), i32x4_splat(0x3f80_0000)))
        }
        #[inline(always)]
        fn pow2(self) -> Self {
            let e = f32x4_pmin(f32x4_splat(128.0), f32x4_pmax(f32x4_splat(-127.0), self.0));
            let e = i32x4_trunc_sat_f32x4(e);
            let bits = i32x4_shl(i32x4_add(e, i32x4_splat(127)), 23);
            // e = −127 gives bits 0 (= 0.0); e = 128 gives 0x7f80_0000 (= +inf).
            F32x4(bits)
        }
        #[inline(always)]
        fn copysign(self, sign: Self) -> Self {
            F32x4(v128_bitselect(sign.0, self.0, i32x4_splat(i32::MIN)))
        }
        #[inline(always)]
        fn lt(self, o: Self) -> M32x4 {
            M32x4(f32x4_lt(self.0, o.0))
        }
        #[inline(always)]
        fn le(self, o: Self) -> M32x4 {
            M32x4(f32x4_le(self.0, o.0))
        }
        #[inline(always)]
        fn gt(self, o: Self) -> M32x4 {
            M32x4(f32x4_gt(self.0, o.0))
        }
        #[inline(always)]
        fn ge(self, o: Self) -> M32x4 {
            M32x4(f32x4_ge(self.0, o.0))
        }
        #[inline(always)]
        fn eq(self, o: Self) -> M32x4 {
            M32x4(f32x4_eq(self.0, o.0))
        }
        #[inline(always)]
        fn select(m: M32x4, a: Self, b: Self) -> Self {
            // `(a & m) | (b & !m)`, the bit select spelled out: LLVM still emits `v128.bitselect`,
            // but folds a zero arm to one `and`/`andnot` (the `llvm.wasm.bitselect` intrinsic
            // would stay three instructions in V8 whatever its operands).
            F32x4(v128_or(v128_and(a.0, m.0), v128_andnot(b.0, m.0)))
        }
        #[inline(always)]
        fn copysign_nan_flipped(self, sign: Self) -> Self {
            // `sign ≠ sign` is all ones on a NaN lane: the xor flips its sign bit (and others,
            // which the bit select drops).
            let flipped = v128_xor(sign.0, f32x4_ne(sign.0, sign.0));
            F32x4(v128_bitselect(flipped, self.0, i32x4_splat(i32::MIN)))
        }
        #[inline(always)]
        fn any(m: M32x4) -> bool {
            v128_any_true(m.0)
        }
        #[inline(always)]
        fn imax(self, o: Self) -> Self {
            F32x4(i32x4_max(self.0, o.0))
        }
        #[inline(always)]
        fn iand(self, o: Self) -> Self {
            F32x4(v128_and(self.0, o.0))
        }
        #[inline(always)]
        fn ior(self, o: Self) -> Self {
            F32x4(v128_or(self.0, o.0))
        }
        #[inline(always)]
        fn ixor(self, o: Self) -> Self {
            F32x4(v128_xor(self.0, o.0))
        }
        #[inline(always)]
        fn igt(self, o: Self) -> M32x4 {
            M32x4(i32x4_gt(self.0, o.0))
        }
        #[inline(always)]
        fn mask_bits(m: M32x4) -> Self {
            F32x4(m.0)
        }
        #[inline(always)]
        fn lookup4(table: [f32; 4], at: Self) -> Self {
            F32x4(i8x16_swizzle(f32x4(table[0], table[1], table[2], table[3]), at.0))
        }
        #[inline(always)]
        fn lookup_pairs(table: &[[f32; 2]; 256], at: Self) -> (Self, Self) {
            let k = i32x4_trunc_sat_f32x4(at.0);
            let pair = |i: i32| {
                let [a, b] = table[i as usize & 255];
                u64::from(a.to_bits()) | u64::from(b.to_bits()) << 32
            };
            let lo = u64x2(pair(i32x4_extract_lane::<0>(k)), pair(i32x4_extract_lane::<1>(k)));
            let hi = u64x2(pair(i32x4_extract_lane::<2>(k)), pair(i32x4_extract_lane::<3>(k)));
            (F32x4(i32x4_shuffle::<0, 2, 4, 6>(lo, hi)), F32x4(i32x4_shuffle::<1, 3, 5, 7>(lo, hi)))
        }
        #[inline(always)]
        fn reduce(self, f: impl Fn(Self, Self) -> Self) -> f32 {
            let pairs = f(self, F32x4(i32x4_shuffle::<1, 0, 3, 2>(self.0, self.0)));
            f32x4_extract_lane::<0>(f(pairs, F32x4(i32x4_shuffle::<2, 3, 0, 1>(pairs.0, pairs.0))).0)
        }
    }
}

#[cfg(test)]
mod tests;
