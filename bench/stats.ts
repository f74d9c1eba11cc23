/** Small measuring helpers: percentiles, peak RSS from `/usr/bin/time -v`, the machine a run was on. */
import os from 'node:os';

export interface Summary {
  n: number;
  p50: number;
  p95: number;
  max: number;
  mean: number;
}

/** The p-th percentile (0..100) by linear interpolation between closest ranks; NaN for no values. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  if (p < 0 || p > 100) throw new RangeError(`percentile must be within 0..100, got ${p}`);
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p / 100) * (sorted.length - 1);
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (rank - low);
}

export function summarize(values: readonly number[]): Summary {
  const n = values.length;
  return {
    n,
    p50: percentile(values, 50),
    p95: percentile(values, 95),
    max: n === 0 ? Number.NaN : Math.max(...values),
    mean: n === 0 ? Number.NaN : values.reduce((a, b) => a + b, 0) / n,
  };
}

/** "Maximum resident set size (kbytes): 123456" from GNU time's verbose report, in bytes. */
export function parseTimeVerbose(stderr: string): { maxRssBytes: number | null; wallSeconds: number | null; cpuSeconds: number | null } {
  const rss = /Maximum resident set size \(kbytes\):\s*(\d+)/.exec(stderr);
  const user = /User time \(seconds\):\s*([\d.]+)/.exec(stderr);
  const system = /System time \(seconds\):\s*([\d.]+)/.exec(stderr);
  const wall = /Elapsed \(wall clock\) time \(h:mm:ss or m:ss\):\s*([\d:.]+)/.exec(stderr);
  let wallSeconds: number | null = null;
  if (wall !== null) {
    wallSeconds = wall[1]!.split(':').reduce((total, part) => total * 60 + Number(part), 0);
  }
  const cpuSeconds = user === null || system === null ? null : Number(user[1]) + Number(system[1]);
  return { maxRssBytes: rss === null ? null : Number(rss[1]) * 1024, wallSeconds, cpuSeconds };
}

export interface MachineInfo {
  date: string;
  cpu: string;
  cores: number;
  ramGiB: number;
  node: string;
  platform: string;
  /** 1-minute load average when the run started: other work on a shared machine skews timings. */
  load1: number;
}

export function machineInfo(now = new Date()): MachineInfo {
  return {
    date: now.toISOString(),
    cpu: os.cpus()[0]?.model.trim() ?? 'unknown',
    cores: os.cpus().length,
    ramGiB: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    load1: Math.round(os.loadavg()[0]! * 100) / 100,
  };
}

export function mib(bytes: number | null): string {
  return bytes === null ? 'n/a' : `${Math.round(bytes / 1024 / 1024)} MiB`;
}

export function ms(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  return value >= 100 ? `${Math.round(value)} ms` : `${value.toFixed(1)} ms`;
}

/** Milliseconds below a second, seconds above. */
export function duration(value: number): string {
  if (value < 1_000) return ms(value);
  return value < 120_000 ? `${(value / 1000).toFixed(1)} s` : `${(value / 60_000).toFixed(1)} min`;
}

/** A markdown table; the first row is the header. */
export function markdownTable(rows: ReadonlyArray<readonly string[]>): string {
  const [head, ...body] = rows;
  if (head === undefined) return '';
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...body.map(line)].join('\n');
}
