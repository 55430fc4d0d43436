// Element type f32 (see elem_u32.wgsl). The order key is the IEEE total order on the bits (negatives
// inverted); NaN is recognised from the bits so no compiler fast-math can hide it.
alias Elem = f32;
fn elem_from_bits(b: u32) -> Elem { return bitcast<f32>(b); }
fn elem_to_bits(x: Elem) -> u32 { return bitcast<u32>(x); }
fn elem_is_nan(b: u32) -> bool { return (b & 0x7FFFFFFFu) > 0x7F800000u; }
fn elem_order_key(b: u32) -> u32 { return select(b | 0x80000000u, ~b, (b >> 31u) == 1u); }
fn elem_lowest() -> Elem { return bitcast<f32>(0xFF800000u); }
fn elem_highest() -> Elem { return bitcast<f32>(0x7F800000u); }
