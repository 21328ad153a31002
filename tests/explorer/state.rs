//! The explorer state in the URL hash (`qscope_explore::state`): reading shared links,
//! round trips, every kind of bad part, and arbitrary text never panicking.

use proptest::prelude::*;
use qscope_explore::hash::{decode, encode};
use qscope_explore::sample::Dist;
use qscope_explore::sample::settings::Sample;
use qscope_explore::state::{DEFAULT_X, MAX_QUANTIZERS, Mode, Slot, State, compact, default_quantizer, pan, zoom};
use qscope_quant::{ENTRIES, Literal, Quantizer, parse};

fn q(spec: &str) -> Quantizer {
    parse(spec).unwrap_or_else(|e| panic!("{spec}: {e}"))
}

/// Parses `hash`, insisting there is no problem.
fn clean(hash: &str) -> State {
    let (st, problems) = State::parse(hash);
    assert!(problems.is_empty(), "{hash}: {problems:?}");
    st
}

fn round_trip(st: &State) {
    let hash = st.to_hash();
    let (back, problems) = State::parse(&hash);
    assert!(problems.is_empty(), "{hash}: {problems:?}");
    assert_eq!(&back, st, "{hash}");
    assert_eq!(back.to_hash(), hash);
}

#[test]
fn an_empty_hash_is_the_default_state() {
    for h in ["", "#", "#&&", "&"] {
        assert_eq!(clean(h), State::default(), "{h:?}");
    }
    assert_eq!(State::default().slots, vec![Slot::new(default_quantizer())]);
    assert_eq!(State::default().x, DEFAULT_X);
}

#[test]
fn a_shared_link_lists_its_quantizers_in_order() {
    let st = clean("#q=qkeras.quantized_bits(4,0,1)&q=larq.approx_sign&x=-2,2");
    assert_eq!(st.slots, vec![Slot::new(q("qkeras.quantized_bits(4,0,1)")), Slot::new(q("larq.approx_sign"))]);
    assert_eq!(st.x, (-2.0, 2.0));
    assert_eq!((st.mode, st.seed, st.selected), (Mode::Train, 0, 0));
}

#[test]
fn every_key_is_read() {
    let st = clean(
        "#q=qkeras.quantized_bits(4,0,1)&q=!larq.ste_sign&x=-1.5,0.25&mode=infer&seed=42\
         &sample=laplace,0.2&hide=alpha,symmetric,picker&sel=1",
    );
    assert!(!st.slots[0].hidden && st.slots[1].hidden);
    assert_eq!(st.x, (-1.5, 0.25));
    assert_eq!(st.mode, Mode::Infer);
    assert_eq!(st.seed, 42);
    assert_eq!(st.sample, Sample { dist: Dist::Laplace, spread: 0.2, ..Sample::default() });
    assert_eq!(st.hide, vec!["alpha", "symmetric", "picker"]);
    assert!(st.hides("alpha") && !st.hides("bits"));
    assert_eq!(st.selected, 1);
    assert_eq!(st.sample_spec().seed, 42);
    round_trip(&st);
}

#[test]
fn a_heavy_tailed_sample_with_outliers_is_read_and_written_after_the_seed() {
    let st = clean("#q=ste&x=-2,2&seed=3&sample=student_t,0.25&df=2.5&outliers=0.01");
    assert_eq!(st.sample, Sample { dist: Dist::StudentT, spread: 0.25, df: 2.5, outliers: 0.01 });
    assert_eq!(st.to_hash(), "#q=ste&x=-2,2&seed=3&sample=student_t,0.25&df=2.5&outliers=0.01");
    let spec = st.sample_spec();
    assert_eq!((spec.dist, spec.df, spec.outliers, spec.seed), (Dist::StudentT, 2.5, 0.01, 3));
    let (_, problems) = State::parse("df=0&outliers=1");
    assert_eq!(problems[0], "df=0: expected degrees of freedom from 1 to 100");
    assert_eq!(problems[1], "outliers=1: expected a share from 0 to 0.5");
}

