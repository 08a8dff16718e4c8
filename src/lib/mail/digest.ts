// The weekly digest email of one user: the busiest conversations of their channels and the new channels.
import { escapeHtml } from './missed-message.js';
import { htmlToText } from './html-text.js';

export interface DigestTopic {
  channel: string;
  topic: string;
  messages: number;
  senders: string[];
  link: string;
}

export interface DigestInput {
  realmName: string;
  realmUrl: string;
  topics: DigestTopic[];
  newChannels: { name: string; description: string; link: string }[];
  unsubscribeUrl: string;
}

/** The digest's HTML; its plain-text part is read from that HTML (html-text.ts), so the two always say the same. */
export async function composeDigest(d: DigestInput): Promise<{ subject: string; text: string; html: string }> {
  const html: string[] = [`<div style="font-family:sans-serif"><p>Here is what happened in <a href="${escapeHtml(d.realmUrl)}">${escapeHtml(d.realmName)}</a> while you were away.</p>`];
  if (d.topics.length) {
    html.push('<h3>Hot conversations</h3><ul>');
    for (const t of d.topics) {
      const who = t.senders.slice(0, 3).join(', ') + (t.senders.length > 3 ? ` and ${t.senders.length - 3} more` : '');
      html.push(`<li><a href="${escapeHtml(t.link)}">#${escapeHtml(t.channel)} &gt; ${escapeHtml(t.topic)}</a>: ${t.messages} message${t.messages === 1 ? '' : 's'} from ${escapeHtml(who)}</li>`);
    }
    html.push('</ul>');
  }
  if (d.newChannels.length) {
    html.push('<h3>New channels</h3><ul>');
    for (const c of d.newChannels) {
      html.push(`<li><a href="${escapeHtml(c.link)}">#${escapeHtml(c.name)}</a>${c.description ? `: ${escapeHtml(c.description)}` : ''}</li>`);
    }
    html.push('</ul>');
  }
  html.push(`<hr><p style="color:#777;font-size:small"><a href="${escapeHtml(d.unsubscribeUrl)}">Unsubscribe from digest emails</a></p></div>`);
  const body = html.join('\n');
  return { subject: `${d.realmName} digest`, text: (await htmlToText(body)) + '\n', html: body };
}
