/** A one-line progress bar on stderr, drawn only when stderr is a terminal (quiet in pipes and CI). */

export interface ProgressBar {
  update(label: string, done: number, total: number): void;
  done(): void;
}

export function progressBar(stream: NodeJS.WriteStream = process.stderr): ProgressBar {
  if (!stream.isTTY) return { update: () => undefined, done: () => undefined };
  let last = 0;
  let drawn = false;
  return {
    update(label, done, total) {
      const now = Date.now();
      if (now - last < 80 && done < total) return;
      last = now;
      const width = 30;
      const ratio = total === 0 ? 1 : Math.min(1, done / total);
      const filled = Math.round(ratio * width);
      stream.write(`\r${label.padEnd(6)} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}\u001b[K`);
      drawn = true;
    },
    done() {
      if (drawn) stream.write('\r\u001b[K');
      drawn = false;
    },
  };
}