#[test]
fn the_printed_hash_is_canonical_readable_and_minimal() {
    let st = clean("#q=quantized_bits(4,0,1)&q=larq.approx_sign&x=-2,2");
    assert_eq!(st.to_hash(), "#q=qkeras.quantized_bits(bits=4,symmetric=True)&q=larq.ApproxSign&x=-2,2");
    let st = clean("q=qkeras.quantized_bits(4,0,1,alpha='auto')&x=-0.5,0.5&mode=infer&seed=7&sel=0");
    assert_eq!(
        st.to_hash(),
        "#q=qkeras.quantized_bits(bits=4,symmetric=True,alpha='auto')&x=-0.5,0.5&mode=infer&seed=7"
    );
}

#[test]
fn specs_in_every_accepted_form_are_read() {
    // Keras config JSON, percent-encoded as a browser would.
    let json = r#"{"class_name": "quantized_bits", "config": {"bits": 3, "integer": 0}}"#;
    let st = clean(&format!("#q={}", encode(json)));
    assert_eq!(st.slots[0].quantizer, q("qkeras.quantized_bits(3,0)"));
    // Encoded spaces, =, commas and parentheses, as `qscope plot` and other tools write them.
    let st = clean("#q=qkeras.quantized_bits%28bits%3D4%2C%20symmetric%3DTrue%29&x=-2,2");
    assert_eq!(st.slots[0].quantizer, q("qkeras.quantized_bits(4,0,1)"));
    // A raw space (some browsers show it) and a plus inside a number.
    let st = clean("#q=quantized_bits(4, 0, 1)&q=pact(bits=4,alpha=1e+1)");
    assert_eq!(st.slots[1].quantizer, q("pact(bits=4, alpha=10.0)"));
}

#[test]
fn the_cli_permalink_form_is_read() {
    let st = clean("#q=qkeras.quantized_bits(bits%3D4)&x=-1,1&infer=1&seed=3");
    assert_eq!((st.mode, st.seed), (Mode::Infer, 3));
}

#[test]
fn a_hidden_quantizer_round_trips() {
    let mut st = State::default();
    st.add(q("larq.SteTern(threshold_value=0.1)")).unwrap();
    st.toggle_hidden(0);
    assert!(st.to_hash().contains("q=!qkeras."));
    round_trip(&st);
}

#[test]
fn strings_with_spaces_and_special_characters_round_trip() {
    let mut st = State::default();
    st.set_selected(q("qkeras.quantized_bits(4, var_name='my w&b #1 100%')"));
    let hash = st.to_hash();
    assert!(hash.contains("var_name='my%20w%26b%20%231%20100%25'"), "{hash}");
    round_trip(&st);
}

