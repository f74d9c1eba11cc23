/**
 * markdown-it 15 is compiled with its class fields turned into calls of a `_defineProperty` helper (a
 * property descriptor per field), so each token costs eight calls and each inline run twelve: in a
 * profile of parsePage over the Dendron notes, a fifth of the CPU went to that helper and to collecting
 * the descriptors. Here tokens and inline states get the same fields, in the same order, by plain
 * assignment; the objects keep markdown-it's prototypes, so every rule and method sees what it expects.
 * test/unit/plain-fields.test.ts holds the field lists to markdown-it's own, so an upgrade that adds a
 * field fails there rather than going unnoticed.
 */
import type { Env, MarkdownIt as Parser, StateInline, Token } from 'markdown-it';

type TokenClass = typeof Token;
type Nesting = Token['nesting'];
type TokenMeta = StateInline['tokens_meta'][number];

/** Makes `md` build its tokens and inline states with plain assignments. Call before adding rules or subclassing its states. */
export function usePlainFields(md: Parser): void {
  const MarkdownToken = new md.core.State('', md, {}).Token;
  const PlainToken = plainTokenClass(MarkdownToken);

  class PlainBlockState extends md.block.State {
    // markdown-it's own push, with the plain token.
    override push(type: string, tag: string, nesting: Nesting): Token {
      const token = new PlainToken(type, tag, nesting);
      token.block = true;
      if (nesting < 0) this.level--;
      token.level = this.level;
      if (nesting > 0) this.level++;
      this.tokens.push(token);
      return token;
    }
  }
  md.block.State = PlainBlockState;
  md.inline.State = plainInlineState(md.inline.State, MarkdownToken, PlainToken);
}

export function plainTokenClass(MarkdownToken: TokenClass): TokenClass {
  // A function, not a class: a class would have to call markdown-it's constructor.
  function PlainToken(this: Token, type: string, tag: string, nesting: Nesting): void {
    this.map = null;
    this.level = 0;
    this.children = null;
    this.content = '';
    this.markup = '';
    this.info = '';
    this.block = false;
    this.hidden = false;
    this.type = type;
    this.tag = tag;
    this.attrs = null;
    this.nesting = nesting;
    this.meta = null;
  }
  PlainToken.prototype = MarkdownToken.prototype;
  return PlainToken as unknown as TokenClass;
}

type InlineStateClass = typeof StateInline;

export function plainInlineState(Base: InlineStateClass, MarkdownToken: TokenClass, PlainToken: TokenClass): InlineStateClass {
  function PlainInlineState(this: StateInline, src: string, md: Parser, env: Env, outTokens: Token[]): void {
    this.pos = 0;
    this.level = 0;
    this.pending = '';
    this.pendingLevel = 0;
    this.cache = {};
    this.backticks = {};
    this.backticksScanned = false;
    this.skipHtmlSpecial = false;
    this.linkLevel = 0;
    this.delimiters = [];
    this._prev_delimiters = [];
    this.Token = MarkdownToken;
    this.src = src;
    this.env = env;
    this.md = md;
    this.tokens = outTokens;
    this.tokens_meta = Array<TokenMeta>(outTokens.length);
    this.posMax = this.src.length;
  }
  const prototype = Object.create(Base.prototype) as StateInline;
  // markdown-it's own pushPending and push, with the plain token.
  prototype.pushPending = function pushPending(this: StateInline): Token {
    const token = new PlainToken('text', '', 0);
    token.content = this.pending;
    token.level = this.pendingLevel;
    this.tokens.push(token);
    this.pending = '';
    return token;
  };
  prototype.push = function push(this: StateInline, type: string, tag: string, nesting: Nesting): Token {
    if (this.pending) this.pushPending();
    const token = new PlainToken(type, tag, nesting);
    let tokenMeta: TokenMeta;
    if (nesting < 0) {
      this.level--;
      this.delimiters = this._prev_delimiters.pop()!;
    }
    token.level = this.level;
    if (nesting > 0) {
      this.level++;
      this._prev_delimiters.push(this.delimiters);
      this.delimiters = [];
      tokenMeta = { delimiters: this.delimiters };
    }
    this.pendingLevel = this.level;
    this.tokens.push(token);
    this.tokens_meta.push(tokenMeta);
    return token;
  };
  PlainInlineState.prototype = prototype;
  return PlainInlineState as unknown as InlineStateClass;
}
