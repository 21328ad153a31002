//! The random stream stochastic quantizers draw from, and the driver that feeds its draws to
//! a lane-generic kernel.
//!
//! [`Stream`] is four xoshiro128++ generators side by side whose outputs interleave into one
//! sequence of `u32` (block k = the four generators' k-th outputs, in lane order). Stepping all
//! four is one `v128` step in WASM SIMD — adds, shifts, rotations and xors, no multiply — and
//! its scalar twin steps a `[u32; 4]` with the same operations ([`Words`]), so a seed gives the
//! same numbers in WebAssembly (either path) and natively. A draw is the top 24 bits over 2²⁴,
//! as `tf.random.uniform` makes a float32 in [0, 1), so stochastic means are the libraries'.
//!
//! Kernels draw through [`run_drawn`]: for each chunk of up to [`CHUNK`] elements the stream
//! fills a buffer with uniforms, and the quantizer's [`DrawOp::eval`] reads element `i`'s draw
//! at `i` (a second one at `m + i`, `m` the chunk's length). Lanes and the scalar tail read the
//! same buffer, so the f32x4 and scalar paths give the same bits, and a one-draw kernel consumes
//! the stream in element order, as a scalar loop calling [`Stream::uniform`] would.

use super::lane::Lane;

/// A draw's float: the top 24 bits of `bits` over 2²⁴, in [0, 1) (exact in float32).
#[inline(always)]
pub fn unit(bits: u32) -> f32 {
    (bits >> 8) as f32 * (1.0 / 16_777_216.0)
}

/// Four `u32` lanes and the operations xoshiro128++ needs, on `[u32; 4]` (the scalar twin)
/// and on a WASM `v128`.
pub trait Words: Copy {
    fn add(self, o: Self) -> Self;
    fn xor(self, o: Self) -> Self;
    fn shl(self, k: u32) -> Self;
    /// Rotation left by `k` (0 < k < 32).
    fn rotl(self, k: u32) -> Self;
    /// The four draws [`unit`] makes of the lanes, into `out[..4]`.
    fn store_units(self, out: &mut [f32]);
}

impl Words for [u32; 4] {
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        std::array::from_fn(|l| self[l].wrapping_add(o[l]))
    }
    #[inline(always)]
    fn xor(self, o: Self) -> Self {
        std::array::from_fn(|l| self[l] ^ o[l])
    }
    #[inline(always)]
    fn shl(self, k: u32) -> Self {
        self.map(|v| v << k)
    }
    #[inline(always)]
    fn rotl(self, k: u32) -> Self {
        self.map(|v| v.rotate_left(k))
    }
    #[inline(always)]
    fn store_units(self, out: &mut [f32]) {
        out[..4].iter_mut().zip(self).for_each(|(o, v)| *o = unit(v));
    }
}

/// One xoshiro128++ step of four generators (`s[word]` holds word `word` of each): their
/// outputs.
#[inline(always)]
fn step<W: Words>(s: &mut [W; 4]) -> W {
    let out = s[0].add(s[3]).rotl(7).add(s[0]);
    let t = s[1].shl(9);
    s[2] = s[2].xor(s[0]);
    s[3] = s[3].xor(s[1]);
    s[1] = s[1].xor(s[2]);
    s[0] = s[0].xor(s[3]);
    s[2] = s[2].xor(t);
    s[3] = s[3].rotl(11);
    out
}

/// Fills `out` (a multiple of four long) with whole blocks' draws.
#[inline(always)]
fn fill_blocks<W: Words>(s: &mut [W; 4], out: &mut [f32]) {
    for o in out.chunks_exact_mut(4) {
        step(s).store_units(o);
    }
}

/// SplitMix64, which seeds the generators (as xoshiro's authors recommend).
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The seeded random stream of [`super::Ctx`]: a sequence of `u32`, four at a time.
#[derive(Clone, Debug)]
pub struct Stream {
    /// `s[word][lane]`: the four generators' states, word by word.
    s: [[u32; 4]; 4],
    /// The current block and how many of its numbers were drawn.
    block: [u32; 4],
    used: usize,
}

impl Stream {
    /// The stream of `seed`: each generator's 128-bit state from two SplitMix64 outputs.
    pub fn new(seed: u64) -> Stream {
        let mut sm = seed;
        Stream::from_states([(); 4].map(|_| {
            let (a, b) = (splitmix64(&mut sm), splitmix64(&mut sm));
            let words = [a as u32, (a >> 32) as u32, b as u32, (b >> 32) as u32];
            // The one state xoshiro cannot leave.
            if words == [0; 4] { [1, 0, 0, 0] } else { words }
        }))
    }

