// A real PostgreSQL for the tests that need one: a throwaway cluster in a temp folder, listening on a free
// port of 127.0.0.1 only, stopped and removed by `stop()`. It uses the server binaries of Debian's
// `postgresql` package (installed by .ci/run). On a machine without them `startPostgres` returns the reason
// instead, so a test can skip visibly; with CI_REQUIRE_POSTGRES=1 (set by .ci/run) a missing server is an error.
import { execFileSync, spawn } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface Postgres {
  /** postgres://… URL of a fresh database `vaultkeeper` owned by a superuser. */
  url: string;
  /** A second database URL on the same cluster, created on demand. */
  createDatabase(name: string): string;
  stop(): Promise<void>;
}

const SKIP_HINT = "install PostgreSQL (Debian: apt-get install -y postgresql) to run it";

/** The folder holding initdb/pg_ctl of the newest installed server, or null. */
export function postgresBin(): string | null {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, "bin", "pg_ctl")))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? join(root, versions[0]!, "bin") : null;
}

/** Why PostgreSQL tests cannot run here, or null when they can. Throws under CI_REQUIRE_POSTGRES=1. */
export function postgresMissing(): string | null {
  const bin = postgresBin();
  const reason = bin ? null : `PostgreSQL is not installed: ${SKIP_HINT}`;
  if (reason && process.env.CI_REQUIRE_POSTGRES === "1") throw new Error(reason);
  return reason;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** initdb refuses to run as root: run the server binaries as the `postgres` user when we are root. */
function asServerUser(cmd: string, args: string[]): [string, string[]] {
  if (process.getuid?.() !== 0) return [cmd, args];
  return ["runuser", ["-u", "postgres", "--", cmd, ...args]];
}

export async function startPostgres(): Promise<Postgres> {
  const bin = postgresBin();
  if (!bin) throw new Error(`PostgreSQL is not installed: ${SKIP_HINT}`);
  const dir = mkdtempSync(join(tmpdir(), "vk-pg-"));
  chmodSync(dir, 0o777);
  const data = join(dir, "data");
  const port = await freePort();
  if (process.getuid?.() === 0) execFileSync("chown", ["postgres", dir]);
  const run = (cmd: string, args: string[]) => {
    const [c, a] = asServerUser(join(bin, cmd), args);
    execFileSync(c, a, { stdio: "pipe", cwd: dir });
  };
  run("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C"]);
  const [c, a] = asServerUser(join(bin, "pg_ctl"), [
    "-D", data, "-w", "-l", join(dir, "server.log"), "start",
    "-o", `-p ${port} -h 127.0.0.1 -k ${dir} -c fsync=off -c max_connections=200`,
  ]);
  await new Promise<void>((resolve, reject) => {
    const child = spawn(c, a, { cwd: dir, stdio: "ignore" });
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`pg_ctl start exited ${code}`))));
  });
  const base = `postgres://postgres@127.0.0.1:${port}`;
  const createDatabase = (name: string): string => {
    run("createdb", ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", name]);
    return `${base}/${name}`;
  };
  const url = createDatabase("vaultkeeper");
  return {
    url,
    createDatabase,
    async stop() {
      try {
        run("pg_ctl", ["-D", data, "-m", "immediate", "stop"]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
