// Small in-process caches of rarely-changing rows; writers invalidate them after commit.
import type { Realm } from '../store/schema.js';
import type { Store } from '../store/store.js';

export class Caches {
  private readonly realms = new Map<string, Realm>();

  constructor(private readonly store: Store) {}

  async realmBySubdomain(subdomain: string): Promise<Realm | undefined> {
    const hit = this.realms.get(subdomain);
    if (hit) return hit;
    const row = await this.store.db.selectFrom('realms').selectAll().where('string_id', '=', subdomain).executeTakeFirst();
    if (row) this.realms.set(subdomain, row);
    return row;
  }

  invalidateRealms(): void {
    this.realms.clear();
  }
}