    /// The generators started from the given states (`states[lane]` = its four words, as the
    /// reference implementation's `s[0..4]`).
    pub fn from_states(states: [[u32; 4]; 4]) -> Stream {
        let s = std::array::from_fn(|w| std::array::from_fn(|lane| states[lane][w]));
        Stream { s, block: [0; 4], used: 4 }
    }

    /// The next number of the sequence.
    #[inline]
    pub fn next_u32(&mut self) -> u32 {
        if self.used == 4 {
            self.block = step(&mut self.s);
            self.used = 0;
        }
        self.used += 1;
        self.block[self.used - 1]
    }

    /// The next draw in [0, 1) ([`unit`] of the next number).
    #[inline]
    pub fn uniform(&mut self) -> f32 {
        unit(self.next_u32())
    }

    /// The next `out.len()` draws, in order: what as many [`Stream::uniform`] calls give, whole
    /// blocks four at a time (one `v128` step on the f32x4 path).
    pub fn fill_uniform(&mut self, out: &mut [f32]) {
        let lead = (4 - self.used).min(out.len());
        let (head, rest) = out.split_at_mut(lead);
        head.iter_mut().for_each(|o| *o = self.uniform());
        let whole = rest.len() / 4 * 4;
        let (body, tail) = rest.split_at_mut(whole);
        self.fill_body(body);
        tail.iter_mut().for_each(|o| *o = self.uniform());
    }

