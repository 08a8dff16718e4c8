// The weekly digest email of one user: the busiest conversations of their channels and the new channels.
import { escapeHtml } from './missed-message.js';

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

export function composeDigest(d: DigestInput): { subject: string; text: string; html: string } {
  const text: string[] = [`Here is what happened in ${d.realmName} while you were away.`, ''];
  const html: string[] = [`<div style="font-family:sans-serif"><p>Here is what happened in <a href="${escapeHtml(d.realmUrl)}">${escapeHtml(d.realmName)}</a> while you were away.</p>`];
  if (d.topics.length) {
    text.push('Hot conversations', '-----------------');
    html.push('<h3>Hot conversations</h3><ul>');
    for (const t of d.topics) {
      const who = t.senders.slice(0, 3).join(', ') + (t.senders.length > 3 ? ` and ${t.senders.length - 3} more` : '');
      text.push(`#${t.channel} > ${t.topic}: ${t.messages} message${t.messages === 1 ? '' : 's'} from ${who}`, `  ${t.link}`);
      html.push(`<li><a href="${escapeHtml(t.link)}">#${escapeHtml(t.channel)} &gt; ${escapeHtml(t.topic)}</a>: ${t.messages} message${t.messages === 1 ? '' : 's'} from ${escapeHtml(who)}</li>`);
    }
    text.push('');
    html.push('</ul>');
  }
  if (d.newChannels.length) {
    text.push('New channels', '------------');
    html.push('<h3>New channels</h3><ul>');
    for (const c of d.newChannels) {
      text.push(`#${c.name}${c.description ? `: ${c.description}` : ''}`, `  ${c.link}`);
      html.push(`<li><a href="${escapeHtml(c.link)}">#${escapeHtml(c.name)}</a>${c.description ? `: ${escapeHtml(c.description)}` : ''}</li>`);
    }
    text.push('');
    html.push('</ul>');
  }
  text.push('--', `Unsubscribe from digest emails: ${d.unsubscribeUrl}`);
  html.push(`<hr><p style="color:#777;font-size:small"><a href="${escapeHtml(d.unsubscribeUrl)}">Unsubscribe from digest emails</a></p></div>`);
  return { subject: `${d.realmName} digest`, text: text.join('\n') + '\n', html: html.join('\n') };
}
