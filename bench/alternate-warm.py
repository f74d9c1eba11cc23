"""Alternates bench/search-warm.js child processes between builds (the order flips each round) and reports, per
build, the median of the rounds' p50 and CPU per search, then each build's median pairwise ratio to the first: on a
shared machine the load hits every build alike when they alternate, so the ratios are the figures to read.

    python3 bench/alternate-warm.py 16 V /tmp/base .

V is an indexed vault; each build is a folder holding dist/ (a base: `git archive REV | tar -x -C /tmp/base`, its
node_modules linked, `npm run build` there). Runs with LANCE_CPU_THREADS=2 and without NODE_EXTRA_CA_CERTS.
"""
import json
import os
import statistics
import subprocess
import sys

rounds, vault, builds = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
script = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'dist-bench', 'bench', 'search-warm.js')
env = dict(os.environ, LANCE_CPU_THREADS='2')
env.pop('NODE_EXTRA_CA_CERTS', None)
results = {build: [] for build in builds}
for i in range(rounds):
    for build in (builds if i % 2 == 0 else builds[::-1]):
        out = subprocess.run(['node', script, '--build', build, '--vault', vault], env=env, capture_output=True, text=True, check=True).stdout
        results[build].append(json.loads(out.strip().splitlines()[-1]))
first = results[builds[0]]
for build in builds:
    runs = results[build]
    line = f"{build}: p50 {statistics.median(r['p50'] for r in runs):.3f} ms, CPU {statistics.median(r['cpu'] for r in runs):.3f} ms per search"
    if build != builds[0]:
        p50 = statistics.median(r['p50'] / b['p50'] for r, b in zip(runs, first))
        cpu = statistics.median(r['cpu'] / b['cpu'] for r, b in zip(runs, first))
        line += f"; ratio to {builds[0]}: p50 {p50:.3f}, CPU {cpu:.3f}"
    print(line)
