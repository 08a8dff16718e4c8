// Organization administration: allowed email domains and code playgrounds — success, refusals, bad input.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';

let s: TestServer;
let admin: Client;
let ann: Client;
before(async () => {
  s = await startTestServer();
  admin = await s.user('Ada Realm', 200);
  ann = await s.user('Ann Realm');
});
after(async () => {
  await s.close();
});

test('realm domains: owners add, change and remove; everyone reads', async () => {
  const r = await s.owner.ok('POST', 'realm/domains', { domain: ' Example.COM ', allow_subdomains: false });
  assert.equal(r.new_domain[1], 'example.com');
  assert.equal(typeof r.new_domain[0], 'number');
  assert.deepEqual((await ann.ok('GET', 'realm/domains')).domains, [{ domain: 'example.com', allow_subdomains: false }]);
  await s.owner.ok('PATCH', 'realm/domains/example.com', { allow_subdomains: true });
  assert.deepEqual((await ann.ok('GET', 'realm/domains')).domains, [{ domain: 'example.com', allow_subdomains: true }]);
  const reg = await ann.ok('POST', 'register', { fetch_event_types: ['realm_domains'] });
  assert.deepEqual(reg.realm_domains, [{ domain: 'example.com', allow_subdomains: true }]);

  assert.equal((await admin.post('realm/domains', { domain: 'other.org', allow_subdomains: false })).body.msg, 'Must be an organization owner');
  assert.equal((await s.owner.post('realm/domains', { domain: 'example.com', allow_subdomains: false })).body.msg, 'The domain example.com is already a part of your organization.');
  assert.equal((await s.owner.post('realm/domains', { domain: 'nodot', allow_subdomains: false })).body.msg, 'Invalid domain: Domain must have at least one dot (.)');
  assert.equal((await s.owner.post('realm/domains', { domain: 'a..b', allow_subdomains: false })).body.msg, "Invalid domain: Consecutive '.' are not allowed.");
  assert.equal((await s.owner.post('realm/domains', { domain: 'bad_char.org', allow_subdomains: false })).body.msg, "Invalid domain: Domain can only have letters, numbers, '.' and '-'s.");
  assert.equal((await s.owner.post('realm/domains', { domain: 'x.org' })).body.code, 'REQUEST_VARIABLE_MISSING');
  assert.equal((await s.owner.post('realm/domains', { domain: 'x.org', allow_subdomains: 'maybe' })).status, 400);
  assert.equal((await s.owner.patch('realm/domains/none.org', { allow_subdomains: true })).body.msg, 'No entry found for domain none.org.');
  assert.equal((await ann.delete('realm/domains/example.com')).body.msg, 'Must be an organization owner');
  await s.owner.ok('DELETE', 'realm/domains/example.com');
  assert.deepEqual((await ann.ok('GET', 'realm/domains')).domains, []);
  assert.equal((await s.owner.delete('realm/domains/example.com')).body.msg, 'No entry found for domain example.com.');
});

test('code playgrounds: administrators add and remove; bad templates and duplicates refused', async () => {
  const { id } = await admin.ok('POST', 'realm/playgrounds', { name: 'Python playground', pygments_language: 'Python', url_template: 'https://python.example.com/?code={code}' });
  const reg = await ann.ok('POST', 'register', { fetch_event_types: ['realm_playgrounds'] });
  assert.deepEqual(reg.realm_playgrounds, [{ id, name: 'Python playground', pygments_language: 'Python', url_template: 'https://python.example.com/?code={code}' }]);
  assert.equal((await ann.post('realm/playgrounds', { name: 'Mine', pygments_language: 'Rust', url_template: 'https://r.example/{code}' })).body.msg, 'Must be an organization administrator');
  assert.equal((await admin.post('realm/playgrounds', { name: 'Python playground', pygments_language: 'Python', url_template: 'https://p2.example/{code}' })).body.msg, 'Realm playground with this Realm, Pygments language and Name already exists.');
  for (const url_template of ['https://x.example/', 'https://x.example/{code}/{other}', 'ftp://x.example/{code}', 'not a url {code}', 'https://x.example/{code']) {
    assert.equal((await admin.post('realm/playgrounds', { name: 'Bad', pygments_language: 'C', url_template })).body.msg, 'Invalid URL template.', url_template);
  }
  assert.equal((await admin.post('realm/playgrounds', { name: 'Bad', pygments_language: 'C<script>', url_template: 'https://x.example/{code}' })).body.msg, 'Invalid characters in pygments language');
  assert.equal((await admin.post('realm/playgrounds', { name: ' ', pygments_language: 'C', url_template: 'https://x.example/{code}' })).body.msg, 'Name cannot be blank.');
  assert.equal((await ann.delete(`realm/playgrounds/${id}`)).body.msg, 'Must be an organization administrator');
  await admin.ok('DELETE', `realm/playgrounds/${id}`);
  assert.equal((await admin.delete(`realm/playgrounds/${id}`)).body.msg, 'Invalid playground');
  const other = await s.realm2('elsewhere');
  const theirs = await other.owner.ok('POST', 'realm/playgrounds', { name: 'Go', pygments_language: 'Go', url_template: 'https://go.example/{code}' });
  assert.equal((await admin.delete(`realm/playgrounds/${theirs.id}`)).body.msg, 'Invalid playground', "another organization's playground is not found");
});

