/**
 * Continue's sessions (~/.continue/sessions/<id>.json): `{sessionId, title, workspaceDirectory, history:
 * [{message: {role, content}, contextItems}]}`; older ones held the messages in `history` directly. They
 * record no time per message: turns take the file's time.
 */
import { fileURLToPath } from 'node:url';
import { ASSISTANT_BLOCKS, contentText, isRecord, pushTurn, text, USER_BLOCKS, type FormatReader, type Probe, type Transcript, type Turn } from './turns.js';

function isSession(json: unknown): json is Record<string, unknown> & { history: unknown[] } {
  return isRecord(json) && Array.isArray(json.history) && ('sessionId' in json || 'workspaceDirectory' in json);
}

export const continueDev: FormatReader = {
  format: 'continue',
  detect: (probe) => isSession(probe.json),
  read: (probe) => readContinue(probe),
};

function readContinue(probe: Probe): Transcript {
  const session = probe.json as Record<string, unknown> & { history: unknown[] };
  const turns: Turn[] = [];
  let skippedLines = 0;
  for (const item of session.history) {
    const message = isRecord(item) && isRecord(item.message) ? item.message : item;
    if (!isRecord(message) || typeof message.role !== 'string') {
      skippedLines++;
      continue;
    }
    const role = message.role === 'user' ? 'user' : message.role === 'assistant' ? 'assistant' : null;
    if (role === null) continue; // system, tool, thinking
    const said = contentText(message.content, role === 'user' ? USER_BLOCKS : ASSISTANT_BLOCKS);
    if (said === null) {
      skippedLines++;
      continue;
    }
    pushTurn(turns, role, said, undefined);
  }
  const workspace = text(session.workspaceDirectory);
  return { format: 'continue', turns, sessionId: text(session.sessionId), cwd: workspace?.startsWith('file://') ? fileURLToPath(workspace) : workspace, skippedLines };
}
