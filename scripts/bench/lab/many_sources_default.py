#!/usr/bin/env python3
"""issue 34: `many_to_all` with default flags on NY and FLA (first run: order built; then cached), and
PHAST at 60,000 NY sources on one and on all GPUs. Run on the device from the repository root with
.gpu/bins.tar.xz (stripped many_to_all) and .gpu/data."""
import json, os, subprocess, tarfile, tempfile, time
os.makedirs(".gpu/b", exist_ok=True)
tarfile.open(".gpu/bins.tar.xz").extractall(".gpu/b")
def run(label, graph, n, *extra):
    t = time.time()
    p = subprocess.run([".gpu/b/many_to_all", "--graph", f".gpu/data/{graph}.gr.xz", "--sources", str(n), "--json", *extra],
                       capture_output=True, text=True)
    wall = time.time() - t
    try:
        d = json.loads(p.stdout.strip().splitlines()[-1])
    except Exception:
        print(label, "FAILED", p.stdout[-300:], p.stderr[-500:], flush=True); return
    print(f"{label:34s} wall {wall:6.3f} load {d['load_s']:5.3f} pre {d['preprocess_s']:6.3f} setup {d['setup_s']:5.3f} solve {d['solve_s']:6.3f} "
          f"e2e {d['trees']/wall:7.0f} trees/s per_device {d['gpu_trees_per_device']} {d['method']} checksum {d['checksum']}", flush=True)
print(subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True).stdout, flush=True)
subprocess.run([".gpu/b/many_to_all", "--graph", ".gpu/data/NY.gr.xz", "--sources", "16", "--backend", "gpu"], capture_output=True)
for rep in (1, 2):
    os.environ["URBANFLOW_CACHE_DIR"] = tempfile.mkdtemp()
    run(f"NY 16384 default first r{rep}", "NY", 16384)
    run(f"NY 16384 default cached r{rep}", "NY", 16384)
    run(f"FLA 8192 default first r{rep}", "FLA", 8192)
    run(f"FLA 8192 default cached r{rep}", "FLA", 8192)
    run(f"NY 60000 default (one GPU) r{rep}", "NY", 60000)
    run(f"NY 60000 --gpus all r{rep}", "NY", 60000, "--gpus", "all")
