/**
 * Which export a path holds, told by its content (never by its name alone): a folder with a
 * conversations.json is a ChatGPT or Claude.ai export, a folder of notes with observations or relations is
 * Basic Memory; a JSON file is told by its shape. Anything else is one clear error.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { UsageError, VaultkeeperError } from '../core/errors.js';
import { isBasicMemoryFolder, listNotes, noteSemantics, readBasicMemory } from './basic-memory.js';
import { isChatGptExport, readChatGpt } from './chatgpt.js';
import { isClaudeAiExport, readClaudeAi } from './claude-ai.js';
import { isMem0Export, readMem0 } from './mem0.js';
import type { ImportSource } from './source.js';
import { isVaultkeeperExport, readVaultkeeperExport } from './vaultkeeper-jsonl.js';

const KNOWN = 'a ChatGPT or Claude.ai export (conversations.json), a mem0 export (JSON), a Basic Memory folder, or a vaultkeeper export (JSON lines)';

function unknownFormat(given: string, why: string): VaultkeeperError {
  return new VaultkeeperError('VK_IMPORT_FORMAT', `${given} is in no format vaultkeeper imports (${why}); nothing was imported`, { hint: `give ${KNOWN}` });
}

/** Reads the export at `given` in the format its content shows. */
export async function readImport(given: string): Promise<ImportSource> {
  const target = path.resolve(given);
  const info = await stat(target).catch(() => null);
  if (info === null) throw new UsageError(`no such file or folder: ${given}; nothing was imported`, `give ${KNOWN}`);
  if (info.isDirectory()) {
    const conversations = path.join(target, 'conversations.json');
    if ((await stat(conversations).catch(() => null))?.isFile()) return readJsonExport(given, conversations, path.join(target, 'memories.json'));
    const notes = await listNotes(target);
    if (notes.length > 0 && (await isBasicMemoryFolder(target, notes))) return readBasicMemory(target, notes);
    // A folder holding one JSON file (a mem0 export saved on its own) stands for that file.
    const json = notes.length === 0 ? (await readdir(target)).filter((name) => /\.jsonl?$/i.test(name)) : [];
    if (json.length === 1) return readJsonExport(given, path.join(target, json[0]!), path.join(target, 'memories.json'));
    throw unknownFormat(given, notes.length === 0 ? 'a folder with no conversations.json, no notes and not one JSON file' : 'a folder of notes with no Basic Memory observation or relation');
  }
  if (target.toLowerCase().endsWith('.md')) {
    const semantics = noteSemantics(await readFile(target, 'utf8'));
    if (semantics.observations.length + semantics.relations.length === 0) throw unknownFormat(given, 'a note with no Basic Memory observation or relation');
    return readBasicMemory(path.dirname(target), [path.basename(target)]);
  }
  return readJsonExport(given, target, path.join(path.dirname(target), 'memories.json'));
}

async function readJsonExport(given: string, file: string, memoriesFile: string): Promise<ImportSource> {
  const content = (await readFile(file, 'utf8')).replace(/^\uFEFF/, '');
  let value: unknown;
  try {
    value = JSON.parse(content);
  } catch {
    if (isVaultkeeperExport(content)) return readVaultkeeperExport(content);
    throw unknownFormat(given, 'neither JSON nor vaultkeeper JSON lines');
  }
  if (isChatGptExport(value)) return readChatGpt(value, await optionalJson(memoriesFile));
  if (isClaudeAiExport(value)) return readClaudeAi(value);
  if (isMem0Export(value)) return readMem0(value);
  // One exported fact is one JSON line, and so also a whole JSON document.
  if (isVaultkeeperExport(content)) return readVaultkeeperExport(content);
  throw unknownFormat(given, 'JSON of no known shape');
}

/** ChatGPT's saved memories, when the export has them beside conversations.json. */
async function optionalJson(file: string): Promise<unknown> {
  const content = await readFile(file, 'utf8').catch(() => null);
  if (content === null) return undefined;
  try {
    return JSON.parse(content.replace(/^\uFEFF/, '')) as unknown;
  } catch {
    return undefined;
  }
}
