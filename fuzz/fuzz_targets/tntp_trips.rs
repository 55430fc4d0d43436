//! TNTP trip tables: no panic; a table read adds up to its `<TOTAL OD FLOW>` when it declares one, within
//! half a unit of the header's last written digit.
#![no_main]
use libfuzzer_sys::fuzz_target;
use urbanflow::graph::io::tntp::parse_trips;

/// Half a unit of the last digit of a number as written (`1.36148e+006` → 5), plus f64 sum rounding.
fn half_unit(written: &str, total: f64) -> f64 {
    let (mantissa, exponent) = match written.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.parse::<i32>().unwrap_or(0)),
        None => (written, 0),
    };
    let decimals = mantissa.split_once('.').map_or(0, |(_, f)| f.len() as i32);
    0.5 * 10f64.powi(exponent - decimals) * (1.0 + 1e-9) + 1e-9 * total.abs()
}

fuzz_target!(|data: &[u8]| {
    if let Ok(t) = parse_trips(data, "fuzz_trips.tntp")
        && let Some(total) = t.total_od_flow
    {
        let text = String::from_utf8_lossy(data);
        let written = text
            .lines()
            .find_map(|l| l.trim().strip_prefix("<TOTAL OD FLOW>"))
            .and_then(|r| r.split_ascii_whitespace().next())
            .unwrap_or("0");
        assert!((t.total() - total).abs() <= half_unit(written, total), "{} vs {total}", t.total());
    }
});