    #[inline]
    fn fill_body(&mut self, body: &mut [f32]) {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        if super::simd::enabled() {
            return simd128::fill(&mut self.s, body);
        }
        fill_blocks(&mut self.s, body);
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd128 {
    use super::Words;
    use core::arch::wasm32::*;

    impl Words for v128 {
        #[inline(always)]
        fn add(self, o: Self) -> Self {
            i32x4_add(self, o)
        }
        #[inline(always)]
        fn xor(self, o: Self) -> Self {
            v128_xor(self, o)
        }
        #[inline(always)]
        fn shl(self, k: u32) -> Self {
            i32x4_shl(self, k)
        }
        #[inline(always)]
        fn rotl(self, k: u32) -> Self {
            v128_or(i32x4_shl(self, k), u32x4_shr(self, 32 - k))
        }
        #[inline(always)]
        fn store_units(self, out: &mut [f32]) {
            assert!(out.len() >= 4);
            let f = f32x4_mul(f32x4_convert_u32x4(u32x4_shr(self, 8)), f32x4_splat(1.0 / 16_777_216.0));
            // SAFETY: four f32 are in bounds; v128 stores need no alignment.
            unsafe { v128_store(out.as_mut_ptr() as *mut v128, f) }
        }
    }

    /// [`super::fill_blocks`] on `v128`s: the state loaded once, stepped, stored back.
    pub(super) fn fill(s: &mut [[u32; 4]; 4], out: &mut [f32]) {
        let load = |w: &[u32; 4]| u32x4(w[0], w[1], w[2], w[3]);
        let mut v = [load(&s[0]), load(&s[1]), load(&s[2]), load(&s[3])];
        super::fill_blocks(&mut v, out);
        for (w, x) in s.iter_mut().zip(v) {
            *w = [
                u32x4_extract_lane::<0>(x),
                u32x4_extract_lane::<1>(x),
                u32x4_extract_lane::<2>(x),
                u32x4_extract_lane::<3>(x),
            ];
        }
    }
}

/// A stochastic elementwise kernel: `(q(x), ∂q/∂x)` per lane, given each element's draws.
pub trait DrawOp {
    /// Draws per element: 1 or 2 (`eval`'s `u2` is meaningless with 1).
    const DRAWS: usize;
    fn eval<V: Lane>(&self, x: V, u: V, u2: V) -> (V, V);
}

/// Elements per chunk of [`run_drawn`] (its draws stay in a stack buffer).
pub const CHUNK: usize = 256;

/// Runs a stochastic kernel over the slice, drawing from `rng` chunk by chunk (see the module
/// documentation for which draw goes to which element): f32x4 where SIMD is on, else scalar.
pub fn run_drawn<O: DrawOp>(op: &O, x: &[f32], y: &mut [f32], mut dydx: Option<&mut [f32]>, rng: &mut Stream) {
    assert_eq!(x.len(), y.len());
    let mut draws = [0.0f32; 2 * CHUNK];
    for (c, (xc, yc)) in x.chunks(CHUNK).zip(y.chunks_mut(CHUNK)).enumerate() {
        let m = xc.len();
        let u = &mut draws[..m * O::DRAWS];
        rng.fill_uniform(u);
        let (u, u2) = if O::DRAWS == 2 { u.split_at(m) } else { (&u[..], &u[..]) };
        let d = dydx.as_deref_mut().map(|d| &mut d[c * CHUNK..c * CHUNK + m]);
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        if super::simd::enabled() {
            drawn_lanes::<super::lane::F32x4, O>(op, xc, u, u2, yc, d);
            continue;
        }
        #[cfg(test)]
        if super::simd::tests::FOUR_LANES.get() {
            drawn_lanes::<super::lane::Wide<f32, 4>, O>(op, xc, u, u2, yc, d);
            continue;
        }
        drawn_lanes::<f32, O>(op, xc, u, u2, yc, d);
    }
}

/// `V::WIDTH` elements at a time, then the tail at `f32`.
#[inline(always)]
fn drawn_lanes<V: Lane, O: DrawOp>(op: &O, x: &[f32], u: &[f32], u2: &[f32], y: &mut [f32], d: Option<&mut [f32]>) {
    let body = x.len() - x.len() % V::WIDTH;
    let (u, u2) = (&u[..x.len()], &u2[..x.len()]);
    match d {
        Some(d) => {
            let d = &mut d[..x.len()];
            for i in (0..body).step_by(V::WIDTH) {
                let (v, g) = op.eval(V::load(&x[i..]), V::load(&u[i..]), V::load(&u2[i..]));
                v.store(&mut y[i..]);
                g.store(&mut d[i..]);
            }
            for i in body..x.len() {
                (y[i], d[i]) = op.eval(x[i], u[i], u2[i]);
            }
        }
        None => {
            for i in (0..body).step_by(V::WIDTH) {
                op.eval(V::load(&x[i..]), V::load(&u[i..]), V::load(&u2[i..])).0.store(&mut y[i..]);
            }
            for i in body..x.len() {
                y[i] = op.eval(x[i], u[i], u2[i]).0;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_generator_is_xoshiro128_plus_plus() {
        // The reference implementation from state {1, 2, 3, 4} (rand_xoshiro's test vector).
        let mut s = Stream::from_states([[1, 2, 3, 4]; 4]);
        let got: Vec<u32> = (0..40).map(|_| s.next_u32()).step_by(4).collect();
        let want =
            [641, 1573767, 3222811527, 3517856514, 836907274, 4247214768, 3867114732, 1355841295, 495546011, 621204420];
        assert_eq!(got, want);
    }

    #[test]
    fn a_seed_pins_its_first_numbers() {
        let mut s = Stream::new(0);
        let got: Vec<u32> = (0..8).map(|_| s.next_u32()).collect();
        assert_eq!(
            got,
            [1179900579, 3397927179, 196233325, 2213036243, 1938959192, 945494525, 539297106, 1043665402],
            "pinned: the same in WebAssembly (tests/wasm.rs) and natively"
        );
    }

    #[test]
    fn filling_gives_the_numbers_one_by_one_gives() {
        for (skip, len) in [(0, 0), (0, 9), (1, 3), (3, 17), (2, 1), (4, 256)] {
            let (mut a, mut b) = (Stream::new(7), Stream::new(7));
            (0..skip).for_each(|_| _ = (a.next_u32(), b.next_u32()));
            let mut filled = vec![0.0; len];
            a.fill_uniform(&mut filled);
            let one_by_one: Vec<f32> = (0..len).map(|_| b.uniform()).collect();
            assert_eq!(filled, one_by_one, "after {skip}, {len} draws");
            assert_eq!(a.next_u32(), b.next_u32(), "and the streams continue alike");
        }
    }

    #[test]
    fn draws_are_uniform_on_the_unit_interval() {
        let mut s = Stream::new(42);
        let mut u = vec![0.0; 1 << 16];
        s.fill_uniform(&mut u);
        assert!(u.iter().all(|v| (0.0..1.0).contains(v)));
        let mean = u.iter().map(|&v| v as f64).sum::<f64>() / u.len() as f64;
        assert!((mean - 0.5).abs() < 0.005, "mean {mean}");
        let low = u.iter().filter(|&&v| v < 0.25).count() as f64 / u.len() as f64;
        assert!((low - 0.25).abs() < 0.005, "P(u < ¼) = {low}");
    }
}
