// Reusable invitation links (create, sign up through one, revoke), resending an email invitation,
// and invites_changed to administrators and the inviter.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mailedKey } from './helpers/outbox.js';
import { startTestServer, request, Client, type TestServer } from './helpers/server.js';
import { newChannel, queueFor } from './helpers/messages.js';

let s: TestServer;
let mia: Client;
let ada: Client;
before(async () => {
  s = await startTestServer();
  mia = await s.user('Mia Member');
  ada = await s.user('Ada Admin', 200);
});
after(async () => {
  await s.close();
});

const anon = (method: string, p: string, params: Record<string, unknown>) => request(s.url, method, p, params as never);
const keyOf = (link: string) => new URL(link).searchParams.get('key')!;

test('a reusable link: administrators create it, several people sign up through it, then it is revoked', async () => {
  const qa = await queueFor(ada, { event_types: ['invites_changed'] });
  const qm = await queueFor(mia, { event_types: ['invites_changed'] });
  // Members may not create links by default (create_multiuse_invite_group: administrators).
  let r = await mia.post('invites/multiuse', {});
  assert.deepEqual([r.status, r.body.msg], [400, 'Insufficient permission']);
  r = await ada.post('invites/multiuse', { invite_as: 100 });
  assert.deepEqual([r.status, r.body.msg], [400, 'Insufficient permission'], 'not a role above one’s own');
  r = await ada.post('invites/multiuse', { invite_as: 123 });
  assert.equal(r.status, 400);
  r = await ada.post('invites/multiuse', { stream_ids: [999999] });
  assert.deepEqual([r.status, r.body.msg], [400, 'Invalid channel ID 999999. No invites were sent.']);
  r = await ada.post('invites/multiuse', { invite_expires_in_minutes: 0 });
  assert.equal(r.status, 400);

  const ch = await newChannel(s, 'newcomers', { subscribers: [ada] });
  const { invite_link } = await ada.ok('POST', 'invites/multiuse', { stream_ids: [ch.id], invite_as: 400, invite_expires_in_minutes: 60 });
  assert.match(invite_link, /\/api\/v1\/invites\/multiuse\/accept\?key=/);
  assert.deepEqual((await qa.events()).map((e) => e.type), ['invites_changed']);
  assert.deepEqual(await qm.events(), [], 'members do not manage the link');
  const key = keyOf(invite_link);
  const shown = await anon('GET', 'invites/multiuse/accept', { key });
  assert.deepEqual([shown.status, shown.body.invited_as], [200, 400]);

  for (const [email, name] of [['one@example.com', 'First Joiner'], ['two@example.com', 'Second Joiner']]) {
    const j = await anon('POST', 'invites/multiuse/accept', { key, email, full_name: name, password: 'a-good-password' });
    assert.equal(j.status, 200, JSON.stringify(j.body));
    const subs = await s.running.app.store.db.selectFrom('subscriptions').select('stream_id').where('user_id', '=', j.body.user_id).execute();
    assert.ok(subs.some((x) => x.stream_id === ch.id), 'subscribed to the link’s channels');
  }
  r = await anon('POST', 'invites/multiuse/accept', { key, email: 'one@example.com', full_name: 'Again', password: 'a-good-password' });
  assert.deepEqual([r.status, r.body.msg], [400, 'Already has an account.']);
  r = await anon('POST', 'invites/multiuse/accept', { key, email: 'not-an-address', full_name: 'X', password: 'a-good-password' });
  assert.equal(r.status, 400);
  r = await anon('POST', 'invites/multiuse/accept', { key: 'wrong', email: 'three@example.com', full_name: 'X', password: 'a-good-password' });
  assert.deepEqual([r.status, r.body.msg], [400, 'Invalid invitation link']);

  const id = (await s.running.app.store.db.selectFrom('multiuse_invites').select('id').where('link_key', '=', key).executeTakeFirstOrThrow()).id;
  r = await mia.delete(`invites/multiuse/${id}`);
  assert.deepEqual([r.status, r.body.msg], [400, 'Must be an organization administrator']);
  await ada.ok('DELETE', `invites/multiuse/${id}`);
  assert.deepEqual((await qa.events()).map((e) => e.type), ['invites_changed']);
  r = await ada.delete(`invites/multiuse/${id}`);
  assert.deepEqual([r.status, r.body.msg], [400, 'No such invitation']);
  r = await anon('POST', 'invites/multiuse/accept', { key, email: 'three@example.com', full_name: 'Late', password: 'a-good-password' });
  assert.deepEqual([r.status, r.body.msg], [400, 'This invitation has been revoked']);
});

