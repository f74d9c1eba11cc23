// stopword ships no type declarations.
declare module 'stopword' {
  export const eng: string[];
}
// The English list alone: the package's main file holds 62 languages and costs a search tens of ms to load.
declare module 'stopword/src/stopwords_eng.js' {
  export const eng: string[];
}
// sql.js ships no type declarations: the little of it that reads Cursor's chat store (extract/formats/cursor.ts).
declare module 'sql.js' {
  export interface QueryResult {
    columns: string[];
    values: unknown[][];
  }
  export interface Database {
    exec(sql: string, params?: unknown[]): QueryResult[];
    close(): void;
  }
  export interface SqlJsStatic {
    Database: new (data?: Uint8Array) => Database;
  }
  export default function initSqlJs(config?: { locateFile?: (file: string) => string }): Promise<SqlJsStatic>;
}
