"""Alternates shell-free commands N times (the order flips each round) and reports, per command, the wall
p50/p95 and the CPU (user + system of the child, from wait4, microsecond resolution: GNU time's is 10 ms),
then each command's median pairwise ratio to the first. A shared machine's load hits every command alike
when they alternate, so the ratios are the figures to read (docs/benchmarks.md).

    python3 bench/alternate.py 20 "node dist/bin/vaultkeeper.js --vault V search 'how to publish a site' --json" \
        "node /tmp/base/dist/cli/main.js --vault V2 search 'how to publish a site' --json"

Runs with LANCE_CPU_THREADS=2 and without NODE_EXTRA_CA_CERTS, as `npm run bench` does.
"""
import os
import shlex
import statistics
import subprocess
import sys
import time

runs = int(sys.argv[1])
commands = sys.argv[2:]
env = dict(os.environ, LANCE_CPU_THREADS='2')
env.pop('NODE_EXTRA_CA_CERTS', None)
wall = [[] for _ in commands]
cpu = [[] for _ in commands]
with open(os.devnull, 'w') as devnull:
    for i in range(runs):
        order = list(range(len(commands)))
        if i % 2:
            order.reverse()
        for j in order:
            started = time.perf_counter()
            child = subprocess.Popen(shlex.split(commands[j]), stdout=devnull, stderr=subprocess.PIPE, env=env)
            _, status, usage = os.wait4(child.pid, 0)
            wall[j].append((time.perf_counter() - started) * 1000)
            cpu[j].append((usage.ru_utime + usage.ru_stime) * 1000)
            if status != 0:
                sys.exit(f'failed: {commands[j]}\n{child.stderr.read().decode()}')


def quantile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


for j, command in enumerate(commands):
    print(f'wall p50 {quantile(wall[j], .5):6.1f} p95 {quantile(wall[j], .95):6.1f} ms | CPU p50 {quantile(cpu[j], .5):6.1f} mean {statistics.mean(cpu[j]):6.1f} ms | {command}')
for j in range(1, len(commands)):
    print(f'#{j} / #0: wall ratio median {statistics.median(w / v for w, v in zip(wall[j], wall[0])):.3f}, CPU ratio median {statistics.median(c / v for c, v in zip(cpu[j], cpu[0])):.3f}')
print('load average', ' '.join(f'{x:.1f}' for x in os.getloadavg()))
