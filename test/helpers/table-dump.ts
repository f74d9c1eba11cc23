/** Every row of a vault's index table, every column, in the table's own order: to compare two builds of one vault. */
import { createRequire } from 'node:module';
import path from 'node:path';
import type * as Lance from '@lancedb/lancedb';

const lancedb = createRequire(import.meta.url)('@lancedb/lancedb') as typeof Lance;

export async function dumpTable(root: string): Promise<Array<Record<string, unknown>>> {
  const db = await lancedb.connect(path.join(root, '.vaultkeeper/index'));
  try {
    const table = await db.openTable('rows');
    try {
      const rows = (await table.query().toArray()) as Array<Record<string, unknown>>;
      return rows.map((row) => {
        const plain: Record<string, unknown> = {};
        for (const [name, value] of Object.entries(row)) plain[name] = isVector(value) ? Array.from(value.toArray()) : value;
        return plain;
      });
    } finally {
      table.close();
    }
  } finally {
    db.close();
  }
}

function isVector(value: unknown): value is { toArray(): ArrayLike<unknown> } {
  return typeof value === 'object' && value !== null && typeof (value as { toArray?: unknown }).toArray === 'function';
}
