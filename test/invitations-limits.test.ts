// Server settings of invitations: the per-organization daily limit and the default link validity.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './helpers/server.js';

const clock = { t: Math.floor(Date.now() / 1000), now() { return this.t; } };
let s: TestServer;

before(async () => {
  s = await startTestServer({ clock, env: { PARLEY_INVITATIONS_PER_DAY: '3', PARLEY_INVITATION_LINK_VALIDITY_MINUTES: '60' } });
});
after(async () => {
  await s.close();
});

test('the configured validity is the default expiry', async () => {
  await s.owner.ok('POST', 'invites', { invitee_emails: 'a@example.com', stream_ids: [] });
  const [inv] = (await s.owner.ok('GET', 'invites')).invites;
  assert.equal(inv.expiry_date, clock.t + 3600);
});

test('daily_limit_reached: nothing is sent past the organization limit; the next day it works again', async () => {
  const r = await s.owner.post('invites', { invitee_emails: 'b@example.com, c@example.com, d@example.com', stream_ids: [] });
  assert.equal(r.status, 400);
  assert.equal(r.body.code, 'INVITATION_FAILED');
  assert.equal(r.body.daily_limit_reached, true);
  assert.equal(r.body.sent_invitations, false);
  assert.equal(r.body.license_limit_reached, false);
  assert.deepEqual(r.body.errors, []);
  assert.equal((await s.owner.ok('GET', 'invites')).invites.length, 1);
  await s.owner.ok('POST', 'invites', { invitee_emails: 'b@example.com, c@example.com', stream_ids: [] });
  clock.t += 86401;
  await s.owner.ok('POST', 'invites', { invitee_emails: 'e@example.com, f@example.com', stream_ids: [] });
});
