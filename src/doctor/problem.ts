/** What a doctor check reports, and the shape of a check: shared by doctor.ts and the checks it runs. */
import type { Config } from '../core/config.js';

export interface Problem {
  code: string;
  path: string | null;
  line: number | null;
  message: string;
  /**
   * error (the default): a person must fix it, and doctor exits 1. warning: worth a look, exit 0. info: a normal
   * state said plainly (index lag the next search repairs, unresolved links in a person's own notes), exit 0.
   */
  severity?: Severity;
}

export type Severity = 'error' | 'warning' | 'info';

/** Whether a problem makes the vault unhealthy (doctor's `ok`, its exit code). */
export const isError = (problem: Problem): boolean => (problem.severity ?? 'error') === 'error';

export interface DoctorInput {
  root: string;
  /** null when the config did not load; its problem is already reported. */
  config: Config | null;
}

export type Check = (input: DoctorInput) => Promise<Problem[]>;