#[test]
fn strings_with_quotes_backslashes_and_spaces_round_trip_escaped() {
    let mut st = State::default();
    st.set_selected(q(r#"qkeras.quantized_bits(var_name="it's a \\ b")"#));
    round_trip(&st);
    assert_eq!(compact(r"f(var_name='it\'s a b', bits=4)"), r"f(var_name='it\'s a b',bits=4)");
}

#[test]
fn every_catalogue_default_round_trips() {
    for chunk in ENTRIES.chunks(MAX_QUANTIZERS) {
        let st = State { slots: chunk.iter().map(|e| Slot::new((e.default)())).collect(), ..State::default() };
        round_trip(&st);
    }
}

#[test]
fn compact_drops_spaces_outside_quotes_only() {
    assert_eq!(compact("f(a=1, b='x y', c=\"p q\")"), "f(a=1,b='x y',c=\"p q\")");
}

#[test]
fn encoding_keeps_specs_readable() {
    assert_eq!(encode("qkeras.quantized_bits(bits=4,alpha='auto')"), "qkeras.quantized_bits(bits=4,alpha='auto')");
    assert_eq!(encode("a b&c#d%e\"f<g>"), "a%20b%26c%23d%25e%22f%3Cg%3E");
    assert_eq!(encode("µ"), "%C2%B5");
    assert_eq!(decode("%C2%B5%zz%4"), "µ%zz%4");
    assert_eq!(decode("1e+3"), "1e+3");
    assert_eq!(decode("%FF"), "\u{FFFD}");
}

#[test]
fn a_bad_spec_gives_its_parser_message_and_the_good_ones_stay() {
    let (st, problems) = State::parse("#q=quantized_bitz(4)&q=larq.ste_sign&x=-1,1");
    assert_eq!(st.slots, vec![Slot::new(q("larq.ste_sign"))]);
    assert_eq!(st.x, (-1.0, 1.0));
    assert_eq!(problems.len(), 1);
    assert!(problems[0].starts_with("q=quantized_bitz(4): unknown quantizer"), "{problems:?}");
    assert!(problems[0].contains("did you mean 'quantized_bits'"), "{problems:?}");
}

#[test]
fn a_corrupt_hash_gives_defaults_and_a_message_per_problem() {
    let (st, problems) = State::parse("#q=quantized_bitz(4)&x=oops");
    assert_eq!(st, State::default());
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(problems[1].starts_with("x=oops: expected two finite numbers"), "{problems:?}");
}

#[test]
fn bad_x_ranges_are_named() {
    for (x, why) in [
        ("1", "expected two finite numbers"),
        ("1,2,3", "expected two finite numbers"),
        ("2,1", "expected lo < hi"),
        ("1,1", "expected lo < hi"),
        ("nan,1", "finite"),
        ("-inf,1", "finite"),
        ("-1e9,1", "from -1000000 to 1000000"),
        ("1000,1000.0001", "too narrow"),
    ] {
        let (st, problems) = State::parse(&format!("x={x}"));
        assert_eq!(st.x, DEFAULT_X, "{x}");
        assert_eq!(problems.len(), 1, "{x}: {problems:?}");
        assert!(problems[0].starts_with(&format!("x={x}: ")) && problems[0].contains(why), "{x}: {problems:?}");
    }
    assert_eq!(clean("x=−3,3").x, (-3.0, 3.0), "a true minus sign is read");
}

#[test]
fn other_bad_values_are_named() {
    let cases = [
        ("mode=fast", "mode=fast: expected train or infer"),
        ("infer=maybe", "infer=maybe: expected 1 or 0"),
        ("seed=-1", "seed=-1: expected a whole number"),
        ("seed=18446744073709551616", "seed=18446744073709551616: expected a whole number"),
        ("sample=gauss,0.5", "sample=gauss,0.5: unknown distribution 'gauss'"),
        ("sample=normal,0", "spread '0'"),
        ("sample=normal,-1", "spread '-1'"),
        ("sample=uniform,inf", "spread 'inf'"),
        ("hide=bitz", "hide=bitz: no parameter or section is called 'bitz'; did you mean 'bits'?"),
        ("sel=x", "sel=x: expected the index"),
        ("sel=3", "sel=3: there is only 1 quantizer (0 to 0)"),
        ("zoom=2", "unknown key 'zoom'"),
        ("seeds=3", "unknown key 'seeds'; did you mean 'seed'?"),
        ("x", "'x' has no value"),
        ("q", "'q' has no value"),
    ];
    for (hash, message) in cases {
        let (st, problems) = State::parse(hash);
        assert_eq!(st, State::default(), "{hash}");
        assert_eq!(problems.len(), 1, "{hash}: {problems:?}");
        assert!(problems[0].contains(message), "{hash}: {problems:?}");
    }
    assert_eq!(clean("sample=uniform").sample, Sample { dist: Dist::Uniform, spread: 0.5, ..Sample::default() });
}

#[test]
fn a_pinned_x_is_read_and_printed_after_the_other_keys() {
    let st = clean("#q=larq.SteSign&pin=1.5&sel=0");
    assert_eq!(st.pin, Some(1.5));
    assert_eq!(st.to_hash(), "#q=larq.SteSign&x=-2,2&pin=1.5");
    assert_eq!(clean("pin=−0.25").pin, Some(-0.25), "a true minus sign is read");
    round_trip(&State { pin: Some(-1e6), ..State::default() });
}

#[test]
fn no_pin_is_the_default_and_is_not_printed() {
    assert_eq!(State::default().pin, None);
    assert!(!State::default().to_hash().contains("pin"));
}

#[test]
fn a_bad_pin_is_named_and_leaves_none_pinned() {
    for value in ["oops", "nan", "inf", "2e6", "-1000001", ""] {
        let (st, problems) = State::parse(&format!("pin={value}"));
        assert_eq!(st.pin, None, "{value}");
        assert_eq!(problems.len(), 1, "{value}: {problems:?}");
        assert!(problems[0].starts_with(&format!("pin={value}: expected a finite x")), "{problems:?}");
    }
}

#[test]
fn more_than_six_quantizers_keep_the_first_six() {
    let specs =
        ["larq.ste_sign", "larq.approx_sign", "larq.SwishSign", "softround", "ste", "clipped_ste", "pact", "lsq"];
    let hash: Vec<String> = specs.iter().map(|s| format!("q={s}")).collect();
    let (st, problems) = State::parse(&hash.join("&"));
    assert_eq!(st.slots.len(), MAX_QUANTIZERS);
    assert_eq!(st.slots[5].quantizer, q("clipped_ste"));
    assert_eq!(problems, vec!["8 quantizers given: at most 6 are compared; the last 2 were left out".to_string()]);
}

#[test]
fn long_user_text_is_shortened_in_messages() {
    let long = "z".repeat(500);
    let (_, problems) = State::parse(&format!("mode={long}"));
    assert!(problems[0].len() < 120, "{problems:?}");
    assert!(problems[0].contains('…'));
}

#[test]
fn editing_keeps_the_state_consistent() {
    let mut st = State::default();
    for s in ["larq.ste_sign", "softround", "ste"] {
        st.add(q(s)).unwrap();
    }
    assert_eq!(st.selected, 3);
    st.select(1);
    st.remove(0);
    assert_eq!((st.selected, st.selected_slot().quantizer.clone()), (0, q("larq.ste_sign")));
    st.remove(0);
    assert_eq!(st.selected_slot().quantizer, q("softround"));
    st.select(1);
    st.remove(1);
    assert_eq!(st.selected_slot().quantizer, q("softround"));
    st.remove(0);
    assert_eq!(st.slots.len(), 1, "the last quantizer stays");
    st.select(7);
    assert_eq!(st.selected, 0);
    for _ in 1..MAX_QUANTIZERS {
        st.add(q("ste")).unwrap();
    }
    assert!(st.add(q("ste")).unwrap_err().contains("at most 6"));
    let mut edited = st.selected_slot().quantizer.clone();
    edited.set("bits", &Literal::Int(3)).unwrap_err();
    st.set_selected(q("pact(bits=3)"));
    assert_eq!(st.slots[5].quantizer, q("pact(bits=3)"));
    assert!(st.set_x((1.0, 0.0)).is_err());
    st.set_x((-4.0, 4.0)).unwrap();
    round_trip(&st);
}

#[test]
fn zoom_and_pan_stay_valid() {
    assert_eq!(zoom((-2.0, 2.0), 0.0, 0.5), (-1.0, 1.0));
    assert_eq!(zoom((-2.0, 2.0), 2.0, 0.5), (0.0, 2.0));
    assert_eq!(zoom((-2.0, 2.0), 0.0, f32::NAN), (-2.0, 2.0));
    assert_eq!(zoom((-1e6, 1e6), 0.0, 10.0), (-1e6, 1e6));
    let tiny = zoom((-1e-4, 1e-4), 0.0, 1e-3);
    assert_eq!(tiny, (-1e-4, 1e-4), "too narrow: unchanged");
    assert_eq!(pan((-2.0, 2.0), 1.0), (-1.0, 3.0));
    assert_eq!(pan((-1000.0, 1000.0), 1e9), (998_000.0, 1e6), "stops at the limit");
    assert_eq!(pan((-2.0, 2.0), 1e9), (-2.0, 2.0), "too narrow at the limit: unchanged");
}

fn slot() -> impl Strategy<Value = Slot> {
    (0..ENTRIES.len(), any::<bool>(), 1u32..9).prop_map(|(i, hidden, bits)| {
        let mut quantizer = (ENTRIES[i].default)();
        // Vary a common parameter where the quantizer has it and the value is allowed.
        let mut tried = quantizer.clone();
        if tried.set("bits", &Literal::Int(bits as i64)).is_ok() && tried.validate().is_ok() {
            quantizer = tried;
        }
        Slot { quantizer, hidden }
    })
}

fn state() -> impl Strategy<Value = State> {
    (
        prop::collection::vec(slot(), 1..=MAX_QUANTIZERS),
        (-1000.0f32..1000.0, 0.01f32..500.0),
        any::<bool>(),
        any::<u64>(),
        (0..Dist::ALL.len(), 0.001f32..100.0, 1.0f32..=100.0, prop::option::of(0.0f32..=0.5)),
        prop::sample::subsequence(vec!["bits", "alpha", "picker", "integer", "code"], 0..=3),
        any::<prop::sample::Index>(),
        prop::option::of(-1e6f32..=1e6),
        prop::option::of(1usize..=40),
        // A file and a tensor name: any text a file system or a checkpoint allows.
        prop::option::of(("[^\\x00]{1,40}", "[^\\x00]{1,60}")),
        (prop::option::of(0usize..4), prop::option::of(0usize..5000)),
    )
        .prop_map(
            |(
                slots,
                (lo, w),
                infer,
                seed,
                (d, spread, df, outliers),
                hide,
                sel,
                pin,
                block,
                source,
                (axis, channel),
            )| {
                let mut st = State {
                    selected: sel.index(slots.len()),
                    slots,
                    // At least the narrowest range check_x accepts at that magnitude.
                    x: (lo, lo + w.max(lo.abs() * 1e-3)),
                    mode: if infer { Mode::Infer } else { Mode::Train },
                    seed,
                    sample: Sample { dist: Dist::ALL[d], spread, df, outliers: outliers.unwrap_or(0.0) },
                    hide: hide.into_iter().map(String::from).collect(),
                    pin,
                    block: None,
                    file: source.as_ref().map(|s| s.0.clone()),
                    tensor: source.map(|s| s.1),
                    axis,
                    channel,
                };
                // A block is kept only where a compared block format has it (see State::drawn_block).
                st.block = block.filter(|&k| k <= st.block_count());
                st
            },
        )
}

proptest! {
    #[test]
    fn any_state_round_trips(st in state()) {
        let hash = st.to_hash();
        let (back, problems) = State::parse(&hash);
        prop_assert!(problems.is_empty(), "{}: {:?}", hash, problems);
        prop_assert_eq!(back, st);
    }

    #[test]
    fn arbitrary_text_never_panics(text in ".{0,200}") {
        let (st, _) = State::parse(&text);
        prop_assert!(!st.slots.is_empty() && st.slots.len() <= MAX_QUANTIZERS);
        prop_assert!(st.selected < st.slots.len());
        prop_assert!(st.x.0.is_finite() && st.x.1.is_finite() && st.x.0 < st.x.1);
    }

    #[test]
    fn hash_like_text_never_panics(
        parts in prop::collection::vec(
            (prop::sample::select(vec!["q", "x", "mode", "seed", "sample", "hide", "sel", "infer", "Q", "%71", ""]),
             "[-0-9a-z.,=()'!%&#_ ]{0,30}"),
            0..12,
        )
    ) {
        let hash: Vec<String> = parts.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let (st, _) = State::parse(&format!("#{}", hash.join("&")));
        prop_assert!(!st.slots.is_empty() && st.selected < st.slots.len());
        // What was read prints and reads back as itself.
        let (back, problems) = State::parse(&st.to_hash());
        prop_assert!(problems.is_empty(), "{:?}", problems);
        prop_assert_eq!(back, st);
    }

    #[test]
    fn encoding_round_trips(s in "\\PC{0,40}") {
        prop_assert_eq!(decode(&encode(&s)), s);
    }

    #[test]
    fn zoom_and_pan_give_valid_ranges(lo in -1e5f32..1e5, w in 1e-2f32..1e4, at in -1e5f32..1e5, f in 0.01f32..100.0, dx in -1e7f32..1e7) {
        let z = zoom((lo, lo + w), at, f);
        prop_assert!(z.0 < z.1 && z.0.is_finite() && z.1.is_finite());
        let p = pan((lo, lo + w), dx);
        prop_assert!(p.0 < p.1 && p.0 >= -1e6 && p.1 <= 1e6);
    }
}
