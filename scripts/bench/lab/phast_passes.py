#!/usr/bin/env python3
"""GPU PHAST on the CCH: sources per pass (URBANFLOW_PHAST_LANES) and the perfect customisation's
downward arcs only (URBANFLOW_PHAST_THIN=1), NY and FLA, order cached. Run on the device from the
repository root with .gpu/b/many_to_all (from .gpu/bins.tar.xz) and .gpu/data."""
import json, os, subprocess, tarfile, tempfile, time
os.makedirs(".gpu/b", exist_ok=True)
tarfile.open(".gpu/bins.tar.xz").extractall(".gpu/b")
os.environ["URBANFLOW_CACHE_DIR"] = tempfile.mkdtemp()
def run(label, graph, n, lanes, thin):
    env = dict(os.environ, URBANFLOW_PHAST_LANES=str(lanes), URBANFLOW_PHAST_THIN=str(thin))
    t = time.time()
    p = subprocess.run([".gpu/b/many_to_all", "--graph", f".gpu/data/{graph}.gr.xz", "--sources", str(n), "--json"],
                       capture_output=True, text=True, env=env)
    wall = time.time() - t
    try:
        d = json.loads(p.stdout.strip().splitlines()[-1])
    except Exception:
        print(label, "FAILED", p.stdout[-300:], p.stderr[-500:], flush=True); return
    print(f"{label:34s} wall {wall:6.3f} solve {d['solve_s']:6.3f} pre {d['preprocess_s']:6.3f} setup {d.get('setup_s', 0):5.3f} "
          f"sweeps {d['trees']/d['solve_s']:8.0f} trees/s e2e {d['trees']/wall:7.0f} checksum {d['checksum']} {d['method']}", flush=True)
print(subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True).stdout, flush=True)
run("warm NY", "NY", 4096, 128, 0)
run("warm FLA", "FLA", 4096, 128, 0)
for rep in (1, 2):
    for lanes in (128, 256, 512):
        for thin in (0, 1):
            run(f"NY 16384 k={lanes} thin={thin} r{rep}", "NY", 16384, lanes, thin)
for lanes in (128, 512):
    for thin in (0, 1):
        run(f"NY 60000 k={lanes} thin={thin}", "NY", 60000, lanes, thin)
for lanes in (128, 256):
    for thin in (0, 1):
        run(f"FLA 8192 k={lanes} thin={thin}", "FLA", 8192, lanes, thin)
