// Register's server-level fields: presence timing (what the presence code uses), report types, and the features Parley does not offer.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './helpers/server.js';
import { OFFLINE_THRESHOLD_SECS } from '../src/lib/presence.js';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(async () => {
  await s.close();
});

test('register carries the server fields with their types; only with realm in fetch_event_types', async () => {
  const r = await s.owner.ok('POST', 'register', {});
  assert.equal(r.server_presence_ping_interval_seconds, 60);
  assert.equal(r.server_presence_offline_threshold_seconds, OFFLINE_THRESHOLD_SECS);
  assert.ok(r.server_presence_offline_threshold_seconds > r.server_presence_ping_interval_seconds);
  assert.deepEqual(r.server_report_message_types.map((t: any) => t.key), ['spam', 'harassment', 'inappropriate', 'norms', 'other']);
  assert.ok(r.server_report_message_types.every((t: any) => typeof t.name === 'string' && t.name));
  assert.equal(typeof r.server_generation, 'number');
  assert.deepEqual(
    [r.development_environment, r.server_thumbnail_formats, r.server_inline_image_preview, r.server_inline_url_embed_preview, r.server_can_summarize_topics],
    [false, [], true, false, false],
  );
  assert.deepEqual([r.server_min_deactivated_realm_deletion_days, r.server_max_deactivated_realm_deletion_days, r.realm_push_notifications_enabled_end_timestamp], [null, null, null]);
  const narrow = await s.owner.ok('POST', 'register', { fetch_event_types: ['message'] });
  assert.equal('server_presence_ping_interval_seconds' in narrow, false);
  // A bad fetch_event_types is still refused as before.
  const bad = await s.owner.post('register', { fetch_event_types: 'nope' });
  assert.equal(bad.status, 400);
});
