// Mentions as a markdown-it plugin: @**Name**, @**Name|id**, silent @_**Name**, groups @*group* / @_*group*,
// the channel (@**all** …) and topic (@**topic**) wildcards. Mentions inside block quotes turn silent,
// because quoting someone should not notify the people they mentioned.
import type { MarkdownIt, StateCore, StateInline, Token } from 'markdown-it';
import type { RenderContext } from './context.js';

export const STREAM_WILDCARDS = ['all', 'everyone', 'channel', 'stream'];
export const TOPIC_WILDCARD = 'topic';

export interface MentionMeta {
  kind: 'user' | 'group' | 'stream_wildcard' | 'topic_wildcard';
  id?: number;
  name: string;
  silent: boolean;
}

/** What rendering found, accumulated in markdown-it's env. */
export interface MentionEnv {
  ctx: RenderContext;
  mentionedUserIds: Set<number>;
  mentionedGroupIds: Set<number>;
  streamWildcard: boolean;
  topicWildcard: boolean;
}

const USER_RE = /^@(_?)\*\*([^*\n]+?)\*\*/;
const GROUP_RE = /^@(_?)\*([^*\n]+?)\*/;

/** A mention starts a word: after whitespace, a quote, an opening bracket, a slash or "<". */
export function startsWord(src: string, pos: number): boolean {
  return pos === 0 || /[\s'"({[/<>]/.test(src[pos - 1]);
}

function resolveUser(ctx: RenderContext, text: string): Omit<MentionMeta, 'silent'> | null {
  const lower = text.trim().toLowerCase();
  if (STREAM_WILDCARDS.includes(lower)) return { kind: 'stream_wildcard', name: lower };
  if (lower === TOPIC_WILDCARD) return { kind: 'topic_wildcard', name: lower };
  const bar = text.lastIndexOf('|');
  if (bar >= 0 && /^\d+$/.test(text.slice(bar + 1).trim())) {
    const u = ctx.byId.get(Number(text.slice(bar + 1).trim()));
    const name = text.slice(0, bar).trim().toLowerCase();
    // The name part is optional in practice (@**|5**), but when given it must belong to that user.
    if (!u || (name && u.full_name.toLowerCase() !== name)) return null;
    return { kind: 'user', id: u.id, name: u.full_name };
  }
  const matches = ctx.byName.get(lower);
  // An ambiguous name mentions nobody: the sender must disambiguate with |id.
  if (!matches || matches.length !== 1) return null;
  return { kind: 'user', id: matches[0].id, name: matches[0].full_name };
}

function mentionRule(state: StateInline, silentMode: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x40 /* @ */ || !startsWord(state.src, state.pos)) return false;
  const rest = state.src.slice(state.pos, state.posMax);
  const env = state.env as unknown as MentionEnv;
  let found: Omit<MentionMeta, 'silent'> | null = null;
  let m = USER_RE.exec(rest);
  if (m) found = resolveUser(env.ctx, m[2]);
  else {
    m = GROUP_RE.exec(rest);
    const g = m && env.ctx.groupsByName.get(m[2].trim().toLowerCase());
    if (g) found = { kind: 'group', id: g.id, name: g.name };
  }
  if (!m || !found) return false;
  if (!silentMode) {
    const tok = state.push('mention', '', 0);
    tok.meta = { ...found, silent: m[1] === '_' } satisfies MentionMeta as unknown as Record<string, unknown>;
  }
  state.pos += m[0].length;
  return true;
}

/** After inline parsing: silence mentions in block quotes and record who was mentioned. */
function collectMentions(state: StateCore): void {
  const env = state.env as unknown as MentionEnv;
  let quoteDepth = 0;
  for (const block of state.tokens) {
    if (block.type === 'blockquote_open') quoteDepth++;
    else if (block.type === 'blockquote_close') quoteDepth--;
    if (block.type !== 'inline' || !block.children) continue;
    for (const tok of block.children) {
      if (tok.type !== 'mention') continue;
      const meta = tok.meta as unknown as MentionMeta;
      if (quoteDepth > 0) meta.silent = true;
      if (meta.silent) continue;
      if (meta.kind === 'user') env.mentionedUserIds.add(meta.id!);
      else if (meta.kind === 'group') env.mentionedGroupIds.add(meta.id!);
      else if (meta.kind === 'stream_wildcard') env.streamWildcard = true;
      else env.topicWildcard = true;
    }
  }
}

function mentionHtml(meta: MentionMeta, escape: (s: string) => string): string {
  const label = escape((meta.silent ? '' : '@') + meta.name);
  const silent = meta.silent ? ' silent' : '';
  switch (meta.kind) {
    case 'user':
      return `<span class="user-mention${silent}" data-user-id="${meta.id}">${label}</span>`;
    case 'group':
      return `<span class="user-group-mention${silent}" data-user-group-id="${meta.id}">${label}</span>`;
    case 'stream_wildcard':
      return `<span class="user-mention channel-wildcard-mention${silent}" data-user-id="*">${label}</span>`;
    default:
      return `<span class="topic-mention${silent}">${label}</span>`;
  }
}

export const mentionPlugin = (md: MarkdownIt): void => {
  // Before emphasis, which would otherwise take the ** pair.
  md.inline.ruler.before('emphasis', 'mention', mentionRule);
  md.core.ruler.after('inline', 'collect_mentions', collectMentions);
  md.renderer.rules.mention = (tokens: Token[], idx: number) => mentionHtml(tokens[idx].meta as unknown as MentionMeta, md.utils.escapeHtml);
};
