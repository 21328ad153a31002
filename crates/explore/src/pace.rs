//! How fast the Train view trains, and what its Step button takes.
//!
//! A pace is epochs per second of play: `1`, `5`, `20` (TensorFlow Playground's), `100`, or
//! any whole number from 1 to 1000 in a link, so that a class can watch a boundary form; `max`
//! trains as fast as the page stays smooth. [`PaceClock`] turns frame times into whole batches
//! due, carrying the fraction from frame to frame, so `pace=20` advances the epoch counter by
//! 20 a second on any frame rate — and never in a burst: a gap longer than
//! [`PaceClock::MAX_GAP_MS`] (a hidden tab, a long frame) counts as that much.

/// Epochs per second of play.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pace {
    /// As fast as the page stays smooth.
    Max,
    /// This many epochs per second (1 to [`Pace::MOST`]).
    PerSecond(u32),
}

impl Pace {
    /// The largest pace a link may ask for.
    pub const MOST: u32 = 1000;
    /// The pace control's choices.
    pub const CHOICES: [Pace; 5] =
        [Pace::PerSecond(1), Pace::PerSecond(5), Pace::PerSecond(20), Pace::PerSecond(100), Pace::Max];

    /// `max` or a whole number from 1 to 1000.
    pub fn parse(text: &str) -> Result<Pace, String> {
        let text = text.trim();
        if text == "max" {
            return Ok(Pace::Max);
        }
        match text.parse::<u32>() {
            Ok(n) if (1..=Pace::MOST).contains(&n) => Ok(Pace::PerSecond(n)),
            _ => Err(format!("expected epochs per second from 1 to {}, or max", Pace::MOST)),
        }
    }

    /// The hash value: `max` or the number.
    pub fn name(self) -> String {
        match self {
            Pace::Max => "max".into(),
            Pace::PerSecond(n) => n.to_string(),
        }
    }

    /// What the control shows.
    pub fn label(self) -> String {
        match self {
            Pace::Max => "max".into(),
            Pace::PerSecond(1) => "1 epoch/s".into(),
            Pace::PerSecond(n) => format!("{n} epochs/s"),
        }
    }
}

/// What the Step button takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepBy {
    /// To the end of the current epoch (a whole epoch from its start).
    Epoch,
    /// One mini-batch.
    Batch,
}

impl StepBy {
    pub fn parse(text: &str) -> Result<StepBy, String> {
        match text.trim() {
            "epoch" => Ok(StepBy::Epoch),
            "batch" => Ok(StepBy::Batch),
            _ => Err("expected epoch or batch".into()),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            StepBy::Epoch => "epoch",
            StepBy::Batch => "batch",
        }
    }
}

/// Batches owed at a pace, from one frame to the next.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PaceClock {
    /// The fraction of a batch carried to the next frame (0 ≤ owed < 1 after [`PaceClock::due`]).
    owed: f64,
}

impl PaceClock {
    /// The longest gap between frames that counts in full.
    pub const MAX_GAP_MS: f64 = 100.0;

    /// The whole batches due after `gap_ms` more of play at `epochs_per_s`, with `per_epoch`
    /// batches an epoch. Whatever the caller does not train of them is forgiven, not owed.
    pub fn due(&mut self, gap_ms: f64, epochs_per_s: u32, per_epoch: usize) -> usize {
        let gap = if gap_ms.is_finite() { gap_ms.clamp(0.0, PaceClock::MAX_GAP_MS) } else { 0.0 };
        self.owed += f64::from(epochs_per_s) * per_epoch as f64 * gap / 1000.0;
        let whole = self.owed.floor();
        self.owed -= whole;
        whole as usize
    }
}
