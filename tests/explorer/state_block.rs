//! The explorer hash's `block=k`: the sample block a block format's curve is drawn at.

use qscope_explore::state::State;

#[test]
fn a_chosen_sample_block_round_trips_and_the_sweep_is_the_default() {
    let hash = "#q=torchao.mx(elem_dtype='fp4_e2m1')&x=-2,2&block=5";
    let (st, problems) = State::parse(hash);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(st.block, Some(5));
    assert!(st.to_hash().ends_with("&block=5"), "{}", st.to_hash());
    let (sweep, problems) = State::parse("#q=torchao.mx(elem_dtype='fp4_e2m1')&x=-2,2&block=sweep");
    assert!(problems.is_empty() && sweep.block.is_none(), "{problems:?}");
    assert!(!sweep.to_hash().contains("block"));
}

#[test]
fn the_blocks_go_up_to_the_most_a_compared_format_has() {
    // 1000 sample elements: MX cuts 32 blocks, NF4 (blocksize 64) 16.
    let both = "#q=bnb.nf4&q=torchao.mx(elem_dtype='fp4_e2m1')&x=-2,2";
    assert_eq!(State::parse(&format!("{both}&block=32")).0.block, Some(32));
    let (st, problems) = State::parse(&format!("{both}&block=33"));
    assert_eq!(st.block, None);
    assert_eq!(problems, ["block=33: the sample has blocks 1 to 32"]);
}

#[test]
fn a_bad_block_falls_back_to_the_sweep_with_a_message() {
    let (st, problems) = State::parse("#q=torchao.mx&block=0");
    assert_eq!((st.block, problems), (None, vec!["block=0: the sample has blocks 1 to 32".to_string()]));
    let (_, problems) = State::parse("#q=torchao.mx&block=two");
    assert_eq!(problems, ["block=two: expected sweep or the number of a sample block (1, 2, …)"]);
    let (_, problems) = State::parse("#q=qkeras.quantized_bits(4,0,1)&block=2");
    assert_eq!(problems, ["block=2: no block format is compared"]);
}

#[test]
fn a_block_no_compared_format_has_is_not_written() {
    let (mut st, _) = State::parse("#q=torchao.mx&block=20");
    st.set_selected(qscope_quant::parse("bnb.nf4").unwrap());
    assert_eq!(st.drawn_block(), None);
    assert!(!st.to_hash().contains("block"));
}
