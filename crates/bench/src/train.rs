//! Training throughput: samples per second through forward, backward, update and
//! re-quantization, for the benchmark rows `mlp:2-8-8-1` and `mlp:2-64-64-64-1`.

use qscope_nn::config::{Act, Config, Hidden};
use qscope_nn::data::{DatasetKind, Feature};
use qscope_nn::linalg::Activation;
use qscope_nn::trainer::Trainer;
use qscope_quant::parse;

/// Samples trained and the time they took.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Throughput {
    pub samples: u64,
    pub seconds: f64,
}

impl Throughput {
    pub fn per_second(&self) -> f64 {
        self.samples as f64 / self.seconds
    }
}

/// The benchmark network for `arch = [inputs, hidden…, 1]` (inputs 1 to 7): tanh hidden
/// layers on `circle` with the first `inputs` features, squared error, SGD; with `quantized`,
/// `quantized_bits(4,0,1)` weights and `quantized_tanh(4)` activations in the hidden layers.
pub fn trainer(arch: &[usize], batch: usize, quantized: bool) -> Result<Trainer, String> {
    let (&inputs, rest) = arch.split_first().ok_or("empty architecture")?;
    let (&outputs, hidden) = rest.split_last().ok_or("an architecture needs inputs and an output")?;
    if outputs != 1 || !(1..=Feature::ALL.len()).contains(&inputs) {
        return Err(format!("architecture {arch:?}: expected 1 to 7 inputs and 1 output"));
    }
    let q = |s: &str| quantized.then(|| parse(s).expect("a valid benchmark spec"));
    let mut c = Config::new(DatasetKind::Circle);
    c.features = Feature::ALL[..inputs].to_vec();
    c.hidden = Hidden::uniform(
        hidden,
        Act::Float(Activation::Tanh),
        q("qkeras.quantized_bits(4,0,1)"),
        q("qkeras.quantized_tanh(4)"),
    );
    c.batch = batch;
    c.learning_rate = 0.01;
    Trainer::new(c)
}

/// Trains until `now()` (in seconds, any origin) has advanced by `seconds`, checking the
/// clock every 16 steps; end-of-epoch evaluations are not run (nor counted).
pub fn measure(t: &mut Trainer, seconds: f64, now: impl Fn() -> f64) -> Result<Throughput, String> {
    let batch = t.config().batch as u64;
    let start = now();
    let mut samples = 0;
    loop {
        for _ in 0..16 {
            t.train_step()?;
            samples += batch;
        }
        let elapsed = now() - start;
        if elapsed >= seconds {
            return Ok(Throughput { samples, seconds: elapsed });
        }
    }
}

/// Native training throughput in samples per second of a float tanh network `arch`
/// (e.g. `[2, 8, 8, 1]`) at the given batch size, measured for about `seconds`.
#[cfg(not(target_arch = "wasm32"))]
pub fn train_throughput(arch: &[usize], batch: usize, seconds: f64) -> f64 {
    let mut t = trainer(arch, batch, false).expect("a valid benchmark architecture");
    measure(&mut t, seconds / 10.0, native_clock()).expect("warm-up"); // warm-up
    measure(&mut t, seconds, native_clock()).expect("the benchmark network trains").per_second()
}

/// Seconds since the first call (std's monotonic clock).
#[cfg(not(target_arch = "wasm32"))]
pub fn native_clock() -> impl Fn() -> f64 {
    let origin = std::time::Instant::now();
    move || origin.elapsed().as_secs_f64()
}
