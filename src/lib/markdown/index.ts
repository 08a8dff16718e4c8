// Message rendering: content in the original's Markdown flavor → sanitized HTML plus what the message mentions.
import MarkdownIt from 'markdown-it';
import type { RenderContext } from './context.js';
import { blocksPlugin } from './blocks.js';
import { channelPlugin } from './channels.js';
import { emojiPlugin } from './emoji.js';
import { fencePlugin } from './fences.js';
import { inlinePlugin } from './inline.js';
import { applyLinkifiers, linkifierMatches } from './linkifiers.js';
import { configureLinks, tidyLinks } from './links.js';
import { autolink, findUrls } from './autolink.js';
import { mathPlugin } from './math.js';
import { mentionPlugin, STREAM_WILDCARDS, TOPIC_WILDCARD, type MentionEnv } from './mentions.js';
import { inlinePreviews } from './previews.js';
import { originalBytes } from './original-bytes.js';
import { sanitize } from './sanitize.js';
import { timePlugin } from './time.js';
import { whitespacePlugin } from './whitespace.js';

export type { RenderContext, RenderOptions, RenderUser, RenderGroup, RenderStream, RealmEmoji } from './context.js';
export type { Linkifier } from './linkifiers.js';
export { loadRenderContext, renderContextFrom } from './context.js';

export interface RenderResult {
  html: string;
  /** Users mentioned directly and not silently (outside quotes). */
  mentionedUserIds: number[];
  /**
   * Named user groups mentioned, not silently (outside quotes). Callers check that the sender may
   * mention each (can_mention_group) and flag the groups' members, subgroups included, as mentioned.
   */
  mentionedGroupIds: number[];
  streamWildcardMentioned: boolean;
  topicWildcardMentioned: boolean;
  isMeMessage: boolean;
  hasLink: boolean;
  hasImage: boolean;
}

// html: false escapes any raw HTML; our validateLink refuses every scheme but a short safe list.
// Bare URLs are found by our own rule (autolink.ts), not markdown-it's linkify.
const md = new MarkdownIt({ html: false, linkify: false, breaks: true, typographer: false });
md.disable(['autolink', 'html_inline', 'html_block', 'lheading', 'smartquotes', 'replacements']);
configureLinks(md);
md.use(fencePlugin);
md.use(blocksPlugin);
md.use(whitespacePlugin);
md.use(inlinePlugin);
md.use(mathPlugin);
md.use(timePlugin);
md.use(mentionPlugin);
md.use(channelPlugin);
// Core rules after inline parsing, in order: links, then emoji in the remaining text, then previews.
md.core.ruler.push('autolink', autolink);
md.core.ruler.push('linkifiers', applyLinkifiers);
md.core.ruler.push('tidy_links', tidyLinks);
md.use(emojiPlugin);
md.core.ruler.push('inline_previews', inlinePreviews);

type Env = MentionEnv & { hasLink?: boolean; hasImage?: boolean };

/**
 * One line of letters, digits, spaces and a little punctuation holds no Markdown, link, emoji,
 * emoticon or mention (linkifiers aside): it renders as one escaped-free paragraph. Most chat lines are like this, so
 * they skip the parser and the sanitizer (a test checks the two paths agree).
 */
