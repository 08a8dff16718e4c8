// DELETE /messages/{id}/history: drops the earlier versions of a message's content from its edit history,
// keeping its moves and a record of who deleted them (history_deleted_by).
import type { AppContext } from '../context.js';
import type { Realm, User } from '../store/schema.js';
import { badRequest } from '../core/api-error.js';
import { accessMessage } from '../lib/messages/access.js';
import { checkCanDelete } from '../lib/messages/edit-rules.js';
import { withoutContentEdits } from '../lib/messages/history.js';

/**
 * Whoever may delete the message may delete its history (the reference's rule), with the same checks and
 * errors. A message with no earlier content is "Invalid message(s)", as in the reference. No event: register
 * carries no messages, and clients read the history again from GET /messages/{id}/history.
 */
export async function doDeleteMessageHistory(app: AppContext, realm: Realm, user: User, messageId: number): Promise<void> {
  const now = app.clock.now();
  await app.store.write(async (tx) => {
    const { message, stream } = await accessMessage(tx, user, messageId);
    await checkCanDelete(tx, realm, user, message, stream, now);
    const entries = message.edit_history ? (JSON.parse(message.edit_history) as Record<string, unknown>[]) : [];
    const kept = withoutContentEdits(entries);
    if (kept === null) throw badRequest('Invalid message(s)');
    await tx.updateTable('messages').set({ edit_history: kept.length ? JSON.stringify(kept) : null }).where('id', '=', message.id).execute();
    await tx.deleteFrom('message_history_deletions').where('message_id', '=', message.id).execute();
    await tx.insertInto('message_history_deletions').values({ message_id: message.id, deleted_by: user.id, deleted_at: now }).execute();
  });
}