test('resend: a fresh link mailed again; the old one stops working; only the inviter or administrators', async () => {
  await mia.ok('POST', 'invites', { invitee_emails: 'resent@example.com', stream_ids: [] });
  const link = /\/api\/v1\/invites\/accept\?key=([A-Za-z0-9_-]+)/;
  const first = mailedKey(s, 'resent@example.com', link);
  const id = (await mia.ok('GET', 'invites')).invites.find((i: any) => i.email === 'resent@example.com').id;
  const other = await s.user('Oz Other');
  let r = await other.post(`invites/${id}/resend`);
  assert.deepEqual([r.status, r.body.msg], [400, 'Must be an organization administrator']);
  r = await mia.post('invites/999999/resend');
  assert.deepEqual([r.status, r.body.msg], [400, 'No such invitation']);
  const qa = await queueFor(ada, { event_types: ['invites_changed'] });
  await mia.ok('POST', `invites/${id}/resend`);
  assert.deepEqual((await qa.events()).map((e) => e.type), ['invites_changed']);
  const second = mailedKey(s, 'resent@example.com', link);
  assert.notEqual(second, first);
  r = await anon('POST', 'invites/accept', { key: first, full_name: 'Re Sent', password: 'a-good-password' });
  assert.equal(r.status, 400);
  r = await anon('POST', 'invites/accept', { key: second, full_name: 'Re Sent', password: 'a-good-password' });
  assert.equal(r.status, 200);
});

test('GET /invites lists reusable links with their URL; revoking either kind removes it from the list', async () => {
  const ned = await s.user('Ned Linker');
  // Let members create links, so a non-administrator's own link can be checked.
  const members = (await s.owner.ok('GET', 'user_groups')).user_groups.find((g: any) => g.name === 'role:members').id;
  await s.owner.ok('PATCH', 'realm', { create_multiuse_invite_group: JSON.stringify({ new: members }) });
  const { invite_link: adaLink } = await ada.ok('POST', 'invites/multiuse', { invite_as: 400, invite_expires_in_minutes: 60 });
  const { invite_link: nedLink } = await ned.ok('POST', 'invites/multiuse', { invite_as: 600, invite_expires_in_minutes: null });
  await ned.ok('POST', 'invites', { invitee_emails: 'ned.mail@example.com', stream_ids: [] });

  const nedList = (await ned.ok('GET', 'invites')).invites as any[];
  assert.deepEqual(nedList.map((i) => [i.is_multiuse, i.email ?? i.link_url]), [[false, 'ned.mail@example.com'], [true, nedLink]]);
  const nedLinkInvite = nedList.find((i) => i.is_multiuse);
  assert.deepEqual(Object.keys(nedLinkInvite).sort(), ['expiry_date', 'id', 'invited', 'invited_as', 'invited_by_user_id', 'is_multiuse', 'link_url']);
  assert.deepEqual([nedLinkInvite.invited_by_user_id, nedLinkInvite.invited_as, nedLinkInvite.expiry_date], [ned.userId, 600, null]);
  const adaList = (await ada.ok('GET', 'invites')).invites as any[];
  const adaLinkInvite = adaList.find((i) => i.link_url === adaLink);
  assert.ok(adaLinkInvite.expiry_date - adaLinkInvite.invited <= 3600 && adaLinkInvite.expiry_date > adaLinkInvite.invited);
  assert.ok(adaList.some((i) => i.link_url === nedLink), 'administrators see every link');
  assert.equal((await mia.ok('GET', 'invites')).invites.some((i: any) => i.is_multiuse), false, 'members see only their own');

  // Revoking each kind through its own route; the list then leaves it out.
  const mail = nedList.find((i) => !i.is_multiuse);
  await ned.ok('DELETE', `invites/${mail.id}`);
  await ned.ok('DELETE', `invites/multiuse/${nedLinkInvite.id}`);
  assert.deepEqual((await ned.ok('GET', 'invites')).invites, []);
  await ada.ok('DELETE', `invites/multiuse/${adaLinkInvite.id}`);
  assert.equal((await ada.ok('GET', 'invites')).invites.some((i: any) => i.is_multiuse), false);
  const admins = (await s.owner.ok('GET', 'user_groups')).user_groups.find((g: any) => g.name === 'role:administrators').id;
  await s.owner.ok('PATCH', 'realm', { create_multiuse_invite_group: JSON.stringify({ new: admins }) });
});
