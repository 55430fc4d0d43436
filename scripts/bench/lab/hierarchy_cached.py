#!/usr/bin/env python3
"""issue 34: what a stored supergraph and triangles enumerated during customisation give a user's
process. `many_to_all` with default flags, the binary before (`old`: triangles stored, only the order
cached) and after (`new`), alternated, each with a fresh cache folder for its first run, then cached;
and `cch_order` (the hierarchy alone) on all cores. Run on the device from the repository root with
.gpu/bins.tar.xz (stripped many_to_all_old, many_to_all_new, cch_order_old, cch_order) and .gpu/data (NY, FLA)."""
import json, os, subprocess, tarfile, tempfile, time
os.makedirs(".gpu/b", exist_ok=True)
tarfile.open(".gpu/bins.tar.xz").extractall(".gpu/b")
def run(label, binary, graph, n, cache, *extra):
    env = dict(os.environ, URBANFLOW_CACHE_DIR=cache)
    t = time.time()
    p = subprocess.run([f".gpu/b/{binary}", "--graph", f".gpu/data/{graph}.gr.xz", "--sources", str(n), "--json", *extra],
                       capture_output=True, text=True, env=env)
    wall = time.time() - t
    try:
        d = json.loads(p.stdout.strip().splitlines()[-1])
    except Exception:
        print(label, "FAILED", p.stdout[-300:], p.stderr[-500:], flush=True); return
    print(f"{label:36s} wall {wall:6.3f} load {d['load_s']:5.3f} pre {d['preprocess_s']:6.3f} setup {d['setup_s']:5.3f} "
          f"solve {d['solve_s']:6.3f} e2e {d['trees']/wall:7.0f} trees/s {d['method']} checksum {d['checksum']}", flush=True)
print(subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True).stdout, flush=True)
subprocess.run([".gpu/b/many_to_all_new", "--graph", ".gpu/data/NY.gr.xz", "--sources", "16", "--backend", "gpu"], capture_output=True)
for rep in (1, 2):
    for graph in ("NY", "FLA"):
        for which in ("cch_order_old", "cch_order"):
            d = tempfile.mkdtemp()
            for run_ in ("first", "cached"):
                p = subprocess.run([f".gpu/b/{which}", f".gpu/data/{graph}.gr.xz", d], capture_output=True, text=True)
                print(f"{which} {graph} {run_} r{rep}:", " | ".join(p.stdout.split("\n")), p.stderr[-300:], flush=True)
for rep in (1, 2):
    for which in ("old", "new"):
        for graph, n in (("NY", 16384), ("FLA", 8192)):
            cache = tempfile.mkdtemp()
            run(f"{graph} {n} {which} first r{rep}", f"many_to_all_{which}", graph, n, cache)
            run(f"{graph} {n} {which} cached r{rep}", f"many_to_all_{which}", graph, n, cache)
