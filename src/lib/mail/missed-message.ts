// The missed-message email of one batch: subject, plain text and HTML, one section per conversation.
import { htmlToText } from './html-text.js';

export interface MissedMessage {
  id: number;
  senderName: string;
  dateSent: number;
  /** Markdown source (kept for callers; the text part is derived from the rendered HTML). */
  content: string;
  /** Rendered HTML: the HTML part, and through htmlToText the plain-text part. */
  renderedContent: string;
}

export interface MissedConversation {
  /** "#design > logo" or "Direct messages with Ann". */
  title: string;
  /** The conversation in the web client. */
  link: string;
  /** Mail to this address posts in the conversation as the recipient. */
  replyTo: string;
  messages: MissedMessage[];
}

export interface MissedEmailInput {
  realmName: string;
  realmUrl: string;
  conversations: MissedConversation[];
  /** message_content_in_email_notifications: off sends only who wrote where. */
  includeContent: boolean;
  /** One link per kind of notification in this email. */
  unsubscribe: { label: string; url: string }[];
}

export interface ComposedEmail {
  subject: string;
  text: string;
  html: string;
  fromName: string;
}

export const escapeHtml = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/**
 * Rendered message HTML made fit for a mail reader: server-relative links become absolute, and
 * images become their names (previews sit inside a link to the file, which stays), so nothing is
 * fetched from the server on opening.
 */
export function mailSafeHtml(html: string, realmUrl: string): string {
  return html
    .replace(/(href|src)="\/(?!\/)/g, `$1="${realmUrl}/`)
    .replace(/<img\b[^>]*>/gi, (tag) => {
      const alt = /\balt="([^"]*)"/i.exec(tag)?.[1];
      const src = /\bsrc="([^"]*)"/i.exec(tag)?.[1] ?? '';
      return `[${alt || src.split('/').pop() || 'image'}]`;
    });
}

const time = (unix: number): string => new Date(unix * 1000).toISOString().replace('T', ' ').slice(0, 16) + ' UTC';

export async function composeMissedEmail(input: MissedEmailInput): Promise<ComposedEmail> {
  const convs = input.conversations;
  const count = convs.reduce((n, c) => n + c.messages.length, 0);
  const senders = [...new Set(convs.flatMap((c) => c.messages.map((m) => m.senderName)))];
  const subject = convs.length === 1 ? convs[0].title : `${count} new messages in ${input.realmName}`;
  const text: string[] = [];
  const html: string[] = [`<div style="font-family:sans-serif">`];
  for (const c of convs) {
    text.push(c.title, '='.repeat(Math.min(c.title.length, 60)), '');
    html.push(`<h3><a href="${escapeHtml(c.link)}">${escapeHtml(c.title)}</a></h3>`);
    for (const m of c.messages) {
      text.push(`${m.senderName} (${time(m.dateSent)}):`);
      html.push(`<p><b>${escapeHtml(m.senderName)}</b> <span style="color:#777">${time(m.dateSent)}</span></p>`);
      if (input.includeContent) {
        const body = mailSafeHtml(m.renderedContent, input.realmUrl);
        // The text part reads what the HTML shows (mentions, emoji names, link targets), not the Markdown source.
        text.push(await htmlToText(body), '');
        html.push(`<div style="margin-left:1em">${body}</div>`);
      } else text.push('');
    }
    text.push(`View or reply in ${input.realmName}: ${c.link}`, `Reply to this conversation by email: ${c.replyTo}`, '');
    html.push(`<p><a href="${escapeHtml(c.link)}">View or reply in ${escapeHtml(input.realmName)}</a> · <a href="mailto:${escapeHtml(c.replyTo)}">reply by email</a></p>`);
  }
  if (convs.length > 1) text.push(`Replying to this email posts in: ${convs[convs.length - 1].title}`, '');
  text.push('--', `You are receiving this because you were away from ${input.realmName} (${input.realmUrl}).`);
  html.push('<hr>', `<p style="color:#777;font-size:small">You are receiving this because you were away from <a href="${escapeHtml(input.realmUrl)}">${escapeHtml(input.realmName)}</a>.`);
  for (const u of input.unsubscribe) {
    text.push(`${u.label}: ${u.url}`);
    html.push(` <a href="${escapeHtml(u.url)}">${escapeHtml(u.label)}</a>`);
  }
  html.push('</p></div>');
  const fromName = senders.length === 1 ? `${senders[0]} (${input.realmName})` : input.realmName;
  return { subject, text: text.join('\n') + '\n', html: html.join('\n'), fromName };
}
