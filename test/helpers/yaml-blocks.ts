/**
 * Random frontmatter blocks built from pieces a person (or a tool) writes in YAML: scalars of every type
 * the core schema and YAML 1.1 know, quotes and escapes, flow and block collections, block scalars,
 * anchors, aliases, tags, comments, non-ASCII text and odd keys, and now and then a broken one (an
 * unclosed quote, a stray indicator, a tab). Seeded, so a failure names a case that can be replayed.
 */
/** A source of numbers in [0, 1): `prng(seed)` from update-stream.ts. */
export type Random = () => number;

const PLAIN_KEYS = ['title', 'id', 'desc', 'tags', 'tag', 'aliases', 'alias', 'updated', 'created', 'status', 'type', 'nav_order', 'a', 'b', 'x_y', 'dash-key', 'with space', 'café', '名前', 'emoji😀', 'Key', 'TITLE', 'k1', '2fa', 'url'];
const ODD_KEYS = [
  '~', 'null', 'Null', 'NULL', '', '1', '-1', '0x1F', '0o17', '1.5', '1e3', '.inf', '.nan', 'true', 'False', 'yes', 'no',
  '2026-06-09', '[a, b]', '[]', '{a: 1}', '{}', '[~]', '[1, [2]]', '<<', '__proto__', 'constructor', 'toString',
  '"null"', "'~'", '!!str 1', '!!null', '!!int 5', '! x', '&k key', '&k ~', '*k', '? complex', '?', '-dash', ':colon', 'a:b',
  '"quoted key"', "'single'", '"esc\\tkey"', '"a,b"', '"[object Object]"',
];
const SCALARS = [
  // null, bool (1.2 and 1.1 spellings)
  '~', 'null', 'Null', 'NULL', 'nULL', '', 'true', 'True', 'TRUE', 'tRUE', 'false', 'False', 'FALSE', 'yes', 'No', 'on', 'OFF', 'y', 'n',
  // integers
  '0', '-0', '+0', '1', '+1', '-1', '007', '1_000', '1,000', '0o17', '0O17', '0o8', '017', '0x1F', '0X1F', '-0x1F', '0xg', '0b101', '-0b1',
  '12345678901234567890', '9007199254740993', '190:20:30',
  // floats
  '1.5', '-.5', '+.5', '.5', '1.', '-1.', '1.0', '1.50', '1e3', '1E-3', '-1.5e+3', '.5e1', '1.e2', '1e', 'e3', '6.8523015e+5', '685.230_15e+03',
  '.inf', '-.Inf', '+.INF', 'inf', '-inf', '.nan', '.NaN', '.NAN', 'nan', 'NaN', 'Infinity', '1..2', '+', '-', '.',
  // dates and times (strings in YAML 1.2)
  '2026-06-09', '2001-12-14t21:59:43.10-05:00', '2001-12-14 21:59:43.10 -5', '2026-06-09 10:00', '10:30', '1:30:00',
  // text
  'hello', 'hello world', 'Café ☕', '日本語のテキスト', 'emoji 😀 text', 'a#b', 'a #b', 'x: y', 'http://example.com/a?b=c#d', 'a, b, c', '#tag',
  'trailing  ', 'tab\there', 'semi;colon', 'it\'s', 'say "hi"', '50%', '@at', '`tick', '%pct', '!bang', '&amp', '*star', '|pipe', '>gt', '-', '- x',
  '? q', 'a?', 'a ? b', '[not', 'not]', 'a{b}', 'a [b] c', 'é', '\u00a0nbsp', 'zero\u200bwidth', '\ufeffbom', 'a\\nb',
  // quoted
  '"double"', '"with \\"escape\\""', '"tab\\tnewline\\n"', '"\\u00e9\\x41\\U0001F600"', '"\\/ \\0 \\a \\e \\L \\P \\_ \\N"', '"bad \\q escape"', '""', "''",
  "'single'", "'it''s'", "'multi\n  line'", '"multi\n  line"', '"123"', "'true'", '"~"', '"2026-06-09"', '"unclosed', "'unclosed",
];
const TAGS = ['!!str', '!!int', '!!float', '!!bool', '!!null', '!!binary', '!!timestamp', '!!set', '!!omap', '!!map', '!!seq', '!custom', '!', '!<tag:yaml.org,2002:str>', '!!merge'];
const COMMENTS = [' # comment', ' #c', '# no space', ' # ~: x', ' # café'];
const BREAKERS = ['"', "'", '[', ']', '{', '}', '\t', ':', ': ', '-', '- ', '&', '*', '!', '|', '>', '%', '@', '`', '#', ' #', '?', '? ', ',', '\n', '\n  ', '\n- ', '\\', '\r', '\ufeff', '...', '\n...\n'];

class Builder {
  private anchors = 0;
  /** A tame block holds only what frontmatter usually holds (no odd keys, anchors, tags or breakage), the shapes js-yaml reads. */
  private readonly tame: boolean;
  constructor(private readonly rand: Random) {
    this.tame = rand() < 0.5;
  }

