//! [`Wide`]: `N` lanes side by side as one wider [`Lane`], every operation lane by lane.
//!
//! The matrix products tile their output in `Wide` lanes (more sums in flight per loaded
//! coefficient), and `Wide<f32, 4>` is the portable four-lane twin of `F32x4`: the scalar
//! path of the products, and the native SIMD = scalar tests of the elementwise driver.

use std::ops::{Add, BitAnd, BitOr, Div, Mul, Neg, Not, Sub};

use super::Lane;

/// `N` values of `V` (lanes, or lane masks) side by side.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Wide<V, const N: usize>(pub [V; N]);

impl<V: Copy, const N: usize> Wide<V, N> {
    /// `f` applied to each part.
    #[inline(always)]
    fn map<W>(self, f: impl Fn(V) -> W) -> Wide<W, N> {
        Wide(self.0.map(f))
    }

    /// `f` applied to each pair of parts.
    #[inline(always)]
    fn zip<W>(self, o: Self, f: impl Fn(V, V) -> W) -> Wide<W, N> {
        Wide(std::array::from_fn(|l| f(self.0[l], o.0[l])))
    }
}

macro_rules! binop {
    ($($tr:ident $f:ident),*) => {$(
        impl<V: Copy + $tr<Output = V>, const N: usize> $tr for Wide<V, N> {
            type Output = Self;
            #[inline(always)]
            fn $f(self, o: Self) -> Self {
                self.zip(o, V::$f)
            }
        }
    )*};
}
binop!(Add add, Sub sub, Mul mul, Div div, BitAnd bitand, BitOr bitor);

macro_rules! unop {
    ($($tr:ident $f:ident),*) => {$(
        impl<V: Copy + $tr<Output = V>, const N: usize> $tr for Wide<V, N> {
            type Output = Self;
            #[inline(always)]
            fn $f(self) -> Self {
                self.map(V::$f)
            }
        }
    )*};
}
unop!(Neg neg, Not not);

/// Lane methods of `Wide` that apply the part's own method to each part (or pair of parts).
macro_rules! per_part {
    (unary: $($f:ident)*; compare: $($c:ident)*) => {
        $(
            #[inline(always)]
            fn $f(self) -> Self {
                self.map(V::$f)
            }
        )*
        $(
            #[inline(always)]
            fn $c(self, o: Self) -> Self::Mask {
                self.zip(o, V::$c)
            }
        )*
    };
}

impl<V: Lane, const N: usize> Lane for Wide<V, N> {
    type Mask = Wide<V::Mask, N>;
    const WIDTH: usize = N * V::WIDTH;

    #[inline(always)]
    fn splat(v: f32) -> Self {
        Wide([V::splat(v); N])
    }
    #[inline(always)]
    fn load(s: &[f32]) -> Self {
        // One bounds check for the block; the constant offsets below need none.
        let s = &s[..Self::WIDTH];
        Wide(std::array::from_fn(|l| V::load(&s[l * V::WIDTH..])))
    }
    #[inline(always)]
    fn store(self, s: &mut [f32]) {
        let s = &mut s[..Self::WIDTH];
        for (l, v) in self.0.into_iter().enumerate() {
            v.store(&mut s[l * V::WIDTH..]);
        }
    }
    per_part!(unary: nearest floor abs sqrt exponent mantissa pow2 binade; compare: lt le gt ge eq);
    #[inline(always)]
    fn iadd(self, o: Self) -> Self {
        self.zip(o, V::iadd)
    }
    #[inline(always)]
    fn pmin(self, o: Self) -> Self {
        self.zip(o, V::pmin)
    }
    #[inline(always)]
    fn pmax(self, o: Self) -> Self {
        self.zip(o, V::pmax)
    }
    #[inline(always)]
    fn copysign(self, sign: Self) -> Self {
        self.zip(sign, V::copysign)
    }
    #[inline(always)]
    fn select(m: Self::Mask, a: Self, b: Self) -> Self {
        Wide(std::array::from_fn(|l| V::select(m.0[l], a.0[l], b.0[l])))
    }
    #[inline(always)]
    fn copysign_nan_flipped(self, sign: Self) -> Self {
        self.zip(sign, V::copysign_nan_flipped)
    }
    #[inline(always)]
    fn any(m: Self::Mask) -> bool {
        m.0.into_iter().any(V::any)
    }
    #[inline(always)]
    fn imax(self, o: Self) -> Self {
        self.zip(o, V::imax)
    }
    #[inline(always)]
    fn iand(self, o: Self) -> Self {
        self.zip(o, V::iand)
    }
    #[inline(always)]
    fn ior(self, o: Self) -> Self {
        self.zip(o, V::ior)
    }
    #[inline(always)]
    fn ixor(self, o: Self) -> Self {
        self.zip(o, V::ixor)
    }
    #[inline(always)]
    fn igt(self, o: Self) -> Self::Mask {
        self.zip(o, V::igt)
    }
    #[inline(always)]
    fn mask_bits(m: Self::Mask) -> Self {
        Wide(m.0.map(V::mask_bits))
    }
    #[inline(always)]
    fn lookup4(table: [f32; 4], at: Self) -> Self {
        at.map(|a| V::lookup4(table, a))
    }
    #[inline(always)]
    fn lookup_pairs(table: &[[f32; 2]; 256], at: Self) -> (Self, Self) {
        let parts = at.0.map(|a| V::lookup_pairs(table, a));
        (Wide(parts.map(|p| p.0)), Wide(parts.map(|p| p.1)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_lane_computes_what_the_scalar_path_computes() {
        let xs = [-2.5f32, 0.5, f32::NAN, 3.0e-5];
        let w = Wide(xs);
        let f = |v: Wide<f32, 4>| super::super::clip(v.nearest() * v - Wide::splat(1.0), -w, w.abs());
        let got = f(w);
        for (l, (g, v)) in got.0.into_iter().zip(xs).enumerate() {
            let want = super::super::clip(v.nearest() * v - 1.0, -v, v.abs());
            assert_eq!(g.to_bits(), want.to_bits(), "lane {l}");
        }
        let mut out = [0.0f32; 6];
        Wide::<f32, 4>::load(&[1.0, 2.0, 3.0, 4.0, 5.0]).store(&mut out[1..]);
        assert_eq!(out, [0.0, 1.0, 2.0, 3.0, 4.0, 0.0]);
    }
}
