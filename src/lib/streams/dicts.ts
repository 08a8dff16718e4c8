// Builds API channel objects for many channels at once (group-setting values and counts in bulk).
import type { Tx } from '../../store/store.js';
import type { Stream } from '../../store/schema.js';
import { groupSettingValues } from '../groups.js';
import { presentStream } from '../../presenters/stream.js';
import { streamPermissionIds } from './permissions.js';
import { subscriberCounts } from './subscribers.js';

/** Channel ID → API channel object (BasicChannel), with the current subscriber counts. */
export async function streamDicts(tx: Tx, streams: Stream[]): Promise<Map<number, Record<string, unknown>>> {
  const out = new Map<number, Record<string, unknown>>();
  if (!streams.length) return out;
  const perms = new Map<number, Record<string, number>>();
  for (const s of streams) perms.set(s.id, await streamPermissionIds(tx, s));
  const groupIds = [...new Set([...perms.values()].flatMap((p) => Object.values(p)))];
  const [values, names, counts] = await Promise.all([
    groupSettingValues(tx, groupIds),
    tx.selectFrom('user_groups').select(['id', 'name']).where('id', 'in', groupIds).execute(),
    subscriberCounts(tx, streams),
  ]);
  const groupNames = new Map(names.map((g) => [g.id, g.name]));
  for (const s of streams) {
    out.set(s.id, presentStream(s, { permissions: perms.get(s.id)!, groupValues: values, groupNames, subscriberCount: counts.get(s.id) ?? 0 }));
  }
  return out;
}
