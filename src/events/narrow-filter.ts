// Decides whether a message event matches a queue's narrow (register's `narrow` parameter).
import type { NarrowTerm } from '../models/narrow.js';
export type { NarrowTerm };

function matchesTerm(t: NarrowTerm, m: Record<string, unknown>, userId: number, flags: string[]): boolean {
  const operand = t.operand;
  switch (t.operator) {
    case 'stream':
    case 'channel':
      if (m.type !== 'stream') return false;
      return typeof operand === 'number' ? m.stream_id === operand : String(m.display_recipient).toLowerCase() === String(operand).toLowerCase();
    case 'topic':
    case 'subject':
      return m.type === 'stream' && String(m.subject).toLowerCase() === String(operand).toLowerCase();
    case 'sender':
      return typeof operand === 'number' ? m.sender_id === operand : String(m.sender_email).toLowerCase() === String(operand).toLowerCase();
    case 'is':
      switch (operand) {
        case 'dm':
        case 'private':
          return m.type === 'private';
        case 'starred':
          return flags.includes('starred');
        case 'mentioned':
          return flags.includes('mentioned') || flags.includes('wildcard_mentioned');
        case 'unread':
          return !flags.includes('read');
        case 'alerted':
          return flags.includes('has_alert_word');
        default:
          return true;
      }
    case 'dm':
    case 'pm-with': {
      if (m.type !== 'private') return false;
      const ids = (m.display_recipient as { id: number; email: string }[]).map((r) => r.id).sort((a, b) => a - b);
      const want = Array.isArray(operand) ? [...operand] : typeof operand === 'number' ? [operand] : null;
      if (!want) {
        const emails = new Set((m.display_recipient as { email: string }[]).map((r) => r.email.toLowerCase()));
        return String(operand).split(',').every((e) => emails.has(e.trim().toLowerCase()));
      }
      const target = [...new Set([...want, userId])].sort((a, b) => a - b);
      return target.length === ids.length && target.every((v, i) => v === ids[i]);
    }
    case 'search':
      return String(m.content).toLowerCase().includes(String(operand).toLowerCase());
    default:
      return true;
  }
}

export function narrowAcceptsMessage(narrow: NarrowTerm[], m: Record<string, unknown>, userId: number, flags: string[]): boolean {
  return narrow.every((t) => matchesTerm(t, m, userId, flags) !== t.negated);
}
