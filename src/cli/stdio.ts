/**
 * The CLI's stdout and stderr. Every line passes one redaction (DESIGN §9), whichever command or library wrote it.
 * A reader that closed stdout's pipe (`vaultkeeper status | head -1`) has all it wants: the command ends quietly.
 * One that closed stderr's is told nothing more, and the command ends as it would have, with its own exit code.
 *
 * Node makes `process.stdout` on first use, and for a pipe that is a socket with the stream machinery behind it
 * (node:net and node:stream: ~3.5 ms of a quick command's start here, docs/benchmarks.md). So the CLI's own lines
 * are written to the descriptor directly, as Node itself writes to a pipe or a file on Linux and macOS (at once,
 * in order; on Windows through the stream, as before), and the streams are prepared the same way when something first asks for them: commander's help, a
 * prompt, a library.
 */
import { writeSync } from 'node:fs';

type Name = 'stdout' | 'stderr';

let clean: (text: string) => string = (text) => text;
/** The streams made so far: once one is, everything goes through it, so nothing it buffers is overtaken. */
const made: Record<Name, boolean> = { stdout: false, stderr: false };
/** stderr's reader is gone. */
let stderrClosed = false;

/** Redacts with `redact` from now on, in the CLI's own lines and in the streams once they are made. */
export function prepareStdio(redact: (text: string) => string): void {
  clean = redact;
  for (const name of ['stdout', 'stderr'] as const) onFirstUse(name, prepareStream);
}

/** Writes `text` to stdout. */
export function writeOut(text: string): void {
  writeTo(1, 'stdout', text);
}

/** Writes `text` to stderr. */
export function writeErr(text: string): void {
  writeTo(2, 'stderr', text);
}

function writeTo(fd: 1 | 2, name: Name, text: string): void {
  if (fd === 2 && stderrClosed) return;
  // Windows' console takes text through its own calls (Node's stream makes them), not bytes written to a descriptor.
  if (made[name] || process.platform === 'win32') {
    process[name].write(text);
    return;
  }
  let rest = Buffer.from(clean(text));
  while (rest.length > 0) {
    try {
      rest = rest.subarray(writeSync(fd, rest));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EPIPE') {
        readerGone(name);
        return;
      }
      // A descriptor its owner made non-blocking, full for now: the stream waits for it.
      if (code === 'EAGAIN') {
        process[name].write(rest);
        return;
      }
      throw error;
    }
  }
}

/** The stream's writes redacted, and a closed pipe the end of the command. */
function prepareStream(stream: NodeJS.WriteStream, name: Name): void {
  made[name] = true;
  const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
  stream.write = ((chunk: unknown, ...rest: unknown[]) => write(typeof chunk === 'string' ? clean(chunk) : chunk, ...rest)) as typeof stream.write;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    readerGone(name);
  });
}

function readerGone(name: Name): void {
  if (name === 'stdout') process.exit(process.exitCode ?? 0);
  stderrClosed = true;
}

/**
 * Calls `prepare` with the stream when `process[name]` is first read. Node defines it as a getter that makes the
 * stream; where it is not one (made already, or another runtime), the stream is prepared now.
 */
function onFirstUse(name: Name, prepare: (stream: NodeJS.WriteStream, name: Name) => void): void {
  const own = Object.getOwnPropertyDescriptor(process, name);
  const make = own?.get;
  if (make === undefined || own?.configurable !== true) {
    prepare(process[name], name);
    return;
  }
  let stream: NodeJS.WriteStream | undefined;
  Object.defineProperty(process, name, {
    configurable: true,
    enumerable: own.enumerable ?? true,
    get(): NodeJS.WriteStream {
      if (stream === undefined) {
        stream = make.call(process) as NodeJS.WriteStream;
        prepare(stream, name);
      }
      return stream;
    },
  });
}