  chance(p: number): boolean {
    return this.rand() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.rand() * items.length)]!;
  }

  count(max: number): number {
    return 1 + Math.floor(this.rand() * max);
  }

  key(): string {
    const r = this.rand();
    const key = r < 0.7 ? this.pick(PLAIN_KEYS) : r < 0.82 || this.tame ? JSON.stringify(this.pick(PLAIN_KEYS)) : this.pick(ODD_KEYS);
    return this.props() + key;
  }

  /** An anchor or a tag in front of a node, now and then. */
  props(): string {
    let out = '';
    if (this.tame) return out;
    if (this.chance(0.04)) out += `&a${this.anchors++ % 3} `;
    if (this.chance(0.04)) out += `${this.pick(TAGS)} `;
    return out;
  }

  scalar(): string {
    if (!this.tame && this.chance(0.05)) return `*a${Math.floor(this.rand() * 4)}`;
    const base = this.pick(SCALARS);
    return this.props() + base;
  }

  flow(depth: number): string {
    const items = Array.from({ length: Math.floor(this.rand() * 4) }, () => this.flowItem(depth + 1));
    const trailing = this.chance(0.1) ? ', ' : '';
    return this.chance(0.7) ? `[${items.join(', ')}${trailing}]` : `{${items.map((item) => (this.chance(0.8) ? `${this.key()}: ${item}` : item)).join(', ')}${trailing}}`;
  }

  flowItem(depth: number): string {
    if (depth < 3 && this.chance(0.15)) return this.flow(depth);
    return this.scalar().replace(/\n/gu, ' ');
  }

  /** The text after `key:` (starting with a space or a line break), nested lines indented by `indent`. */
  value(indent: number, depth: number): string {
    const pad = ' '.repeat(indent + 2);
    const r = this.rand();
    const comment = this.chance(0.08) ? this.pick(COMMENTS) : '';
    if (depth > 2 || r < 0.55) return ` ${this.scalar()}${comment}`;
    if (r < 0.68) return ` ${this.props()}${this.flow(0)}${comment}`;
    if (r < 0.78) {
      // A block sequence, indented or level with its key.
      const itemPad = this.chance(0.3) ? ' '.repeat(indent) : pad;
      return `${comment}\n${Array.from({ length: this.count(3) }, () => `${itemPad}-${this.chance(0.3) ? this.entry(itemPad.length + 2, depth + 1).replace(/^/u, ' ') : this.value(itemPad.length, depth + 1)}`).join('\n')}`;
    }
    if (r < 0.88) return `${comment}\n${Array.from({ length: this.count(3) }, () => pad + this.entry(indent + 2, depth + 1)).join('\n')}`;
    if (r < 0.95) {
      const header = this.pick(['|', '>', '|-', '>-', '|+', '>+', '|2', '>1-']);
      const lines = Array.from({ length: this.count(3) }, () => (this.chance(0.15) ? '' : pad + this.pick(SCALARS).replace(/\n/gu, ' ')));
      return ` ${header}${comment}\n${lines.join('\n')}`;
    }
    // A plain scalar over several lines.
    return ` ${this.pick(PLAIN_KEYS)} words\n${pad}${this.pick(SCALARS).replace(/\n/gu, ' ')}`;
  }

  entry(indent: number, depth: number): string {
    return `${this.key()}:${this.value(indent, depth)}`;
  }

  block(): string {
    const lines: string[] = [];
    for (let i = 0, n = this.count(7); i < n; i++) {
      if (this.chance(0.05)) lines.push(this.pick(['# a comment', '', '   ', '#']));
      lines.push(this.entry(0, 0));
    }
    let text = lines.join('\n');
    // Now and then a stray indicator or a missing character: blocks that do not parse, or parse otherwise.
    if (!this.tame && this.chance(0.12)) {
      const at = Math.floor(this.rand() * (text.length + 1));
      text = this.chance(0.7) ? text.slice(0, at) + this.pick(BREAKERS) + text.slice(at) : text.slice(0, at) + text.slice(at + 1);
    }
    if (!this.tame && this.chance(0.02)) text = `%YAML 1.1\n${text}`;
    return text;
  }
}

/** One block as readFrontmatter passes it: a leading line break (the opening `---`), then the lines. */
export function yamlBlock(rand: Random): string {
  return `\n${new Builder(rand).block()}`;
}

/**
 * A block of one `key: value` a line, as most frontmatter is (src/pages/frontmatter-flat.ts reads such blocks
 * itself): keys plain and odd, single-line scalars of every kind, random spacing, blank lines, and now and
 * then a line of another shape, so both sides of the flat reader's bounds are met.
 */
export function flatBlock(rand: Random): string {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;
  const scalars = SCALARS.filter((scalar) => !scalar.includes('\n'));
  // Half the blocks stay within what the flat reader takes but for the scalars; the others stray now and then.
  const odd = rand() < 0.5 ? 0.1 : 0;
  const lines: string[] = [];
  for (let i = 0, n = 1 + Math.floor(rand() * 7); i < n; i++) {
    if (rand() < 0.05) lines.push(pick(['', '   ', ...(odd > 0 ? ['# comment', '  indented: x', '- item'] : [])]));
    const key = rand() < odd ? pick(ODD_KEYS) : pick(PLAIN_KEYS);
    const gap = rand() < odd ? pick(['  ', '', '\t']) : ' ';
    const value = rand() < 0.05 ? '' : pick(scalars);
    const tail = rand() < odd ? pick(['  ', ' # c', '\u00a0', '\t']) : '';
    lines.push(`${key}:${gap}${value}${tail}`);
  }
  return `\n${lines.join('\n')}`;
}
