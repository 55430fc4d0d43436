"""AequilibraE 1.7.2 bi-conjugate Frank-Wolfe on the standard TNTP networks: the side-by-side baseline of
benches/tap.rs (docs/benchmarks.md). Same networks, same cost factors, zones blocked where the file's
<FIRST THRU NODE> blocks them, same thread count.

    pip install aequilibrae==1.7.2
    python3 benches/aequilibrae_tap.py --data ../shared/data --cores 2 --gap 1e-4 \
        --networks SiouxFalls,Anaheim,Barcelona,Winnipeg,Chicago-Sketch

Prints one JSON object per network: solve seconds (TrafficAssignment.execute only), iterations, the final
relative gap as AequilibraE reports it ((TSTT - SPTT) / TSTT, the same definition as ours).
Known pitfall (shared/anchors.md): AequilibraE's graph compression merges non-zone nodes with two links
whatever their direction, so links at non-zone nodes without an in-link or without an out-link (which
can never carry flow) are dropped before building its graph.
"""
import argparse, json, lzma, gzip, time, os
import numpy as np
import pandas as pd

NETWORKS = {
    "SiouxFalls": ("SiouxFalls/SiouxFalls_net.tntp", "SiouxFalls/SiouxFalls_trips.tntp", 0, 0),
    "Anaheim": ("Anaheim/Anaheim_net.tntp", "Anaheim/Anaheim_trips.tntp", 0, 0),
    "Barcelona": ("Barcelona/Barcelona_net.tntp", "Barcelona/Barcelona_trips.tntp", 0, 0),
    "Winnipeg": ("Winnipeg/Winnipeg_net.tntp", "Winnipeg/Winnipeg_trips.tntp", 0, 0),
    "Chicago-Sketch": ("Chicago-Sketch/ChicagoSketch_net.tntp", "Chicago-Sketch/ChicagoSketch_trips.tntp.xz", 0.02, 0.04),
    "Eastern-Massachusetts": ("Eastern-Massachusetts/EMA_net.tntp", "Eastern-Massachusetts/EMA_trips.tntp", 0, 0),
    "Berlin-Mitte-Prenzlauerberg-Friedrichshain-Center": (
        "Berlin-Mitte-Prenzlauerberg-Friedrichshain-Center/berlin-mitte-prenzlauerberg-friedrichshain-center_net.tntp",
        "Berlin-Mitte-Prenzlauerberg-Friedrichshain-Center/berlin-mitte-prenzlauerberg-friedrichshain-center_trips.tntp",
        0, 0),
    "Berlin-Center": ("Berlin-Center/berlin-center_net.tntp.xz", "Berlin-Center/berlin-center_trips.tntp", 0, 0),
}


def open_text(path):
    if path.endswith(".xz"):
        return lzma.open(path, "rt")
    if path.endswith(".gz"):
        return gzip.open(path, "rt")
    return open(path)


def read_net(path):
    meta, rows = {}, []
    with open_text(path) as f:
        for line in f:
            t = line.strip()
            if t.startswith("<"):
                key, _, value = t[1:].partition(">")
                meta[key.strip().upper()] = value.strip()
                continue
            if not t or t.startswith("~"):
                continue
            fields = t.rstrip(";").split()
            rows.append([float(x) for x in fields[:10]])
    return meta, np.array(rows)


def read_trips(path, zones):
    od = np.zeros((zones, zones))
    origin = None
    with open_text(path) as f:
        for line in f:
            t = line.strip()
            if not t or t.startswith("<") or t.startswith("~"):
                continue
            if t.startswith("Origin"):
                origin = int(float(t.split()[1]))
                continue
            for entry in t.split(";"):
                if ":" in entry:
                    d, q = entry.split(":")
                    od[origin - 1, int(float(d)) - 1] += float(q)
    np.fill_diagonal(od, 0.0)
    return od


