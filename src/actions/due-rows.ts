// Rows due at a time (reminders, scheduled messages), claimed once across nodes and handed to a delivery function.
import type { AppContext } from '../context.js';

/** How long a worker owns a claimed row before another may retry it (seconds). */
export const CLAIM_SECS = 60;

/** Tables of rows that are due at `scheduled_at`, with `failed` and `claimed_until` columns. */
export type DueTable = 'reminders' | 'scheduled_messages';

/**
 * Claims up to `limit` due rows of the table (a short conditional UPDATE each, so concurrent
 * workers split them) and delivers each claimed one. The claim only spares duplicate work: each
 * delivery must itself make sending happen once (its sending transaction deletes the row).
 * Returns how many deliveries reported a send.
 */
export async function deliverDueRows(app: AppContext, table: DueTable, deliver: (id: number) => Promise<boolean>, limit = 50): Promise<number> {
  const now = app.clock.now();
  const due = await app.store.db
    .selectFrom(table)
    .select('id')
    .where('failed', '=', 0)
    .where('scheduled_at', '<=', now)
    .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]))
    .orderBy('scheduled_at')
    .limit(limit)
    .execute();
  let sent = 0;
  for (const { id } of due) {
    const { result: claimed } = await app.store.write(async (tx) => {
      const r = await tx
        .updateTable(table)
        .set({ claimed_until: now + CLAIM_SECS })
        .where('id', '=', id)
        .where('failed', '=', 0)
        // Moved later since it was read (an edited scheduled message): not due any more.
        .where('scheduled_at', '<=', now)
        .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]))
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    });
    if (claimed && (await deliver(id))) sent++;
  }
  return sent;
}
