//! [`F32x8`]: eight `f32` lanes in an AVX `__m256`, the native twin of the page's `F32x4` (the
//! command line, the native tests and benchmarks), compiled where the build targets AVX2 (the
//! native build targets the CPU it runs on: .cargo/config.toml). Every operation is the IEEE
//! operation of the scalar path (`vroundps` rounds half to even, `vminps`/`vmaxps` are exactly
//! `pmin`/`pmax`, the compares are ordered), so the bits are the scalar bits; `simd::tests`
//! checks it for every quantizer.

use std::arch::x86_64::*;
use std::ops::{Add, BitAnd, BitOr, Div, Mul, Neg, Not, Sub};

use super::Lane;

/// Eight `f32` lanes.
#[derive(Clone, Copy, Debug)]
pub struct F32x8(__m256);

/// Eight lane masks (all ones / all zeros).
#[derive(Clone, Copy, Debug)]
pub struct M32x8(__m256);

// SAFETY (every `unsafe` below): the intrinsics need AVX or AVX2, which this build targets (the
// module is compiled only then); loads and stores check their bounds first.

macro_rules! binop {
    ($tr:ident, $f:ident, $op:ident) => {
        impl $tr for F32x8 {
            type Output = F32x8;
            #[inline(always)]
            fn $f(self, o: F32x8) -> F32x8 {
                F32x8(unsafe { $op(self.0, o.0) })
            }
        }
    };
}
binop!(Add, add, _mm256_add_ps);
binop!(Sub, sub, _mm256_sub_ps);
binop!(Mul, mul, _mm256_mul_ps);
binop!(Div, div, _mm256_div_ps);

#[inline(always)]
fn bits(v: i32) -> __m256 {
    unsafe { _mm256_castsi256_ps(_mm256_set1_epi32(v)) }
}

#[inline(always)]
fn int(v: __m256) -> __m256i {
    unsafe { _mm256_castps_si256(v) }
}

#[inline(always)]
fn float(v: __m256i) -> __m256 {
    unsafe { _mm256_castsi256_ps(v) }
}

impl Neg for F32x8 {
    type Output = F32x8;
    #[inline(always)]
    fn neg(self) -> F32x8 {
        F32x8(unsafe { _mm256_xor_ps(self.0, bits(i32::MIN)) })
    }
}

impl BitAnd for M32x8 {
    type Output = M32x8;
    #[inline(always)]
    fn bitand(self, o: M32x8) -> M32x8 {
        M32x8(unsafe { _mm256_and_ps(self.0, o.0) })
    }
}

impl BitOr for M32x8 {
    type Output = M32x8;
    #[inline(always)]
    fn bitor(self, o: M32x8) -> M32x8 {
        M32x8(unsafe { _mm256_or_ps(self.0, o.0) })
    }
}

impl Not for M32x8 {
    type Output = M32x8;
    #[inline(always)]
    fn not(self) -> M32x8 {
        M32x8(unsafe { _mm256_xor_ps(self.0, bits(-1)) })
    }
}

impl F32x8 {
    #[inline(always)]
    fn cmp<const P: i32>(self, o: Self) -> M32x8 {
        M32x8(unsafe { _mm256_cmp_ps::<P>(self.0, o.0) })
    }

    #[inline(always)]
    fn lanes(self) -> [f32; 8] {
        let mut out = [0.0; 8];
        self.store(&mut out);
        out
    }
}

impl Lane for F32x8 {
    type Mask = M32x8;
    const WIDTH: usize = 8;

