//! A transit journey on a GTFS feed: build the time-dependent network of one service day, then ask for
//! the earliest arrival between two places, walking and riding.
//!
//! ```text
//! cargo run --release --example journey            # New York's subway, Fordham Road to Wall Street
//! cargo run --release --example journey -- FEED.zip YYYY-MM-DD LAT,LON LAT,LON HH:MM
//! ```
//! `urbanflow journey` is the full command (profiles with bicycles, roads, batches on the GPU, GeoJSON).

use urbanflow::transit::transit::{TransitNetwork, TransitOptions};
use urbanflow::transit::{EapQuery, Nfa, Semantics, earliest_arrival, label};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let feed = match args.next() {
        Some(f) => f.into(),
        None => match urbanflow::graph::datasets::data_path("transit/nyc_subway_gtfs.zip", "journey example")
        {
            Some(p) => p,
            None => return Ok(()), // the data folder is not here: the line above said so
        },
    };
    let date = args.next().unwrap_or("2024-12-16".into());
    let point = |s: Option<String>, default: [f64; 2]| -> Result<[f64; 2], Box<dyn std::error::Error>> {
        let Some(s) = s else { return Ok(default) };
        let (lat, lon) = s.split_once(',').ok_or(format!("`{s}`: expected LAT,LON"))?;
        Ok([lat.trim().parse()?, lon.trim().parse()?])
    };
    let from = point(args.next(), [40.8898, -73.8986])?;
    let to = point(args.next(), [40.7020, -74.0130])?;
    let depart = args.next().unwrap_or("08:00".into());
    let (h, m) = depart.split_once(':').ok_or("departure: expected HH:MM")?;
    let depart_s = h.parse::<u32>()? * 3600 + m.parse::<u32>()? * 60;

    // The two places join the network by walking to the stations within the walking radius.
    let opts = TransitOptions { places: vec![from, to], ..TransitOptions::default() };
    let net = TransitNetwork::from_gtfs(&feed, &date, &opts)?;
    println!(
        "{} on {date}: {} stations, {} patterns, {} vertices",
        feed.display(),
        net.stations.len(),
        net.patterns.len(),
        net.graph.num_vertices()
    );

    // The profile says which modes may follow which (here: walk and transit, in any order).
    let profile = Nfa::profile("transit")?;
    let (source, target) = (net.place[0], net.place[1]);
    let query = EapQuery { source, target: Some(target), depart: depart_s };
    let result = earliest_arrival(&net.graph, &profile, &query, Semantics::Product)?;
    let Some(journey) = result.journey(&net.graph, target) else {
        println!("no journey departing at {depart}");
        return Ok(());
    };
    let clock = |t: u32| format!("{:02}:{:02}", t / 3600 % 24, t / 60 % 60);
    for leg in journey.legs.iter().filter(|l| l.arrive > l.depart || label::is_transit(l.label)) {
        let route = net.route_of_arc(leg.steps[0].arc).map(|r| format!(" [{}]", r.name)).unwrap_or_default();
        println!(
            "  {:<8} {} → {}  {} – {}{route}",
            label::name(leg.label),
            net.name_of(leg.from),
            net.name_of(leg.to),
            clock(leg.depart),
            clock(leg.arrive)
        );
    }
    println!("arrival {} ({} min)", clock(journey.arrival), (journey.arrival - depart_s).div_ceil(60));
    Ok(())
}
