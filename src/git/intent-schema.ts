/** The shape of `.vaultkeeper/intent.json` (see intent.ts), apart so that reading no intent loads no validator. */
import { z } from 'zod';

const Request = z.object({
  op: z.string(),
  subject: z.string(),
  body: z.string().optional(),
  paths: z.array(z.string()),
  trailers: z.record(z.string(), z.string()).optional(),
});

export const IntentSchema = z.discriminatedUnion('kind', [
  z.object({
    /** Copy these paths from `source` (a folder in the vault, e.g. a scratch worktree) and commit them. */
    kind: z.literal('apply'),
    base: z.string(),
    source: z.string(),
    deleted: z.array(z.string()),
    request: Request,
  }),
  z.object({
    /**
     * The program is about to append to these logs (or the tombstones) and commit them: what a crash leaves
     * uncommitted there is recovered as the program's write; any other uncommitted log lines are a person's.
     */
    kind: z.literal('append'),
    paths: z.array(z.string()),
  }),
  z.object({
    /** Commit what `git revert --no-commit` of `target` staged. */
    kind: z.literal('revert'),
    base: z.string(),
    target: z.string(),
    request: Request,
  }),
]);
export type Intent = z.infer<typeof IntentSchema>;
