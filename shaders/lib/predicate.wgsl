// Element predicates for count and compaction, chosen at run time by a uniform:
// op 0 ==a, 1 !=a, 2 <a, 3 <=a, 4 >a, 5 >=a, 6 a<=x<b, 7 x!=0. NaN satisfies only != (IEEE comparisons);
// != is written !(==) because SPIR-V's ordered not-equal is false for NaN.
fn predicate(b: u32, op: u32, a_bits: u32, b_bits: u32) -> bool {
    let x = elem_from_bits(b);
    let a = elem_from_bits(a_bits);
    let c = elem_from_bits(b_bits);
    switch op {
        case 0u: { return x == a; }
        case 1u: { return !(x == a); }
        case 2u: { return x < a; }
        case 3u: { return x <= a; }
        case 4u: { return x > a; }
        case 5u: { return x >= a; }
        case 6u: { return a <= x && x < c; }
        default: { return !(x == elem_from_bits(0u)); }
    }
}
