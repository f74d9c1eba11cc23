/**
 * The programmatic API: the CLI, the MCP server and the daemon all go through a Vault.
 * Heavy parts (index, LLM) are imported lazily by the methods that need them.
 */
import { remember, type RememberOptions, type RememberResult } from '../capture/remember.js';
import { runDoctor, type DoctorReport } from '../doctor/doctor.js';
import { history, type HistoryEntry } from '../git/audit.js';
import type { FactInput } from '../logs/factlog.js';
import { forget, type ForgetResult, type ForgetTarget } from '../tombstones/forget.js';
import { loadContext, type VaultContext } from './context.js';
import type { LocateOptions } from './locate.js';

export class Vault {
  constructor(readonly ctx: VaultContext) {}

  get root(): string {
    return this.ctx.root;
  }

  remember(inputs: readonly FactInput[], options?: RememberOptions): Promise<RememberResult> {
    return remember(this.ctx, inputs, options);
  }

  forget(target: ForgetTarget, options?: { reason?: string | undefined; now?: Date }): Promise<ForgetResult> {
    return forget(this.ctx, target, options);
  }

  history(options: { path?: string; limit?: number } = {}): Promise<HistoryEntry[]> {
    return history(this.ctx.root, options);
  }

  doctor(): Promise<DoctorReport> {
    return runDoctor(this.ctx.root, this.ctx.env);
  }
}

export async function openVault(options: LocateOptions = {}): Promise<Vault> {
  return new Vault(await loadContext(options));
}
