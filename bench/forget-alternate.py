"""`forget <id>` side by side: two CLIs, each on its own copy of one vault, forget the same fact in each round (a
different fact each round), in alternating order. Reports per CLI the CPU of the process and its children (user +
system from wait4: git's children count, as in GNU time) and the wall time, p50 and range, and the load average at
each round, and the mean, which counts the forgets that paid a fold of the table. Each copy must have been indexed
by its own CLI first (the config cache's key names the validator's path).

    python3 bench/forget-alternate.py IDS_FILE "node /work/base/dist/bin/vaultkeeper.js" /tmp/x/vbase \\
        "node dist/bin/vaultkeeper.js" /tmp/x/v1000000

IDS_FILE: one fact id a line, each in both copies' logs (e.g. the 4th `^f-` id of every 180th log).
Runs with LANCE_CPU_THREADS=2 and without NODE_EXTRA_CA_CERTS, as `npm run bench` does.
"""
import json
import os
import shlex
import statistics
import subprocess
import sys
import time

ids_file, *pairs = sys.argv[1:]
clis = [(shlex.split(pairs[i]), pairs[i + 1]) for i in range(0, len(pairs), 2)]
ids = [line.strip() for line in open(ids_file) if line.strip()]
# A forget that paid a fold of the table (7-8 s of CPU at 1M) stands out from the rest (0.5-1.1 s).
FOLD_CPU = 3.0
env = dict(os.environ, LANCE_CPU_THREADS='2')
env.pop('NODE_EXTRA_CA_CERTS', None)
cpu = [[] for _ in clis]
wall = [[] for _ in clis]
loads = []
for i, fact in enumerate(ids):
    order = list(range(len(clis)))
    if i % 2:
        order.reverse()
    loads.append(os.getloadavg()[0])
    for j in order:
        command, vault = clis[j]
        started = time.perf_counter()
        child = subprocess.Popen([*command, '--vault', vault, 'forget', fact, '--json'], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        out = child.stdout.read()
        err = child.stderr.read()
        _, status, usage = os.wait4(child.pid, 0)
        wall[j].append(time.perf_counter() - started)
        cpu[j].append(usage.ru_utime + usage.ru_stime)
        if status != 0 or len(json.loads(out)['tombstoned']) != 1:
            sys.exit(f'failed: {command} {vault} forget {fact}\n{err.decode()}')
    print(f'round {i + 1} {fact} load {loads[-1]:.1f} | ' + ' | '.join(f'cpu {cpu[j][-1]:.2f} wall {wall[j][-1]:.2f}' for j in range(len(clis))), flush=True)

for j, (command, vault) in enumerate(clis):
    print(f'{" ".join(command)} on {vault}: CPU p50 {statistics.median(cpu[j]):.2f} s ({min(cpu[j]):.2f}-{max(cpu[j]):.2f}), '
          f'mean {statistics.fmean(cpu[j]):.2f} s; wall p50 {statistics.median(wall[j]):.2f} s ({min(wall[j]):.2f}-{max(wall[j]):.2f}), '
          f'mean {statistics.fmean(wall[j]):.2f} s; {len(cpu[j])} forgets, {sum(c > FOLD_CPU for c in cpu[j])} over {FOLD_CPU:.0f} s of CPU (a fold)')
for j in range(1, len(clis)):
    print(f'#{j} / #0: CPU ratio median {statistics.median(c / b for c, b in zip(cpu[j], cpu[0])):.3f}, '
          f'wall ratio median {statistics.median(w / b for w, b in zip(wall[j], wall[0])):.3f}')
print(f'load average at the rounds: {min(loads):.1f}-{max(loads):.1f}')
