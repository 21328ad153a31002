//! The Train view's networks, trained in lockstep: the quantized net, its float twin (same
//! config and seed, no quantizers) and, when asked for, a third twin with another STE. Every
//! step takes the same batches in each, so their curves compare epoch by epoch.
//!
//! A change of quantizer or learning rate mid-run is swapped into the running trainers
//! ([`Runs::apply_live`]) and each quantizer that changed is marked at its epoch ([`Mark`]),
//! for the curves to show; a change of architecture builds new [`Runs`] instead.

use super::train::stop::Stop;
use super::train::{LayerQuantizers, Net, TrainParams};
use qscope_nn::{Metrics, Pick, QuantizedTensor, Trainer, WeightTrace};

/// A change made mid-run, drawn on the curves at its epoch.
#[derive(Clone, Debug, PartialEq)]
pub struct Mark {
    pub epoch: usize,
    /// `w1 → spec`, `a2 → float`, `twin wout → spec`: the site (weights or activation of a
    /// layer, counted from 1, or the output layer) and its new quantizer.
    pub label: String,
}

/// Rows evaluated per training step's worth of [`Runs::work`]: a row's forward pass costs
/// about a third of its training step (forward, backward, update).
pub const EVAL_ROWS: usize = 3;

/// The networks, trained in lockstep.
pub struct Runs {
    pub q: Trainer,
    pub f: Trainer,
    /// The third twin (another STE), when asked for.
    pub t: Option<Trainer>,
    /// Metrics before the first epoch: quantized, float, twin.
    start: [Metrics; 3],
    /// The quantizers each net was last asked for (quantized, float, twin), as written: a
    /// running quantizer differs from its spec once it has learned (LSQ's step, PACT's clip),
    /// so a change is told from these, never from the running ones.
    asked: [Vec<LayerQuantizers>; 3],
    pub marks: Vec<Mark>,
}

impl Runs {
    /// The networks of `p`, evaluated before any training.
    pub fn new(p: &TrainParams) -> Result<Runs, String> {
        let mut q = Trainer::new(p.config(Net::Quantized)?)?;
        // The twins' data is the quantized net's: split (and a table standardized) once.
        let mut f = Trainer::sharing_data(p.config(Net::Float)?, &q)?;
        let mut t = if p.has_twin() { Some(Trainer::sharing_data(p.config(Net::Twin)?, &q)?) } else { None };
        let start = [q.evaluate(), f.evaluate(), t.as_mut().map_or_else(|| f.evaluate(), Trainer::evaluate)];
        let asked = [p.quantizers(Net::Quantized)?, p.quantizers(Net::Float)?, p.quantizers(Net::Twin)?];
        Ok(Runs { q, f, t, start, asked, marks: Vec::new() })
    }

    pub fn get(&self, net: Net) -> Option<&Trainer> {
        match net {
            Net::Quantized => Some(&self.q),
            Net::Float => Some(&self.f),
            Net::Twin => self.t.as_ref(),
        }
    }

    pub fn get_mut(&mut self, net: Net) -> Option<&mut Trainer> {
        match net {
            Net::Quantized => Some(&mut self.q),
            Net::Float => Some(&mut self.f),
            Net::Twin => self.t.as_mut(),
        }
    }

    /// The latest metrics of a network (before any epoch: its starting point).
    pub fn latest(&self, net: Net) -> Option<Metrics> {
        let i = net as usize;
        self.get(net).map(|t| t.history().last().copied().unwrap_or(self.start[i]))
    }

    /// How many steps to take between looks at the clock: about 250 examples, 1 to 25 batches.
    pub fn chunk(&self) -> usize {
        (250 / self.q.config().batch.max(1)).clamp(1, 25)
    }

    /// `n` steps of every network.
    pub fn steps(&mut self, n: usize) -> Result<(), String> {
        self.q.steps(n).map_err(|e| format!("the quantized net diverged: {e}"))?;
        self.twins(n)
    }

    /// Up to `n` steps of every network, ending early at the end of an epoch where `stop` is
    /// reached; why, if it was.
    pub fn steps_until(&mut self, n: usize, stop: &Stop) -> Result<Option<String>, String> {
        if !stop.is_on() {
            return self.steps(n).map(|()| None);
        }
        for _ in 0..n {
            let before = self.latest(Net::Quantized).and_then(|m| m.test_acc);
            let ended = self.q.step().map_err(|e| format!("the quantized net diverged: {e}"))?;
            self.twins(1)?;
            if let Some(why) = ended.and_then(|m| stop.reached(before, &m)) {
                return Ok(Some(why));
            }
        }
        Ok(None)
    }

