//! When training stops by itself (TensorFlow Playground #7): at an epoch, or when the quantized
//! net's test accuracy reaches a share. Both are events — an epoch ending *at* N, the accuracy
//! crossing X from below — so pressing Play after a stop trains on rather than stopping at once.

use qscope_nn::Metrics;

/// The stopping conditions; 0 turns one off.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Stop {
    /// Stop when this epoch ends.
    pub epoch: usize,
    /// Stop when the quantized net's test accuracy reaches this many percent.
    pub accuracy: f32,
}

impl Stop {
    /// Whether either condition is on.
    pub fn is_on(&self) -> bool {
        self.epoch > 0 || self.accuracy > 0.0
    }

    /// Why training stops after the epoch that ended with `now`, the quantized net's test
    /// accuracy having been `before` (a share) at the epoch before it; None to train on.
    pub fn reached(&self, before: Option<f64>, now: &Metrics) -> Option<String> {
        if self.epoch > 0 && now.epoch == self.epoch {
            return Some(format!("stopped at epoch {}, as set", now.epoch));
        }
        let x = f64::from(self.accuracy) / 100.0;
        match now.test_acc {
            Some(acc) if self.accuracy > 0.0 && acc >= x && before.is_none_or(|b| b < x) => Some(format!(
                "stopped at epoch {}: test accuracy {:.1} % reached {} %",
                now.epoch,
                100.0 * acc,
                self.accuracy
            )),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(epoch: usize, test_acc: Option<f64>) -> Metrics {
        Metrics { epoch, train_loss: 0.5, test_loss: 0.5, train_acc: test_acc, test_acc }
    }

    #[test]
    fn stops_when_the_set_epoch_ends_and_not_after() {
        let stop = Stop { epoch: 30, accuracy: 0.0 };
        assert_eq!(stop.reached(None, &at(29, Some(0.5))), None);
        assert_eq!(stop.reached(None, &at(30, Some(0.5))).as_deref(), Some("stopped at epoch 30, as set"));
        assert_eq!(stop.reached(None, &at(31, Some(0.5))), None);
    }

    #[test]
    fn stops_when_the_accuracy_crosses_the_share_from_below() {
        let stop = Stop { epoch: 0, accuracy: 95.0 };
        let why = stop.reached(Some(0.94), &at(12, Some(0.95)));
        assert_eq!(why.as_deref(), Some("stopped at epoch 12: test accuracy 95.0 % reached 95 %"));
        assert_eq!(stop.reached(Some(0.9499), &at(12, Some(0.949))), None, "below");
        assert_eq!(stop.reached(Some(0.96), &at(13, Some(0.97))), None, "already above: Play trains on");
    }

    #[test]
    fn exactly_the_share_reaches_it() {
        // 342 of 360 right is the f64 nearest 0.95, as 95 % is.
        let stop = Stop { epoch: 0, accuracy: 95.0 };
        assert!(stop.reached(Some(0.5), &at(3, Some(342.0 / 360.0))).is_some());
    }

    #[test]
    fn a_regression_has_no_accuracy_to_reach_and_off_stops_nothing() {
        assert_eq!(Stop { epoch: 0, accuracy: 50.0 }.reached(None, &at(5, None)), None);
        assert!(!Stop::default().is_on());
        assert_eq!(Stop::default().reached(Some(0.1), &at(1, Some(1.0))), None);
    }
}
