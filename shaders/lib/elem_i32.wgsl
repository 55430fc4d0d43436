// Element type i32 (see elem_u32.wgsl). The order key flips the sign bit.
alias Elem = i32;
fn elem_from_bits(b: u32) -> Elem { return bitcast<i32>(b); }
fn elem_to_bits(x: Elem) -> u32 { return bitcast<u32>(x); }
fn elem_is_nan(b: u32) -> bool { return false; }
fn elem_order_key(b: u32) -> u32 { return b ^ 0x80000000u; }
fn elem_lowest() -> Elem { return bitcast<i32>(0x80000000u); }
fn elem_highest() -> Elem { return 0x7FFFFFFF; }