    /// Up to `n` batches' worth of work for the page's play: training steps of every network
    /// in lockstep until an epoch ends — then the epoch's evaluation, [`EVAL_ROWS`] × `batch`
    /// rows per batch's worth, over as many calls as it takes (a 100,000-row table's takes
    /// several frames), checking `stop` when it ends. The training steps taken, and why play
    /// stops, if it does. The numbers are [`Runs::steps_until`]'s, bit for bit.
    pub fn work(&mut self, n: usize, stop: &Stop) -> Result<(usize, Option<String>), String> {
        if self.q.is_evaluating() {
            let rows = n.max(1) * self.q.config().batch * EVAL_ROWS;
            let before = self.latest(Net::Quantized).and_then(|m| m.test_acc);
            let done = self.q.continue_evaluation(rows).map_err(|e| format!("the quantized net diverged: {e}"))?;
            self.f.continue_evaluation(rows).map_err(|e| format!("the float twin diverged: {e}"))?;
            if let Some(t) = &mut self.t {
                t.continue_evaluation(rows).map_err(|e| format!("the STE twin diverged: {e}"))?;
            }
            return Ok((0, done.and_then(|m| stop.reached(before, &m))));
        }
        for i in 0..n {
            let ended = self.q.train_step().map_err(|e| format!("the quantized net diverged: {e}"))?;
            self.f.train_step().map_err(|e| format!("the float twin diverged: {e}"))?;
            if let Some(t) = &mut self.t {
                t.train_step().map_err(|e| format!("the STE twin diverged: {e}"))?;
            }
            if ended {
                self.q.begin_epoch_evaluation();
                self.f.begin_epoch_evaluation();
                self.t.iter_mut().for_each(Trainer::begin_epoch_evaluation);
                return Ok((i + 1, None));
            }
        }
        Ok((n, None))
    }

    /// Ends every evaluation under way (the page pauses: what it shows is the epoch's).
    pub fn settle(&mut self) -> Result<(), String> {
        self.q.settle().map_err(|e| format!("the quantized net diverged: {e}"))?;
        self.f.settle().map_err(|e| format!("the float twin diverged: {e}"))?;
        match &mut self.t {
            Some(t) => t.settle().map_err(|e| format!("the STE twin diverged: {e}")),
            None => Ok(()),
        }
    }

    /// `n` steps of the float twin and, when on, the STE twin.
    fn twins(&mut self, n: usize) -> Result<(), String> {
        self.f.steps(n).map_err(|e| format!("the float twin diverged: {e}"))?;
        if let Some(t) = &mut self.t {
            t.steps(n).map_err(|e| format!("the STE twin diverged: {e}"))?;
        }
        Ok(())
    }

    /// Every network to the end of the current epoch (a whole epoch from its start).
    pub fn epoch(&mut self) -> Result<(), String> {
        self.steps(self.q.batches_per_epoch() - self.q.batch_in_epoch())
    }

    /// One batch of every network; what it did to the picked weight of the quantized net.
    pub fn walk(&mut self, pick: Pick) -> Result<WeightTrace, String> {
        let trace = match self.q.step_traced(pick) {
            Ok(t) => t,
            Err(e) if self.q.error().is_some() => return Err(format!("the quantized net diverged: {e}")),
            Err(e) => return Err(e),
        };
        self.twins(1)?;
        Ok(trace)
    }

