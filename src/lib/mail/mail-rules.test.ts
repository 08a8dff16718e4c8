// Pure rules of email both ways: gateway addresses, reply bodies, and who is a candidate for a missed-message email.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseGatewayAddress } from './gateway-address.js';
import { inboundMarkdown, stripQuotedReply } from './inbound-body.js';
import { emailCandidates } from './pending.js';
import { mailSafeHtml } from './missed-message.js';
import { FLAG_BITS } from '../../models/flags.js';

const T = 'a'.repeat(32);

test('gateway addresses: channel (<slug>.<token>), reply (mm<token>), anything else none', () => {
  assert.deepEqual(parseGatewayAddress(`design-team.${T}@Chat.Example.com`), { kind: 'channel', token: T, domain: 'chat.example.com' });
  assert.deepEqual(parseGatewayAddress(`design.${T}+tag@x.org`), { kind: 'channel', token: T, domain: 'x.org' });
  assert.deepEqual(parseGatewayAddress(`mm${T}@x.org`), { kind: 'reply', token: T, domain: 'x.org' });
  for (const bad of [`${T}@x.org`, 'postmaster@x.org', `room.${T.slice(1)}@x.org`, 'no-at-sign', `@x.org`]) assert.equal(parseGatewayAddress(bad), null, bad);
});

test('replies lose the quoted message and the signature; long bodies are cut', () => {
  assert.equal(stripQuotedReply('Sounds good.\n\nOn Tue, 14 Nov 2023 at 10:00, Ann <a@x> wrote:\n> earlier\n> text'), 'Sounds good.');
  assert.equal(stripQuotedReply('Yes.\n-- \nBen, Head of Things'), 'Yes.');
  assert.equal(stripQuotedReply('Inline:\n> q\nanswer'), 'Inline:\n> q\nanswer');
  assert.equal(inboundMarkdown({ text: '', html: '<p>Hi <em>there</em></p><img src="cid:logo">' }, false), 'Hi _there_');
  const long = inboundMarkdown({ text: 'x'.repeat(20_000) }, false);
  assert.ok(long.length <= 10_000 && long.endsWith('[message truncated]'));
});

test('candidates: DM recipients, mentions (strongest reason kept), watchers who got the message; never the sender', () => {
  const watchers = { channels: new Map([[5, [3, 4, 9]]]), followed: new Map([['5\nplans', [2, 3]]]) };
  const bits = new Map([
    [1, FLAG_BITS.read],
    [2, FLAG_BITS.mentioned],
    [3, FLAG_BITS.stream_wildcard_mentioned],
    [4, 0],
  ]);
  const got = emailCandidates(watchers, { realmId: 1, id: 10, senderId: 1, streamId: 5, topicKey: 'plans', bits, mayMention: true });
  assert.deepEqual([...got].sort(), [
    [2, 'mentioned'],
    [3, 'wildcard_mentioned'],
    [4, 'stream_email'],
  ]);
  const dm = emailCandidates(watchers, { realmId: 1, id: 11, senderId: 1, streamId: null, topicKey: '', bits: new Map([[1, 0], [7, 0]]), mayMention: false });
  assert.deepEqual([...dm], [[7, 'private']]);
});

test('HTML for mail readers: absolute links, images by name inside their links', () => {
  assert.equal(mailSafeHtml('<a href="/user_uploads/1/a.png"><img src="/thumb/a.png"></a> <img alt=":party:" src="/emoji/p.png">', 'https://c.example'), '<a href="https://c.example/user_uploads/1/a.png">[a.png]</a> [:party:]');
});
