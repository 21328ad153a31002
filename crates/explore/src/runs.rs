//! The Train view's networks, trained in lockstep: the quantized net, its float twin (same
//! config and seed, no quantizers) and, when asked for, a third twin with another STE. Every
//! step takes the same batches in each, so their curves compare epoch by epoch.
//!
//! A change of quantizer or learning rate mid-run is swapped into the running trainers
//! ([`Runs::apply_live`]) and each quantizer that changed is marked at its epoch ([`Mark`]),
//! for the curves to show; a change of architecture builds new [`Runs`] instead.

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
        let mut f = Trainer::new(p.config(Net::Float)?)?;
        let mut t = if p.has_twin() { Some(Trainer::new(p.config(Net::Twin)?)?) } else { None };
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
}
