/** What a doctor check reports, and the shape of a check: shared by doctor.ts and the checks it runs. */
import type { Config } from '../core/config.js';

export interface Problem {
  code: string;
  path: string | null;
  line: number | null;
  message: string;
}

export interface DoctorInput {
  root: string;
  /** null when the config did not load; its problem is already reported. */
  config: Config | null;
}

export type Check = (input: DoctorInput) => Promise<Problem[]>;
