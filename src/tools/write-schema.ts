/** Writes schema/config.schema.json from the config validator, so the schema cannot drift from the code. */
import { writeFile, mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { configJsonSchema } from '../core/config.js';

export const SCHEMA_FILE = fileURLToPath(new URL('../../schema/config.schema.json', import.meta.url));

export function schemaText(): string {
  return `${JSON.stringify(configJsonSchema(), null, 2)}\n`;
}

// A build step writing the repository's schema/, never a vault: outside the confinement rule (DESIGN §9).
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await mkdir(new URL('../../schema/', import.meta.url), { recursive: true });
  await writeFile(SCHEMA_FILE, schemaText());
  process.stdout.write(`wrote ${SCHEMA_FILE}\n`);
}
