#!/usr/bin/env python3
"""GPU setup apart from the work (issue 34): each GPU example twice in a row on one fresh machine (the
driver's shader cache warm on the second), its `setup_s` (device creation + shader/pipeline compilation,
GpuContext::compile_time) and `solve_s` (the work) from --json, and the process's wall time.
Run on the device from the repository root with .gpu/bins.tar.xz (stripped examples) and .gpu/data."""
import json, os, subprocess, tarfile, tempfile, time
os.makedirs(".gpu/b", exist_ok=True)
tarfile.open(".gpu/bins.tar.xz").extractall(".gpu/b")
os.environ["URBANFLOW_CACHE_DIR"] = tempfile.mkdtemp()
B, D = ".gpu/b/", ".gpu/data/"
def run(label, cmd):
    t = time.time()
    p = subprocess.run([B + cmd[0], *cmd[1:]], capture_output=True, text=True)
    wall = time.time() - t
    try:
        d = json.loads(p.stdout.strip().splitlines()[-1])
    except Exception:
        print(f"{label:28s} FAILED {p.stdout[-200:]} {p.stderr[-400:]}", flush=True); return
    ctx = d.get("context_s", "")
    print(f"{label:28s} wall {wall:6.3f} setup_s {d.get('setup_s', float('nan')):6.3f} solve_s {d.get('solve_s', float('nan')):7.3f} "
          f"{'context_s %.3f' % ctx if ctx != '' else ''} backend {str(d.get('backend', d.get('device', '')))[:40]!r}", flush=True)
print(subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"], capture_output=True, text=True).stdout, flush=True)
cmds = [
    ("overlay", ["overlay", "--generate", "n=1000,family=b,l=128,seed=2", "--method", "dist", "--no-lp", "--json"]),
    ("guillotine gcut13", ["guillotine", "--instance", D + "gcut13.txt", "--json"]),
    ("sssp NY lbr", ["sssp", "--graph", D + "NY.gr.xz", "--source", "1", "--algorithm", "lbr", "--json"]),
    ("journey 100k", ["journey", "--generate", "road=100000,layers=4,lines=40", "--profile", "car", "--queries", "10000", "--json"]),
    ("ksp NY 100 k=10", ["ksp", "--graph", D + "NY.gr.xz", "--pairs", "100", "--k", "10", "--json"]),
    ("many_to_all NY 4096", ["many_to_all", "--graph", D + "NY.gr.xz", "--sources", "4096", "--json"]),
    ("assign Philadelphia", ["assign", "--net", D + "Philadelphia_net.tntp.xz", "--trips", D + "Philadelphia_trips.tntp.xz", "--gap", "1e-4", "--json"]),
]
subprocess.run([B + "doctor"], capture_output=True)
for label, cmd in cmds:
    for r in (1, 2):
        run(f"{label} gpu {r}", [*cmd, "--backend", "gpu"])
    run(f"{label} cpu", [*cmd, "--backend", "cpu"])
