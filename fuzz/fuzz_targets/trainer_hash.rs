//! The trainer's hash: never a panic; the settings read print to a hash that reads back to
//! the same settings without a complaint and prints the same again; the networks' configs and
//! the equivalent `qscope train` command are made without a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use qscope_explore::train::{Net, TrainParams};

fuzz_target!(|hash: &str| {
    let (p, _) = TrainParams::parse(hash);
    let printed = p.to_hash();
    let (again, problems) = TrainParams::parse(&printed);
    assert!(problems.is_empty(), "{hash:?} prints as {printed:?}, which reads with {problems:?}");
    assert_eq!(again, p, "{hash:?} prints as {printed:?}, which reads as other settings");
    assert_eq!(again.to_hash(), printed, "the hash of {hash:?} is not stable");
    for net in [Net::Quantized, Net::Float, Net::Twin] {
        let _ = p.config(net);
        let _ = p.cli_command(net, 10);
    }
    let _ = p.rebuild_key();
});
