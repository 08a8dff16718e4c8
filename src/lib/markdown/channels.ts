// Channel, topic and message links: #**channel**, #**channel>topic**, #**channel>topic@message_id**, with the original's narrow URLs.
import type { MarkdownIt, StateInline, Token } from 'markdown-it';
import type { RenderContext, RenderStream } from './context.js';
import { startsWord } from './mentions.js';

const LINK_RE = /^#\*\*([^*\n]+?)\*\*/;

/** The original's hash-fragment encoding: percent-encode everything but [A-Za-z0-9_~-], then "%" → ".". */
export function encodeHashComponent(s: string): string {
  return encodeURIComponent(s)
    .replace(/[!'()*.]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase())
    .replace(/%/g, '.');
}

export function channelUrl(s: RenderStream): string {
  return `/#narrow/channel/${s.id}-${encodeHashComponent(s.name.replace(/ /g, '-'))}`;
}

export function topicUrl(s: RenderStream, topic: string): string {
  return `${channelUrl(s)}/topic/${encodeHashComponent(topic)}`;
}

interface ChannelMeta {
  stream: RenderStream;
  topic: string | null;
  messageId: number | null;
}

function channelRule(state: StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x23 /* # */ || !startsWord(state.src, state.pos)) return false;
  const m = LINK_RE.exec(state.src.slice(state.pos, state.posMax));
  if (!m) return false;
  const ctx = (state.env as { ctx: RenderContext }).ctx;
  const gt = m[1].indexOf('>');
  const name = (gt >= 0 ? m[1].slice(0, gt) : m[1]).trim();
  const stream = ctx.streamsByName.get(name.toLowerCase());
  if (!stream) return false;
  let topic: string | null = gt >= 0 ? m[1].slice(gt + 1).trim() : null;
  let messageId: number | null = null;
  const near = topic === null ? null : /^(.*)@(\d+)$/.exec(topic);
  if (near) {
    topic = near[1].trim();
    messageId = Number(near[2]);
  }
  if (!silent) state.push('channel_link', 'a', 0).meta = { stream, topic, messageId } satisfies ChannelMeta as unknown as Record<string, unknown>;
  state.pos += m[0].length;
  return true;
}

function channelHtml(meta: ChannelMeta, esc: (s: string) => string): string {
  const { stream, topic, messageId } = meta;
  if (topic === null) return `<a class="stream" data-stream-id="${stream.id}" href="${esc(channelUrl(stream))}">#${esc(stream.name)}</a>`;
  if (messageId === null) return `<a class="stream-topic" data-stream-id="${stream.id}" href="${esc(topicUrl(stream, topic))}">#${esc(stream.name)} &gt; ${esc(topic)}</a>`;
  return `<a class="message-link" href="${esc(`${topicUrl(stream, topic)}/near/${messageId}`)}">#${esc(stream.name)} &gt; ${esc(topic)} @ 💬</a>`;
}

export const channelPlugin = (md: MarkdownIt): void => {
  md.inline.ruler.before('emphasis', 'channel_link', channelRule);
  md.renderer.rules.channel_link = (tokens: Token[], idx: number) => channelHtml(tokens[idx].meta as unknown as ChannelMeta, md.utils.escapeHtml);
};
