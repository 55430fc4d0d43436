#!/usr/bin/env python3
"""many_to_all as a user runs it: PHAST on the customisable hierarchy (first run: the order is built;
second: loaded from the cache folder) against the batched GPU kernel and the CPU, and the default (Auto),
whole processes timed from start to exit (docs/benchmarks.md "Many sources on the CCH").

    python3 scripts/bench/lab/many_sources_cch.py --bin target/release/examples/many_to_all \
        --graph ../shared/data/road/weighted/NY.gr.xz --sources 1024 4096 16384 60000 [--gpu]
"""
import argparse, json, os, subprocess, tempfile, time

def run(binary, graph, label, *args):
    t = time.time()
    p = subprocess.run([binary, "--graph", graph, "--json", *args], capture_output=True, text=True)
    wall = time.time() - t
    try:
        d = json.loads(p.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        print(label, "FAILED", p.stdout[-300:], p.stderr[-500:], flush=True)
        return
    print(f"{label:40s} wall {wall:7.3f} s load {d['load_s']:6.3f} solve {d['solve_s']:7.3f} "
          f"pre {d['preprocess_s']:6.3f} tune {d['tune_s']:6.3f} e2e {d['trees'] / wall:8.0f} trees/s "
          f"{d['method']:6s} why {d['why'][:100]!r}", flush=True)

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--graph", required=True)
    ap.add_argument("--sources", type=int, nargs="+", default=[1024, 4096, 16384])
    ap.add_argument("--gpu", action="store_true", help="also the GPU rows")
    a = ap.parse_args()
    for n in a.sources:
        os.environ["URBANFLOW_CACHE_DIR"] = tempfile.mkdtemp()  # a first run for each count
        backend = "gpu" if a.gpu else "cpu"
        run(a.bin, a.graph, f"n={n} phast {backend} (first)", "--sources", str(n), "--method", "phast", "--backend", backend)
        run(a.bin, a.graph, f"n={n} phast {backend} (cached)", "--sources", str(n), "--method", "phast", "--backend", backend)
        run(a.bin, a.graph, f"n={n} trees {backend}", "--sources", str(n), "--method", "trees", "--backend", backend)
        run(a.bin, a.graph, f"n={n} default (auto)", "--sources", str(n))

if __name__ == "__main__":
    main()
