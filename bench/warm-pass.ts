/**
 * The index pass of a warm watcher (issue 31, deliverable 3): a process that keeps a vault open and watched, as
 * `watch`, the daemon and `serve` do, and a `remember` (the CLI, a child) or a person's edit of an old log after
 * another. For each: the time from the write's end to the index current (the watcher's pass done, debounce 20 ms),
 * the pass's own `ms`, and its CPU (process.cpuUsage around the pass: every thread of this process, LanceDB's too),
 * and the process's CPU over the whole round (the watcher's own work on the events included). Two builds side by side:
 * `node dist-bench/bench/warm-pass.js --vault V --dist /work/main/dist --rounds 3 --label main`, then the same with
 * this build's dist, alternating; rows are appended to --out (TSV). The vault is written to: use a copy.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

interface PassRecord {
  ms: number;
  cpu: number;
  statted: number | null;
  added: number;
  vouched: boolean;
}

interface VaultLike {
  reindex(options: Record<string, unknown>): Promise<{ ms: number; added: number; statted?: number }>;
  close(): Promise<void>;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      vault: { type: 'string' },
      dist: { type: 'string' },
      rounds: { type: 'string', default: '3' },
      label: { type: 'string', default: 'run' },
      mode: { type: 'string', default: 'remember' },
      writer: { type: 'string' },
      out: { type: 'string', default: 'warm-pass.tsv' },
    },
  });
  const vaultRoot = values.vault!;
  const dist = path.resolve(values.dist!);
  const writer = values.writer ?? path.join(dist, 'bin/vaultkeeper.js');
  const { openVault } = (await import(path.join(dist, 'vault/vault.js'))) as { openVault: (o: { vault: string }) => Promise<VaultLike> };
  const { watchVault } = (await import(path.join(dist, 'indexer/watch.js'))) as {
    watchVault: (root: string, index: (changed?: readonly string[]) => Promise<unknown>, options: { debounceMs: number; maxWaitMs: number; onIndexed: () => void }) => { ready: Promise<void>; close(): Promise<void> };
  };
  const vault = await openVault({ vault: vaultRoot });
  await vault.reindex({});
  const passes: PassRecord[] = [];
  let waiter: (() => void) | null = null;
  const watcher = watchVault(
    vaultRoot,
    async (changed) => {
      const cpu0 = process.cpuUsage();
      const result = await vault.reindex(changed === undefined ? {} : { changed });
      const cpu = process.cpuUsage(cpu0);
      passes.push({ ms: result.ms, cpu: (cpu.user + cpu.system) / 1000, statted: result.statted ?? null, added: result.added, vouched: changed !== undefined });
      return result;
    },
    { debounceMs: 20, maxWaitMs: 100, onIndexed: () => waiter?.() },
  );
  await watcher.ready;
  const rounds = Number(values.rounds);
  // Two rounds first: the first pass after the watch began stats every file, the second starts what a warm process keeps.
  for (let i = 0; i < rounds + 2; i++) {
    const when = new Date().toISOString();
    const cpu0 = process.cpuUsage();
    if (values.mode === 'edit') {
      appendFileSync(path.join(vaultRoot, `logs/2030-03-1${i % 10}.md`), `- [fact] ${values.label} edit ${i} about the blue kiln #notes\n`);
    } else {
      execFileSync(process.execPath, [writer, '--vault', vaultRoot, 'remember', `${values.label} round ${i}: the glaze test came out matte`, '--json'], { stdio: 'ignore' });
    }
    const written = performance.now();
    const before = passes.length;
    await new Promise<void>((resolve) => {
      waiter = () => {
        if (passes.length > before) resolve();
      };
    });
    const latency = performance.now() - written;
    await new Promise((resolve) => setTimeout(resolve, 300)); // a late event's pass runs inside the round
    const round = process.cpuUsage(cpu0);
    const pass = passes[before]!;
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
    if (i >= 2) {
      const row = [values.label, values.mode, when, load, Math.round(latency), pass.ms, Math.round(pass.cpu), pass.statted ?? 'all', pass.added, passes.length - before, Math.round((round.user + round.system) / 1000)];
      appendFileSync(values.out!, `${row.join('\t')}\n`);
    }
  }
  await watcher.close();
  await vault.close();
}

await main();
process.exit(0);
