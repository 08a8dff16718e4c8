// Group mentions (@*group*): the sender must be allowed to mention each group (its
// can_mention_group setting); then every member, through subgroups too, counts as mentioned.
import type { Tx } from '../../store/store.js';
import type { User } from '../../store/schema.js';
import type { RenderResult } from '../markdown/index.js';
import { badRequest } from '../../core/api-error.js';
import { groupMemberIds, isUserInGroup } from '../groups.js';

export async function withGroupMentions(tx: Tx, sender: User, r: RenderResult): Promise<RenderResult> {
  if (!r.mentionedGroupIds.length) return r;
  const groups = await tx.selectFrom('user_groups').select(['id', 'name', 'permissions']).where('id', 'in', r.mentionedGroupIds).where('realm_id', '=', sender.realm_id).execute();
  const users = new Set(r.mentionedUserIds);
  for (const g of groups) {
    const canMention = (JSON.parse(g.permissions) as Record<string, number>).can_mention_group;
    if (canMention !== undefined && !(await isUserInGroup(tx, sender, canMention))) {
      throw badRequest(`You are not allowed to mention user group '${g.name}'.`);
    }
    for (const id of await groupMemberIds(tx, g.id)) users.add(id);
  }
  return { ...r, mentionedUserIds: [...users].sort((a, b) => a - b) };
}
