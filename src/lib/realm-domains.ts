// Allowed email domains of an organization: validation with the original's texts, and the list.
import type { Tx } from '../store/store.js';
import { badRequest } from '../core/api-error.js';

/** The domain, trimmed and lower-cased; anything else than a plain DNS name is "Invalid domain: …". */
export function checkDomain(raw: string): string {
  const domain = raw.trim().toLowerCase();
  const fail = (why: string) => badRequest(`Invalid domain: ${why}`);
  if (!domain) throw fail("Domain can't be empty.");
  if (!domain.includes('.')) throw fail('Domain must have at least one dot (.)');
  if (domain.length > 255) throw fail('Domain is too long');
  if (domain.startsWith('.') || domain.endsWith('.')) throw fail('Domain cannot start or end with a dot (.)');
  for (const part of domain.split('.')) {
    if (!part) throw fail("Consecutive '.' are not allowed.");
    if (part.startsWith('-') || part.endsWith('-')) throw fail("Subdomains cannot start or end with a '-'.");
    if (!/^[a-z0-9-]*$/.test(part)) throw fail("Domain can only have letters, numbers, '.' and '-'s.");
  }
  return domain;
}

export const noSuchDomain = (domain: string) => badRequest(`No entry found for domain ${domain}.`);

export async function realmDomainList(tx: Tx, realmId: number): Promise<{ domain: string; allow_subdomains: boolean }[]> {
  const rows = await tx.selectFrom('realm_domains').select(['domain', 'allow_subdomains']).where('realm_id', '=', realmId).orderBy('domain').execute();
  return rows.map((r) => ({ domain: r.domain, allow_subdomains: r.allow_subdomains === 1 }));
}
