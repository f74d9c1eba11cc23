/** The embedder contract every embedder implements (the registry in embedder.ts picks one by config). */

export interface Embedder {
  /** Stable identity of model + settings, e.g. "hash-v1:256", "use-lite:512", "transformers:Xenova/all-MiniLM-L6-v2", "openai:text-embedding-3-small:1536". Stored with the index so a change is detected. */
  readonly model: string;
  readonly dimensions: number;
  /** One L2-normalized vector per text, in order. */
  embed(texts: readonly string[]): Promise<Float32Array[]>;
}