    #[inline(always)]
    fn splat(v: f32) -> Self {
        F32x8(unsafe { _mm256_set1_ps(v) })
    }
    #[inline(always)]
    fn load(s: &[f32]) -> Self {
        assert!(s.len() >= 8);
        F32x8(unsafe { _mm256_loadu_ps(s.as_ptr()) })
    }
    #[inline(always)]
    fn store(self, s: &mut [f32]) {
        assert!(s.len() >= 8);
        unsafe { _mm256_storeu_ps(s.as_mut_ptr(), self.0) }
    }
    #[inline(always)]
    fn nearest(self) -> Self {
        F32x8(unsafe { _mm256_round_ps::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(self.0) })
    }
    #[inline(always)]
    fn floor(self) -> Self {
        F32x8(unsafe { _mm256_floor_ps(self.0) })
    }
    #[inline(always)]
    fn binade(self) -> Self {
        F32x8(unsafe { _mm256_and_ps(self.0, bits(0x7f80_0000)) })
    }
    #[inline(always)]
    fn iadd(self, o: Self) -> Self {
        F32x8(float(unsafe { _mm256_add_epi32(int(self.0), int(o.0)) }))
    }
    #[inline(always)]
    fn pmin(self, o: Self) -> Self {
        // vminps(a, b) is `a < b ? a : b`.
        F32x8(unsafe { _mm256_min_ps(o.0, self.0) })
    }
    #[inline(always)]
    fn pmax(self, o: Self) -> Self {
        // vmaxps(a, b) is `a > b ? a : b`.
        F32x8(unsafe { _mm256_max_ps(o.0, self.0) })
    }
    #[inline(always)]
    fn abs(self) -> Self {
        F32x8(unsafe { _mm256_andnot_ps(bits(i32::MIN), self.0) })
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        F32x8(unsafe { _mm256_sqrt_ps(self.0) })
    }
    #[inline(always)]
    fn exponent(self) -> Self {
        let e = unsafe {
            let biased = _mm256_and_si256(_mm256_srli_epi32::<23>(int(self.0)), _mm256_set1_epi32(0xff));
            _mm256_sub_epi32(biased, _mm256_set1_epi32(127))
        };
        F32x8(unsafe { _mm256_cvtepi32_ps(e) })
    }
    #[inline(always)]
    fn mantissa(self) -> Self {
        F32x8(unsafe { _mm256_or_ps(_mm256_and_ps(self.0, bits(0x007f_ffff)), bits(0x3f80_0000)) })
    }
    #[inline(always)]
    fn pow2(self) -> Self {
        // As the other paths: NaN and anything below −127 read −127 (0.0), above 128 read 128 (+inf).
        let e = Self::splat(128.0).pmin(Self::splat(-127.0).pmax(self));
        let e = unsafe { _mm256_cvttps_epi32(e.0) };
        F32x8(float(unsafe { _mm256_slli_epi32::<23>(_mm256_add_epi32(e, _mm256_set1_epi32(127))) }))
    }
    #[inline(always)]
    fn copysign(self, sign: Self) -> Self {
        let magnitude = self.abs().0;
        F32x8(unsafe { _mm256_or_ps(magnitude, _mm256_and_ps(sign.0, bits(i32::MIN))) })
    }
    #[inline(always)]
    fn lt(self, o: Self) -> M32x8 {
        self.cmp::<_CMP_LT_OQ>(o)
    }
    #[inline(always)]
    fn le(self, o: Self) -> M32x8 {
        self.cmp::<_CMP_LE_OQ>(o)
    }
    #[inline(always)]
    fn gt(self, o: Self) -> M32x8 {
        self.cmp::<_CMP_GT_OQ>(o)
    }
    #[inline(always)]
    fn ge(self, o: Self) -> M32x8 {
        self.cmp::<_CMP_GE_OQ>(o)
    }
    #[inline(always)]
    fn eq(self, o: Self) -> M32x8 {
        self.cmp::<_CMP_EQ_OQ>(o)
    }
    #[inline(always)]
    fn select(m: M32x8, a: Self, b: Self) -> Self {
        // Masks are whole lanes of ones or zeros, so the sign bit blendv reads decides alike.
        F32x8(unsafe { _mm256_blendv_ps(b.0, a.0, m.0) })
    }
    #[inline(always)]
    fn copysign_nan_flipped(self, sign: Self) -> Self {
        let nan = sign.cmp::<_CMP_UNORD_Q>(sign);
        self.copysign(F32x8(unsafe { _mm256_xor_ps(sign.0, _mm256_and_ps(nan.0, bits(i32::MIN))) }))
    }
    #[inline(always)]
    fn any(m: M32x8) -> bool {
        unsafe { _mm256_movemask_ps(m.0) != 0 }
    }
    #[inline(always)]
    fn imax(self, o: Self) -> Self {
        F32x8(float(unsafe { _mm256_max_epi32(int(self.0), int(o.0)) }))
    }
    #[inline(always)]
    fn iand(self, o: Self) -> Self {
        F32x8(unsafe { _mm256_and_ps(self.0, o.0) })
    }
    #[inline(always)]
    fn ior(self, o: Self) -> Self {
        F32x8(unsafe { _mm256_or_ps(self.0, o.0) })
    }
    #[inline(always)]
    fn ixor(self, o: Self) -> Self {
        F32x8(unsafe { _mm256_xor_ps(self.0, o.0) })
    }
    #[inline(always)]
    fn igt(self, o: Self) -> M32x8 {
        M32x8(float(unsafe { _mm256_cmpgt_epi32(int(self.0), int(o.0)) }))
    }
    #[inline(always)]
    fn mask_bits(m: M32x8) -> Self {
        F32x8(m.0)
    }
    #[inline(always)]
    fn lookup4(table: [f32; 4], at: Self) -> Self {
        // Bits 2–3 of each lane pick the entry, as on the scalar path (vpermilps reads bits 0–1).
        let table =
            unsafe { _mm256_setr_ps(table[0], table[1], table[2], table[3], table[0], table[1], table[2], table[3]) };
        F32x8(unsafe { _mm256_permutevar_ps(table, _mm256_srli_epi32::<2>(int(at.0))) })
    }
    #[inline(always)]
    fn reduce(self, f: impl Fn(Self, Self) -> Self) -> f32 {
        // The tree of neighbours in three shuffles: pairs, pairs of pairs, then the two halves.
        let pairs = f(self, F32x8(unsafe { _mm256_permute_ps::<0b10_11_00_01>(self.0) }));
        let quads = f(pairs, F32x8(unsafe { _mm256_permute_ps::<0b01_00_11_10>(pairs.0) }));
        let all = f(quads, F32x8(unsafe { _mm256_permute2f128_ps::<1>(quads.0, quads.0) }));
        unsafe { _mm256_cvtss_f32(all.0) }
    }
    #[inline(always)]
    fn lookup_pairs(table: &[[f32; 2]; 256], at: Self) -> (Self, Self) {
        let (mut a, mut b) = ([0.0f32; 8], [0.0f32; 8]);
        for (l, v) in at.lanes().into_iter().enumerate() {
            [a[l], b[l]] = f32::lookup_pairs(table, v).into();
        }
        (Self::load(&a), Self::load(&b))
    }
}
