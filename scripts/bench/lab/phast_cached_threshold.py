#!/usr/bin/env python3
"""issue 34: where PHAST pays once the hierarchy's order is cached (auto::phast_threshold). NY, one cache
folder warmed first (order built once; the batched kernel's tuning too), then for each source count
`--method phast` against `--method trees` (Dijkstra per source on the CPU, the batched kernel on the
GPU) and the default, alternated, two rounds; wall per process. On the device from the repository root
with .gpu/m2a.tar.xz (stripped many_to_all) and .gpu/data/NY.gr.xz."""
import json, os, subprocess, tarfile, tempfile, time
os.makedirs(".gpu/m", exist_ok=True)
tarfile.open(".gpu/m2a.tar.xz").extractall(".gpu/m")
os.environ["URBANFLOW_CACHE_DIR"] = tempfile.mkdtemp()
def run(n, method, backend):
    t = time.time()
    args = [".gpu/m/many_to_all", "--graph", ".gpu/data/NY.gr.xz", "--sources", str(n), "--json", "--backend", backend]
    if method != "auto":
        args += ["--method", method]
    p = subprocess.run(args, capture_output=True, text=True)
    wall = time.time() - t
    try:
        d = json.loads(p.stdout.strip().splitlines()[-1])
    except Exception:
        print(n, method, backend, "FAILED", p.stderr[-400:], flush=True); return
    print(f"{backend:4s} n={n:5d} {method:6s} wall {wall:6.3f} pre {d['preprocess_s']:6.3f} setup {d.get('setup_s', 0):5.3f} "
          f"solve {d['solve_s']:6.3f} took {d['method']} checksum {d['checksum']}", flush=True)
print(subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True).stdout, os.cpu_count(), "cores", flush=True)
run(16, "phast", "cpu"); run(1024, "trees", "gpu"); run(16, "phast", "gpu")
for rep in (1, 2):
    for n in (32, 64, 128, 256):
        for m in ("phast", "trees", "auto"):
            run(n, m, "cpu")
    for n in (128, 256, 512, 1024):
        for m in ("phast", "trees", "auto"):
            run(n, m, "gpu")
