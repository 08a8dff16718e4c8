// Which of some messages match a narrow (GET /messages/matches_narrow), with the fields a search result carries.
import type { Realm, User } from '../../store/schema.js';
import type { Tx } from '../../store/store.js';
import type { Dialect } from '../../store/dialect.js';
import type { NarrowTerm } from '../../models/narrow.js';
import { escapeHtml } from '../markdown/code.js';
import { fetchListed } from './fetch.js';
import { planNarrow } from './narrow.js';

export async function matchesNarrow(tx: Tx, dialect: Dialect, realm: Realm, user: User, terms: NarrowTerm[], ids: number[]): Promise<Record<string, { match_content: string; match_subject: string }>> {
  const plan = await planNarrow(tx, dialect, realm, user, terms);
  const matched = await fetchListed(tx, plan, ids);
  const out: Record<string, { match_content: string; match_subject: string }> = {};
  if (!matched.length) return out;
  const rows = await tx.selectFrom('messages').select(['id', 'rendered_content', 'topic']).where('id', 'in', matched).execute();
  for (const r of rows) {
    // Parley's search marks no matches: the fields are the message's own HTML and its escaped topic.
    out[String(r.id)] = { match_content: r.rendered_content, match_subject: escapeHtml(r.topic) };
  }
  return out;
}