    /// Brings the running trainers to `p`'s quantizers and learning rate; a quantizer that
    /// changed is marked on the curves. A network of another shape is left alone (it is about
    /// to be rebuilt).
    pub fn apply_live(&mut self, p: &TrainParams) -> Result<(), String> {
        let epoch = self.q.epoch();
        let mut marks = Vec::new();
        for net in [Net::Quantized, Net::Float, Net::Twin] {
            let wanted = p.quantizers(net)?;
            let n = wanted.len();
            let asked = std::mem::replace(&mut self.asked[net as usize], wanted.clone());
            let Some(t) = self.get_mut(net).filter(|t| t.layers().len() == n) else { continue };
            t.set_learning_rate(p.lr)?;
            for (l, (w, a)) in wanted.into_iter().enumerate() {
                let before = asked.get(l);
                for (slot, q, was) in [
                    (QuantizedTensor::Weights, w, before.map(|b| &b.0)),
                    (QuantizedTensor::Activation, a, before.map(|b| &b.1)),
                ] {
                    if (l + 1 == n && slot == QuantizedTensor::Activation) || was == Some(&q) {
                        continue;
                    }
                    let name = q.as_ref().map_or("float".to_string(), |q| q.to_string());
                    let site = if slot == QuantizedTensor::Weights { "w" } else { "a" };
                    let layer = if l + 1 == n { "out".to_string() } else { (l + 1).to_string() };
                    let who = if net == Net::Twin { "twin " } else { "" };
                    t.set_quantizer(l, slot, q)?;
                    marks.push(Mark { epoch, label: format!("{who}{site}{layer} → {name}") });
                }
            }
        }
        self.marks.extend(marks);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small, quick configuration: one hidden layer of 4.
    fn small() -> TrainParams {
        let mut p = TrainParams::default();
        p.set_hidden(vec![4]);
        p
    }

    fn steps_taken(r: &Runs) -> Vec<u64> {
        [Net::Quantized, Net::Float, Net::Twin].into_iter().filter_map(|n| r.get(n)).map(Trainer::step_count).collect()
    }

    #[test]
    fn the_networks_step_in_lockstep() {
        let mut r = Runs::new(&small()).unwrap();
        r.steps(3).unwrap();
        assert_eq!(steps_taken(&r), [3, 3]);
        r.epoch().unwrap();
        assert_eq!((r.q.epoch(), r.q.batch_in_epoch(), r.f.epoch()), (1, 0, 1));
        r.walk(Pick::Largest { layer: 0 }).unwrap();
        assert_eq!(steps_taken(&r)[0], steps_taken(&r)[1]);
    }

    #[test]
    fn before_any_epoch_the_latest_metrics_are_the_starting_ones() {
        let r = Runs::new(&small()).unwrap();
        assert!(r.latest(Net::Quantized).is_some() && r.latest(Net::Float).is_some());
        assert!(r.latest(Net::Twin).is_none(), "no twin asked for");
        assert_eq!(r.chunk(), 25);
    }

    #[test]
    fn a_quantizer_changed_mid_run_is_swapped_in_and_marked_at_its_epoch() {
        let mut p = small();
        let mut r = Runs::new(&p).unwrap();
        r.epoch().unwrap();
        p.set_layer_spec(QuantizedTensor::Weights, 0, "larq.ste_sign");
        r.apply_live(&p).unwrap();
        assert_eq!(r.marks, vec![Mark { epoch: 1, label: "w1 → larq.SteSign".into() }]);
        assert_eq!(
            r.q.layers()[0].quantizer(QuantizedTensor::Weights).map(|q| q.to_string()).as_deref(),
            Some("larq.SteSign")
        );
        assert!(r.f.layers()[0].quantizer(QuantizedTensor::Weights).is_none(), "the float twin stays float");
    }

    #[test]
    fn unchanged_quantizers_leave_no_mark() {
        let p = small();
        let mut r = Runs::new(&p).unwrap();
        r.apply_live(&TrainParams { lr: 0.5, ..p.clone() }).unwrap();
        assert!(r.marks.is_empty());
        assert_eq!(r.q.config().learning_rate, 0.5);
    }

    #[test]
    fn a_learned_step_survives_settings_that_leave_its_quantizer_as_it_was() {
        let mut p = small();
        p.wq = "lsq(2)".into();
        let mut r = Runs::new(&p).unwrap();
        r.epoch().unwrap();
        let step = |r: &Runs| r.q.layers()[0].learned()[0].value;
        let learned = step(&r);
        r.apply_live(&TrainParams { lr: 0.5, ..p.clone() }).unwrap();
        assert_eq!(step(&r), learned, "LSQ's learned step is the net's, not a changed spec");
        assert!(r.marks.is_empty());
        p.wq = "lsq(3)".into();
        r.apply_live(&p).unwrap();
        assert_eq!(r.marks.len(), 1, "{:?}", r.marks);
    }

    #[test]
    fn a_network_of_another_shape_is_left_for_the_rebuild() {
        let mut p = small();
        let mut r = Runs::new(&p).unwrap();
        p.set_hidden(vec![4, 4]);
        p.set_layer_spec(QuantizedTensor::Weights, 1, "larq.ste_sign");
        r.apply_live(&p).unwrap();
        assert!(r.marks.is_empty());
    }

    #[test]
    fn play_stops_at_the_end_of_the_set_epoch_with_every_net_there() {
        let mut r = Runs::new(&small()).unwrap();
        let stop = Stop { epoch: 2, accuracy: 0.0 };
        let per_epoch = r.q.batches_per_epoch();
        assert_eq!(r.steps_until(per_epoch - 1, &stop).unwrap(), None);
        let why = r.steps_until(10 * per_epoch, &stop).unwrap();
        assert_eq!(why.as_deref(), Some("stopped at epoch 2, as set"));
        assert_eq!((r.q.epoch(), r.q.batch_in_epoch(), r.f.epoch(), r.f.batch_in_epoch()), (2, 0, 2, 0));
        assert_eq!(r.steps_until(per_epoch, &stop).unwrap(), None, "Play after the stop trains on");
        assert_eq!(r.q.epoch(), 3);
    }

    #[test]
    fn play_stops_when_the_quantized_nets_test_accuracy_reaches_the_share() {
        let mut r = Runs::new(&small()).unwrap();
        let stop = Stop { epoch: 0, accuracy: 60.0 };
        let why = r.steps_until(200 * r.q.batches_per_epoch(), &stop).unwrap().expect("spiral reaches 60 %");
        let m = r.latest(Net::Quantized).unwrap();
        assert!(m.test_acc.unwrap() >= 0.6 && why.contains("reached 60 %"), "{why}");
        let before = r.q.history().iter().rev().nth(1).and_then(|m| m.test_acc);
        assert!(before.is_none_or(|b| b < 0.6), "the epoch before was below: {before:?}");
    }

    #[test]
    fn stepping_with_no_stop_set_is_plain_stepping() {
        let (mut a, mut b) = (Runs::new(&small()).unwrap(), Runs::new(&small()).unwrap());
        assert_eq!(a.steps_until(57, &Stop::default()).unwrap(), None);
        b.steps(57).unwrap();
        assert_eq!(a.q.layers()[0].weights(), b.q.layers()[0].weights());
        assert_eq!(steps_taken(&a), steps_taken(&b));
    }

    #[test]
    fn play_in_slices_evaluates_each_epoch_over_several_calls_to_the_same_numbers() {
        let p = TrainParams { ratio: 0.5, ..small() };
        let (mut sliced, mut whole) = (Runs::new(&p).unwrap(), Runs::new(&p).unwrap());
        let per_epoch = whole.q.batches_per_epoch();
        whole.steps(2 * per_epoch).unwrap();
        let (mut steps, mut calls_evaluating) = (0, 0);
        while sliced.q.history().len() < 2 {
            let evaluating = sliced.q.is_evaluating();
            let (n, stopped) = sliced.work(7, &Stop::default()).unwrap();
            assert_eq!(stopped, None);
            assert!(n == 0 || !evaluating, "no training while an epoch is evaluated");
            calls_evaluating += usize::from(evaluating);
            steps += n;
        }
        assert_eq!(steps, 2 * per_epoch);
        // 250 training and 250 test points, 7 × 10 × 3 = 210 rows a call: 3 calls an epoch.
        assert_eq!(calls_evaluating, 2 * 3, "each evaluation spread over calls");
        assert_eq!(sliced.q.history(), whole.q.history());
        assert_eq!(sliced.f.history(), whole.f.history());
        assert_eq!(sliced.q.confusion(true), whole.q.confusion(true));
    }

    #[test]
    fn a_pause_mid_evaluation_ends_it_and_nothing_trains_on_half_evaluated_weights() {
        let mut r = Runs::new(&small()).unwrap();
        let per_epoch = r.q.batches_per_epoch();
        assert_eq!(r.work(per_epoch + 5, &Stop::default()).unwrap(), (per_epoch, None));
        assert!(r.q.is_evaluating() && r.q.history().is_empty());
        r.work(1, &Stop::default()).unwrap();
        r.settle().unwrap();
        assert!(!r.q.is_evaluating() && !r.f.is_evaluating());
        assert_eq!(r.q.history().len(), 1);
        let mut stepped = Runs::new(&small()).unwrap();
        stepped.epoch().unwrap();
        assert_eq!(r.q.history(), stepped.q.history());
    }

    #[test]
    fn play_in_slices_stops_where_stepping_stops() {
        let stop = Stop { epoch: 0, accuracy: 60.0 };
        let mut stepped = Runs::new(&small()).unwrap();
        stepped.steps_until(usize::MAX, &stop).unwrap().unwrap();
        let mut sliced = Runs::new(&small()).unwrap();
        let why = loop {
            if let (_, Some(why)) = sliced.work(25, &stop).unwrap() {
                break why;
            }
        };
        assert!(why.contains("reached 60 %"), "{why}");
        assert_eq!((sliced.q.epoch(), sliced.q.history()), (stepped.q.epoch(), stepped.q.history()));
    }

    #[test]
    fn a_twin_sharing_the_data_trains_as_one_that_made_it() {
        let p = small();
        let q = Trainer::new(p.config(Net::Quantized).unwrap()).unwrap();
        let mut shared = Trainer::sharing_data(p.config(Net::Float).unwrap(), &q).unwrap();
        let mut own = Trainer::new(p.config(Net::Float).unwrap()).unwrap();
        assert_eq!(shared.dataset(), own.dataset());
        assert_eq!(shared.step_epoch().unwrap(), own.step_epoch().unwrap());
        // Another seed is other data: made anew, not copied.
        let other = TrainParams { seed: 7, ..p.clone() };
        let reseeded = Trainer::sharing_data(other.config(Net::Float).unwrap(), &q).unwrap();
        assert_ne!(reseeded.dataset(), q.dataset());
    }
}
