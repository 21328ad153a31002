//! The documentation's examples keep working: every link and command the README showed before
//! the settings moved into one table opens or runs as it did (the book repeats them).

use qscope_explore::page::Page;
use qscope_explore::state::{Mode, State};
use qscope_explore::train::TrainParams;

use crate::common::cli::{qscope, stderr, stdout};

#[test]
fn the_explorer_link_opens_its_state_without_a_problem() {
    let link = "#q=qkeras.quantized_bits(4,0,1)&q=larq.approx_sign&x=-2,2&mode=infer&seed=3&sample=laplace,0.2&hide=alpha&sel=1";
    let (st, problems) = State::parse(link);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(st.slots.len(), 2);
    assert_eq!((st.x, st.mode, st.seed), ((-2.0, 2.0), Mode::Infer, 3));
    assert_eq!(st.sample.spread, 0.2);
    assert_eq!(st.hide, ["alpha"]);
    assert_eq!(st.selected, 1);
    assert_eq!(State::parse(&st.to_hash()).0, st);
}

#[test]
fn the_trainer_link_opens_its_settings_without_a_problem() {
    let (p, problems) = TrainParams::parse("#view=train&dataset=xor&hidden=8,8&wq=qkeras.quantized_bits(4,0,1)&play=1");
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(p.hidden, [8, 8]);
    assert!(p.play);
    assert_eq!(TrainParams::parse(&p.to_hash()).0, p);
}

#[test]
fn the_lesson_links_open_their_step() {
    for (link, step) in [("#lesson=ste", 1), ("#lesson=ste&step=3", 3)] {
        let (page, view, problems) = Page::split(link);
        assert!(problems.is_empty(), "{link}: {problems:?}");
        assert_eq!((page.lesson.as_deref(), page.step, view.as_str()), (Some("ste"), step, "#"));
    }
}

#[test]
fn the_eval_example_prints_its_lines() {
    let out = qscope(&["eval", "qkeras.quantized_bits(4,0,1)"], "-1 -0.4375 0.1875 0.3 2");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "-1 -0.875 1\n-0.4375 -0.5 1\n0.1875 0.25 1\n0.3 0.25 1\n2 0.875 1\n");
}

#[test]
fn the_documented_commands_run() {
    let dir = std::env::temp_dir().join(format!("qscope-examples-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = |name: &str| dir.join(name).display().to_string();
    let (signs, mean, formats) = (file("signs.svg"), file("mean.png"), file("formats.svg"));
    let commands: Vec<Vec<&str>> = vec![
        vec!["list"],
        vec!["list", "bnb"],
        vec!["code", "larq.SteSign(clip_value=0.5)"],
        vec!["code", "larq.SteSign(clip_value=0.5)", "--lang", "pytorch"],
        vec!["plot", "qkeras.quantized_bits(4,0,1)", "larq.ste_sign", "-o", &signs, "--x", "-1.5,1.5"],
        vec!["plot", "qkeras.stochastic_round", "-o", &mean, "--width", "720", "--height", "640"],
        vec!["compare", "-o", &formats, "--sample", "student_t,0.5", "--df", "3"],
        vec!["compare", "torchao.float8", "ml_dtypes.float4_e2m1fn", "--sample", "normal,0.5", "--outliers", "0.01"],
        vec![
            "train",
            "--dataset",
            "digits",
            "--hidden",
            "32",
            "--optimizer",
            "adam",
            "--wq",
            "larq.ste_sign",
            "--epochs",
            "1",
        ],
        vec!["lesson", "check", "lessons/ste.md"],
        vec!["lesson", "link", "lessons/ste.md", "--step", "2"],
        vec![
            "train",
            "--dataset",
            "spiral",
            "--hidden",
            "16,16",
            "--activation",
            "tanh",
            "--optimizer",
            "adam",
            "--lr",
            "0.01",
            "--epochs",
            "2",
            "--wq",
            "qkeras.quantized_bits(4,0,1)",
            "--aq",
            "qkeras.quantized_tanh(4)",
            "--seed",
            "0",
            "--json",
        ],
    ];
    for args in &commands {
        let out = qscope(args, "");
        assert!(out.status.success(), "qscope {}: {}", args.join(" "), stderr(&out));
        assert!(!out.stdout.is_empty() || args.contains(&"-o"), "qscope {} printed nothing", args.join(" "));
    }
    for f in [&signs, &mean, &formats] {
        assert!(std::fs::metadata(f).is_ok_and(|m| m.len() > 1000), "{f}");
    }
    std::fs::remove_dir_all(&dir).ok();
}
