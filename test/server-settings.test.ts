// GET /server_settings: every field of the spec's table, unauthenticated, with the original's names too.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request, startTestServer, type TestServer } from './helpers/server.js';
import { FEATURE_LEVEL, SERVICE_VERSION } from '../src/models/limits.js';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(async () => {
  await s.close();
});

test('every field, without authentication', async () => {
  const r = await request(s.url, 'GET', 'server_settings');
  assert.equal(r.status, 200);
  const b = r.body;
  assert.equal(b.result, 'success');
  assert.equal(b.service_feature_level, FEATURE_LEVEL);
  assert.equal(b.zulip_feature_level, FEATURE_LEVEL);
  assert.equal(b.service_version, SERVICE_VERSION);
  assert.equal(b.zulip_version, b.service_version);
  assert.equal(typeof b.service_merge_base, 'string');
  assert.equal(b.zulip_merge_base, b.service_merge_base);
  assert.equal(b.authentication_methods.password, true);
  assert.equal(b.authentication_methods.email, true);
  for (const k of ['dev', 'ldap', 'remoteuser', 'saml', 'openid connect', 'github', 'azuread', 'gitlab', 'apple', 'google', 'discord', 'provider_a', 'provider_b', 'provider_c', 'provider_d', 'provider_e', 'provider_f']) {
    assert.equal(b.authentication_methods[k], false, k);
  }
  assert.deepEqual(b.external_authentication_methods, []);
  assert.equal(b.push_notifications_enabled, false);
  assert.equal(b.is_incompatible, false);
  assert.equal(b.email_auth_enabled, true);
  assert.equal(b.require_email_format_usernames, true);
  assert.equal(b.realm_url, 'http://localhost');
  assert.equal(b.realm_uri, b.realm_url);
  assert.equal(b.realm_name, 'Test Org');
  assert.match(b.realm_icon, /^https:\/\//);
  assert.equal(typeof b.realm_description, 'string');
  assert.equal(b.realm_web_public_access_enabled, false);
});

test('another organization by host; credentials are not needed but allowed', async () => {
  const other = await s.realm2('infoorg');
  const r = await request(s.url, 'GET', 'server_settings', {}, { host: other.host });
  assert.equal(r.body.realm_name, 'Org infoorg');
  assert.equal(r.body.realm_url, 'http://infoorg.localhost');
  const authed = await s.owner.get('server_settings');
  assert.equal(authed.status, 200);
});
