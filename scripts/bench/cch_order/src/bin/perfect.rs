//! Experiment: perfect customisation's down arcs only, and the DAG levels the GPU sweep would have.
use algos_sssp::ch::ContractionHierarchy;
use graph_core::Csr;
use graph_core::io::{LoadOptions, load_graph};

const INF: u32 = u32::MAX;
fn link(a: u32, b: u32) -> u32 {
    if a == INF || b == INF { INF } else { a.saturating_add(b).min(u32::MAX - 1) }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let g = load_graph(&args[1], &LoadOptions::default()).unwrap();
    let dir = std::path::PathBuf::from(&args[2]);
    std::fs::create_dir_all(&dir).unwrap();
    let (cch, _) = algos_sssp::cch::Cch::build_cached_in(&g.graph, &dir).unwrap();
    let ch = cch.customise(g.graph.weights()).unwrap();
    let t = std::time::Instant::now();
    let thin = algos_sssp::cch::perfect::thin_downward(&ch).unwrap();
    let mine = thin_down(&ch);
    assert_eq!(mine.down.targets(), thin.down.targets());
    println!("thinning {:.3} s", t.elapsed().as_secs_f64());
    println!("down arcs {} -> {}", ch.down.num_arcs(), thin.down.num_arcs());
    println!("levels down {} -> {}", levels(&ch), levels(&thin));
    let n = g.graph.num_vertices();
    let sources: Vec<u32> = (0..32).map(|i| (i * 7919 + 13) % n).collect();
    let a = ch.phast(&sources).unwrap();
    let b = thin.phast(&sources).unwrap();
    assert_eq!(a, b, "thinned PHAST differs");
    println!("32 PHAST trees equal");
}

fn levels(ch: &ContractionHierarchy) -> u32 {
    let n = ch.num_vertices() as usize;
    let (dof, dt) = (ch.down.offsets(), ch.down.targets());
    let mut depth = vec![0u32; n];
    for r in (0..n).rev() {
        depth[r] = (dof[r]..dof[r + 1]).map(|a| depth[dt[a as usize] as usize] + 1).max().unwrap_or(0);
    }
    depth.iter().max().map_or(0, |d| d + 1)
}

fn thin_down(ch: &ContractionHierarchy) -> ContractionHierarchy {
    let n = ch.num_vertices() as usize;
    let (off, head) = (ch.up.offsets(), ch.up.targets());
    let (wu, wd) = (ch.up.weights(), ch.down.weights());
    assert_eq!(off, ch.down.offsets());
    let find = |y: u32, z: u32| -> usize {
        let r = off[y as usize] as usize..off[y as usize + 1] as usize;
        r.start + head[r.clone()].binary_search(&z).expect("chordal: upper neighbours form a clique")
    };
    let (mut pu, mut pd) = (wu.to_vec(), wd.to_vec());
    for x in (0..n).rev() {
        let r = off[x] as usize..off[x + 1] as usize;
        for _ in 0..2 {
            for e1 in r.clone() {
                for e2 in e1 + 1..r.end {
                    let f = find(head[e1], head[e2]);
                    pu[e2] = pu[e2].min(link(pu[e1], pu[f]));
                    pd[e2] = pd[e2].min(link(pd[f], pd[e1]));
                    pu[e1] = pu[e1].min(link(pu[e2], pd[f]));
                    pd[e1] = pd[e1].min(link(pu[f], pd[e2]));
                }
            }
        }
    }
    // A down arc is kept when no other path through higher vertices is as short.
    let mut keep = vec![true; wd.len()];
    for x in 0..n {
        let r = off[x] as usize..off[x + 1] as usize;
        for e in r.clone() {
            if wd[e] == INF {
                keep[e] = false;
                continue;
            }
            for e2 in r.clone() {
                if e2 == e {
                    continue;
                }
                let (y, z) = (head[e], head[e2]);
                let f = if y < z { find(y, z) } else { find(z, y) };
                // y → z → x
                let yz = if y < z { pu[f] } else { pd[f] };
                if link(yz, pd[e2]) < wd[e] {
                    keep[e] = false;
                    break;
                }
            }
        }
    }
    let mut offsets = vec![0u32];
    let (mut t, mut w) = (Vec::new(), Vec::new());
    for x in 0..n {
        for e in off[x] as usize..off[x + 1] as usize {
            if keep[e] {
                t.push(head[e]);
                w.push(wd[e]);
            }
        }
        offsets.push(t.len() as u32);
    }
    ContractionHierarchy { down: Csr::from_parts(offsets, t, w).unwrap(), ..ch.clone() }
}
