#!/usr/bin/env python3
# Run from the repository root on the device with .gpu/bin (stripped many_to_all, assign) and .gpu/data (NY.gr.xz, TNTP files).
"""Issue 34: PHAST on two GPUs vs one; assignment on two GPUs vs one; CPU trees (dijkstra vs phast) at 16 threads."""
import json, os, subprocess, sys, tempfile, time
M, A, T = ".gpu/bin/many_to_all", ".gpu/bin/assign", ".gpu/data/tntp/"
def run(label, cmd):
    t = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.time() - t
    try:
        d = json.loads(p.stdout.strip().splitlines()[-1])
    except Exception:
        print(label, "FAILED", p.stdout[-300:], p.stderr[-600:], flush=True); return None
    return wall, d
def many(label, *args):
    r = run(label, [M, "--graph", ".gpu/data/NY.gr.xz", "--json", *args])
    if r:
        wall, d = r
        print(f"{label:44s} wall {wall:7.3f} solve {d['solve_s']:7.3f} pre {d['preprocess_s']:6.3f} e2e {d['trees']/wall:8.0f} trees/s "
              f"method {d['method']} per_device {d.get('gpu_trees_per_device')} why {str(d.get('why'))[:90]!r}", flush=True)
def assign(label, net, trips, *args):
    r = run(label, [A, "--net", T + net, "--trips", T + trips, "--gap", "1e-4", "--json", *args])
    if r:
        wall, d = r
        print(f"{label:44s} wall {wall:7.3f} solve {d['solve_s']:7.3f} it {d['iterations']:4d} gap {d['relative_gap']:.2e} "
              f"backend {d['backend'][:40]!r} trees {d.get('trees')} why {d['backend_why'][:150]!r}", flush=True)
print(subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True).stdout, flush=True)
os.environ["URBANFLOW_CACHE_DIR"] = tempfile.mkdtemp()
many("warm: NY 4096 phast gpu 0 (order built)", "--sources", "4096", "--method", "phast", "--gpus", "0")
for rep in (1, 2):
    many(f"NY 60000 phast --gpus 0 r{rep}", "--sources", "60000", "--method", "phast", "--gpus", "0")
    many(f"NY 60000 phast --gpus all r{rep}", "--sources", "60000", "--method", "phast", "--gpus", "all")
    many(f"NY 16384 default r{rep}", "--sources", "16384")
    many(f"NY 16384 --gpus all r{rep}", "--sources", "16384", "--gpus", "all")
nets = [("Philadelphia", "../Philadelphia_net.tntp.xz", "../Philadelphia_trips.tntp.xz", []),
        ("Austin (100 it)", "Austin_net.tntp.xz", "Austin_trips_am.tntp.xz", ["--max-iters", "100"]),
        ("Berlin-Center", "berlin-center_net.tntp.xz", "berlin-center_trips.tntp.xz", []),
        ("Hessen", "Hessen-Asym_net.tntp.xz", "Hessen-Asym_trips.tntp.xz", [])]
for name, net, trips, extra in nets:
    assign(f"{name} --gpus 0", net, trips, "--gpus", "0", *extra)
    assign(f"{name} --gpus all", net, trips, "--gpus", "all", *extra)
    assign(f"{name} --gpus 0 (again)", net, trips, "--gpus", "0", *extra)
cpu = [("SiouxFalls", "SiouxFalls_net.tntp.xz", "SiouxFalls_trips.tntp.xz", []),
       ("Anaheim", "Anaheim_net.tntp.xz", "Anaheim_trips.tntp.xz", []),
       ("Barcelona", "Barcelona_net.tntp.xz", "Barcelona_trips.tntp.xz", []),
       ("Winnipeg", "Winnipeg_net.tntp.xz", "Winnipeg_trips.tntp.xz", []),
       ("ChicagoSketch", "ChicagoSketch_net.tntp.xz", "ChicagoSketch_trips.tntp.xz", ["--toll-factor", "0.02", "--distance-factor", "0.04"]),
       ("Berlin-Center", "berlin-center_net.tntp.xz", "berlin-center_trips.tntp.xz", []),
       ("Hessen", "Hessen-Asym_net.tntp.xz", "Hessen-Asym_trips.tntp.xz", []),
       ("Philadelphia (30 it)", "../Philadelphia_net.tntp.xz", "../Philadelphia_trips.tntp.xz", ["--max-iters", "30"])]
for name, net, trips, extra in cpu:
    for t in ("dijkstra", "phast"):
        assign(f"cpu16 {name} {t}", net, trips, "--backend", "cpu", "--trees", t, *extra)
    assign(f"default {name}", net, trips, *extra)