def run(name, data, cores, gap, scale, truck_share=0.0, truck_pce=2.5, flows_out=None):
    import warnings
    import aequilibrae.utils.python_signal as python_signal
    # Progress bars cost time on small networks; the comparison measures the solver, not the display.
    python_signal.missing_tqdm = True
    warnings.filterwarnings("ignore")
    from aequilibrae.paths import Graph, TrafficAssignment, TrafficClass
    from aequilibrae.matrix import AequilibraeMatrix

    net_file, trips_file, toll_f, dist_f = NETWORKS[name]
    meta, rows = read_net(os.path.join(data, "tntp", net_file))
    zones = int(float(meta["NUMBER OF ZONES"]))
    ftn = int(float(meta.get("FIRST THRU NODE", "1").split()[0]))
    df = pd.DataFrame(rows[:, :9], columns=["a_node", "b_node", "capacity", "length", "free_flow_time", "b",
                                            "power", "speed", "toll"])
    df[["a_node", "b_node"]] = df[["a_node", "b_node"]].astype(np.int64)
    # Links at non-zone nodes lacking an in-link or an out-link carry no flow; AequilibraE's compression
    # mishandles them, so drop them (repeatedly).
    while True:
        ins, outs = set(df.b_node), set(df.a_node)
        dead = df[((~df.a_node.isin(ins)) & (df.a_node > zones)) | ((~df.b_node.isin(outs)) & (df.b_node > zones))]
        if dead.empty:
            break
        df = df.drop(dead.index)
    df["link_id"] = np.arange(1, len(df) + 1)
    df["direction"] = 1
    df["fixed"] = toll_f * df.toll + dist_f * df.length
    df["capacity"] = df.capacity.where(df.capacity > 0, 1e-9)
    # AequilibraE refuses zero free-flow times (Chicago-Sketch's connectors): 1e-9 changes no path cost
    # measurably (their generalised cost comes from the distance term).
    df["free_flow_time"] = df.free_flow_time.clip(lower=1e-9)
    # AequilibraE refuses powers below 1; where B = 0 the power does not matter (constant time).
    df["power"] = df.power.where((df.b != 0) | (df.power >= 1), 1.0)
    changed = int(((df.b != 0) & (df.power < 1)).sum())
    if changed:
        raise SystemExit(f"{name}: {changed} links with B != 0 and power < 1 cannot be given to AequilibraE")
    def graph():
        g = Graph()
        g.network = df.copy()
        g.prepare_graph(np.arange(1, zones + 1))
        g.set_graph("free_flow_time")
        g.set_skimming(["free_flow_time"])
        g.set_blocked_centroid_flows(ftn > 1)
        return g

    od = read_trips(os.path.join(data, "tntp", trips_file), zones) * scale

    def traffic_class(label, share, pce):
        g = graph()
        m = AequilibraeMatrix()
        m.create_empty(zones=zones, matrix_names=["matrix"], memory_only=True)
        m.index[:] = g.centroids[:]
        m.matrices[:, :, 0] = od * share
        m.computational_view(["matrix"])
        tc = TrafficClass(label, g, m)
        tc.set_pce(pce)
        if toll_f or dist_f:
            tc.set_fixed_cost("fixed", 1.0)
        return tc

    # One class, or cars and trucks (a share of the trips at a PCE) sharing the congestion.
    classes = [traffic_class("car", 1.0 - truck_share, 1.0)]
    if truck_share > 0:
        classes.append(traffic_class("truck", truck_share, truck_pce))
    ta = TrafficAssignment()
    ta.set_classes(classes)
    ta.set_vdf("BPR")
    ta.set_vdf_parameters({"alpha": "b", "beta": "power"})
    ta.set_capacity_field("capacity")
    ta.set_time_field("free_flow_time")
    ta.set_algorithm("bfw")
    ta.set_cores(cores)
    ta.max_iter = 100000
    ta.rgap_target = gap
    t = time.perf_counter()
    ta.execute()
    seconds = time.perf_counter() - t
    report = ta.assignment.convergence_report
    if flows_out:
        res = ta.results()
        pce = res["PCE_tot"] if "PCE_tot" in res.columns else res[[c for c in res.columns if c.endswith("_tot")][0]]
        out = pd.DataFrame({"link_id": res.index, "pce": pce.values}).merge(df[["link_id", "a_node", "b_node"]], on="link_id")
        out[["a_node", "b_node", "pce"]].to_csv(flows_out, index=False)
    print(json.dumps({"network": name, "demand_scale": scale, "classes": len(classes), "truck_share": truck_share,
                      "truck_pce": truck_pce, "peer": "aequilibrae 1.7.2 bfw", "cores": cores, "target": gap,
                      "seconds": seconds, "iterations": len(report["rgap"]), "rgap": report["rgap"][-1]}),
          flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="../shared/data")
    p.add_argument("--cores", type=int, default=2)
    p.add_argument("--gap", type=float, default=1e-4)
    p.add_argument("--networks", default=",".join(NETWORKS))
    p.add_argument("--demand-scale", type=float, default=1.0)
    p.add_argument("--truck-share", type=float, default=0.0, help="a second class: this share of the trips")
    p.add_argument("--truck-pce", type=float, default=2.5)
    p.add_argument("--flows-out", help="CSV of total PCE flow per link (a_node,b_node,pce), one network only")
    a = p.parse_args()
    for name in a.networks.split(","):
        run(name, a.data, a.cores, a.gap, a.demand_scale, a.truck_share, a.truck_pce, a.flows_out)


if __name__ == "__main__":
    main()