const PLAIN_LINE = /^[A-Za-z0-9,!?'](?:[A-Za-z0-9 ,!?']*[A-Za-z0-9,!?'])?$/;

/**
 * A user mention or a bold run of words on a plain line: after the start or a space, a name (letters,
 * digits, spaces) or words, then the end, a space or plain punctuation. What is left once they are
 * taken out must be a PLAIN_LINE.
 */
const LINE_MARKUP = /(^| )(?:@\*\*([A-Za-z0-9 ]+)\*\*|\*\*([A-Za-z0-9]+(?: [A-Za-z0-9]+)*)\*\*)(?=$|[ ,!?])/g;

export function renderMessage(content: string, ctx: RenderContext): RenderResult {
  // Linkifier patterns may match plain words (e.g. T123), so the shortcuts need an organization without any.
  if (ctx.linkifiers.length === 0) {
    if (PLAIN_LINE.test(content)) return plainResult(`<p>${content}</p>`);
    if (content.includes('**')) {
      const r = renderMarkupLine(content, ctx);
      if (r) return r;
    }
  }
  return renderFull(content, ctx);
}

/**
 * A plain line with mentions of people by unique name and bold words (the commonest chat lines after
 * plain ones, and most imported Slack mentions): their HTML without the parser. Null when anything
 * else is there (a wildcard, an ambiguous or unknown name, other markup): the full pipeline decides.
 * A test holds the two paths to the same output.
 */
function renderMarkupLine(content: string, ctx: RenderContext): RenderResult | null {
  if (!PLAIN_LINE.test(content.replace(LINE_MARKUP, '$1x'))) return null;
  const ids = new Set<number>();
  let failed = false;
  const html = content.replace(LINE_MARKUP, (_, before: string, name: string | undefined, bold: string | undefined) => {
    if (bold !== undefined) return `${before}<strong>${bold}</strong>`;
    const matches = ctx.byName.get(name!.trim().toLowerCase());
    // Wildcards (all, topic…) are not people's names here: byName holds people only.
    const user = matches?.length === 1 ? matches[0] : undefined;
    if (!user || /[&<>"]/.test(user.full_name) || isWildcardName(name!)) {
      failed = true;
      return '';
    }
    ids.add(user.id);
    return `${before}<span class="user-mention" data-user-id="${user.id}">@${user.full_name}</span>`;
  });
  if (failed) return null;
  return { ...plainResult(`<p>${html}</p>`), mentionedUserIds: [...ids].sort((a, b) => a - b) };
}

const isWildcardName = (name: string): boolean => {
  const lower = name.trim().toLowerCase();
  return STREAM_WILDCARDS.includes(lower) || lower === TOPIC_WILDCARD;
};

function plainResult(html: string): RenderResult {
  return { html, mentionedUserIds: [], mentionedGroupIds: [], streamWildcardMentioned: false, topicWildcardMentioned: false, isMeMessage: false, hasLink: false, hasImage: false };
}

/** The whole pipeline: parse with our rules, render, sanitize. */
export function renderFull(content: string, ctx: RenderContext): RenderResult {
  const env = newEnv(ctx);
  const html = originalBytes(sanitize(md.render(content, env as unknown as Record<string, unknown>))).replace(/\n+$/, '');
  return {
    html,
    mentionedUserIds: [...env.mentionedUserIds].sort((a, b) => a - b),
    mentionedGroupIds: [...env.mentionedGroupIds].sort((a, b) => a - b),
    streamWildcardMentioned: env.streamWildcard,
    topicWildcardMentioned: env.topicWildcard,
    isMeMessage: /^\/me\s/.test(content) && !content.includes('\n'),
    hasLink: env.hasLink === true,
    hasImage: env.hasImage === true,
  };
}

/** The renderer's HTML before the sanitizer (for the test holding the sanitizer's shortcut to its full path). */
export function renderUnsanitized(content: string, ctx: RenderContext): string {
  return md.render(content, newEnv(ctx) as unknown as Record<string, unknown>);
}

function newEnv(ctx: RenderContext): Env {
  return { ctx, mentionedUserIds: new Set(), mentionedGroupIds: new Set(), streamWildcard: false, topicWildcard: false };
}

export interface TopicLink {
  text: string;
  url: string;
}

/** topic_links of a message: linkifier matches and bare URLs in the topic, in order. */
export function topicLinks(topic: string, ctx: RenderContext): TopicLink[] {
  const found = linkifierMatches(topic, ctx.linkifiers).map((m) => ({ start: m.start, end: m.end, text: m.text, url: m.url }));
  for (const m of findUrls(topic)) {
    if (found.some((f) => m.start < f.end && f.start < m.end)) continue;
    if (md.validateLink(m.href)) found.push({ start: m.start, end: m.end, text: m.text, url: m.href });
  }
  return found.sort((a, b) => a.start - b.start).map(({ text, url }) => ({ text, url }));
}
