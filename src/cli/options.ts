/** The options every command sees (`--vault`, `--debug`), defined apart from main.ts so commands never import it. */

export interface GlobalOptions {
  vault?: string;
  debug?: boolean;
}