test('PATCH /realm/user_settings_defaults: administrators change what new users start with', async () => {
  await admin.ok('PATCH', 'realm/user_settings_defaults', { left_side_userlist: true, web_font_size_px: 18, default_language: 'de', email_address_visibility: 3 });
  const reg = await ann.ok('POST', 'register', { fetch_event_types: ['realm_user_settings_defaults'] });
  const d = reg.realm_user_settings_defaults;
  assert.equal(d.left_side_userlist, true);
  assert.equal(d.web_font_size_px, 18);
  assert.equal(d.default_language, 'de');
  assert.equal(d.email_address_visibility, 3);
  assert.ok(Array.isArray(d.emojiset_choices) && Array.isArray(d.available_notification_sounds));
  assert.equal('timezone' in d, false);
  // A new user starts with them; existing users keep theirs.
  const cleo = await s.user('Cleo New');
  const cleoSettings = (await cleo.ok('POST', 'register', { fetch_event_types: ['user_settings'] })).user_settings;
  assert.equal(cleoSettings.left_side_userlist, true);
  assert.equal(cleoSettings.default_language, 'de');
  assert.equal(cleoSettings.email_address_visibility, 3);
  assert.notEqual(cleo.email, 'cleo.new@example.com', 'hidden address: the API email is the dummy one');
  const annSettings = (await ann.ok('POST', 'register', { fetch_event_types: ['user_settings'] })).user_settings;
  assert.equal(annSettings.left_side_userlist, false);

  assert.equal((await ann.patch('realm/user_settings_defaults', { left_side_userlist: false })).body.msg, 'Must be an organization administrator');
  assert.equal((await admin.patch('realm/user_settings_defaults', {})).body.msg, 'No new data supplied');
  assert.equal((await admin.patch('realm/user_settings_defaults', { web_font_size_px: 'big' })).status, 400);
  assert.equal((await admin.patch('realm/user_settings_defaults', { notification_sound: 'klaxon' })).body.msg, "Invalid notification sound 'klaxon'");
  assert.equal((await admin.patch('realm/user_settings_defaults', { color_scheme: 9 })).status, 400);
  await admin.ok('PATCH', 'realm/user_settings_defaults', { left_side_userlist: false });
  const again = await ann.ok('POST', 'register', { fetch_event_types: ['realm_user_settings_defaults'] });
  assert.equal(again.realm_user_settings_defaults.left_side_userlist, false);
});

test('POST /realm/test_welcome_bot_custom_message: the Welcome Bot sends the text to the administrator', async () => {
  const { message_id } = await admin.ok('POST', 'realm/test_welcome_bot_custom_message', { welcome_message_custom_text: 'Welcome to **our** team!' });
  const { message } = await admin.ok('GET', `messages/${message_id}`);
  assert.equal(message.sender_full_name, 'Welcome Bot');
  assert.match(message.content, /<strong>our<\/strong>/);
  assert.deepEqual((message.display_recipient as any[]).map((r) => r.id).sort(), [admin.userId, message.sender_id].sort());
  assert.equal((await ann.post('realm/test_welcome_bot_custom_message', { welcome_message_custom_text: 'hi' })).body.msg, 'Must be an organization administrator');
  assert.equal((await admin.post('realm/test_welcome_bot_custom_message', { welcome_message_custom_text: 'x'.repeat(8001) })).status, 400);
  assert.equal((await admin.post('realm/test_welcome_bot_custom_message', {})).body.code, 'REQUEST_VARIABLE_MISSING');
  assert.equal((await admin.post('realm/test_welcome_bot_custom_message', { welcome_message_custom_text: '  ' })).status, 400);
});
