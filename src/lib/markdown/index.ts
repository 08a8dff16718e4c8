// Message rendering: content in our Markdown flavor → safe HTML plus what the message mentions.
// This is the module boundary the fuller Markdown flavor will replace; keep callers on renderMessage.
import MarkdownIt from 'markdown-it';
import { mentionPlugin, type MentionEnv } from './mentions.js';
import type { RenderContext } from './context.js';

export type { RenderContext } from './context.js';
export { loadRenderContext, renderContextFrom } from './context.js';

export interface RenderResult {
  html: string;
  mentionedUserIds: number[];
  streamWildcardMentioned: boolean;
  topicWildcardMentioned: boolean;
  isMeMessage: boolean;
  hasLink: boolean;
}

// html: false escapes any raw HTML; markdown-it's link validation refuses javascript:, vbscript: and data: URLs.
const md = new MarkdownIt({ html: false, linkify: true, breaks: true, typographer: false });
md.use(mentionPlugin);

const defaultLinkOpen = md.renderer.rules.link_open ?? ((tokens, idx, opts, _env, self) => self.renderToken(tokens, idx, opts));
md.renderer.rules.link_open = (tokens, idx, opts, env, self) => {
  // Links open outside the app and do not leak the page to the target.
  tokens[idx].attrSet('target', '_blank');
  tokens[idx].attrSet('rel', 'noopener noreferrer');
  (env as { hasLink?: boolean }).hasLink = true;
  return defaultLinkOpen(tokens, idx, opts, env, self);
};

export function renderMessage(content: string, ctx: RenderContext): RenderResult {
  const env: MentionEnv & { hasLink?: boolean } = { ctx, mentionedUserIds: new Set(), streamWildcard: false, topicWildcard: false };
  const html = md.render(content, env as unknown as Record<string, unknown>).replace(/\n+$/, '');
  return {
    html,
    mentionedUserIds: [...env.mentionedUserIds].sort((a, b) => a - b),
    streamWildcardMentioned: env.streamWildcard,
    topicWildcardMentioned: env.topicWildcard,
    isMeMessage: /^\/me\s/.test(content) && !content.includes('\n'),
    hasLink: env.hasLink === true,
  };
}
