// Unit tests of the lean HTTP/1.1 head parser: what it takes, what it leaves to Node's server, and where the body starts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_HEAD_BYTES, parseRequestHead } from './h1-head.js';

const LIMIT = 1024;
const parse = (text: string) => parseRequestHead(Buffer.from(text, 'latin1'), LIMIT);

test('a long-poll head: method, target, lower-cased headers, and the body offset', () => {
  const text = 'GET /api/v1/events?queue_id=a-b&last_event_id=4 HTTP/1.1\r\nHost: x.example\r\nAuthorization:  Basic YTpi \r\nUser-Agent: ZulipMobile/1.0\r\n\r\n';
  const head = parse(text);
  assert.notEqual(typeof head, 'string');
  if (typeof head === 'string') return;
  assert.equal(head.method, 'GET');
  assert.equal(head.target, '/api/v1/events?queue_id=a-b&last_event_id=4');
  assert.deepEqual({ ...head.headers }, { host: 'x.example', authorization: 'Basic YTpi', 'user-agent': 'ZulipMobile/1.0' });
  assert.equal(head.headLength, Buffer.byteLength(text));
  assert.equal(head.bodyLength, 0);
  assert.equal(head.close, false);
});

test('a form POST: its Content-Length, and Connection: close', () => {
  const head = parse('POST /api/v1/messages HTTP/1.1\r\nHost: h\r\nContent-Length: 12\r\nConnection: Keep-Alive, close\r\n\r\ntype=private');
  assert.ok(typeof head !== 'string');
  assert.equal(head.bodyLength, 12);
  assert.equal(head.close, true);
});

test('a head not yet whole is incomplete, until it passes the head size limit', () => {
  assert.equal(parse('GET /api/v1/events HTTP/1.1\r\nHost: h\r\n'), 'incomplete');
  assert.equal(parse('GET /api/v1/events HTTP/1.1\r\nHost: h\r\n\r'), 'incomplete');
  assert.equal(parse(`GET /a HTTP/1.1\r\nX: ${'y'.repeat(MAX_HEAD_BYTES)}`), 'unsupported');
  assert.equal(parse(`GET /a HTTP/1.1\r\nX: ${'y'.repeat(MAX_HEAD_BYTES)}\r\n\r\n`), 'unsupported');
});

test('anything unusual is left to Node: versions, methods, targets, framing, repeats and bytes', () => {
  const unsupported = [
    'GET /a HTTP/1.2\r\nHost: h\r\n\r\n',
    'GET /a HTTP/2.0\r\nHost: h\r\n\r\n',
    'GET /a HTTP/1.1 \r\nHost: h\r\n\r\n',
    'HEAD /a HTTP/1.1\r\nHost: h\r\n\r\n',
    'CONNECT h:443 HTTP/1.1\r\nHost: h\r\n\r\n',
    'get /a HTTP/1.1\r\nHost: h\r\n\r\n',
    'GET http://h/a HTTP/1.1\r\nHost: h\r\n\r\n',
    'GET * HTTP/1.1\r\nHost: h\r\n\r\n',
    'GET /a b HTTP/1.1\r\nHost: h\r\n\r\n',
    'GET  /a HTTP/1.1\r\nHost: h\r\n\r\n',
    'GET /\u00e9 HTTP/1.1\r\nHost: h\r\n\r\n',
    'GET /a HTTP/1.1\r\n\r\n',
    'GET /a HTTP/1.1\r\nHost: h\r\nHost: i\r\n\r\n',
    'GET /a HTTP/1.1\r\nHost: h\r\n__proto__: x\r\n\r\n',
    'GET /a HTTP/1.1\r\nHost: h\r\nhost: i\r\n\r\n',
    'GET /a HTTP/1.1\r\nHost: h\r\nX: 1\r\n  folded\r\n\r\n',
    'GET /a HTTP/1.1\r\nHost : h\r\n\r\n',
    'GET /a HTTP/1.1\r\nHost: h\r\nX-\u00e9: 1\r\n\r\n',
    'GET /a HTTP/1.1\r\nHost: h\r\nX: caf\u00e9\r\n\r\n',
    'GET /a HTTP/1.1\r\nHost: h\r\nX: a\u0000b\r\n\r\n',
    'GET /a HTTP/1.1\nHost: h\n\n\r\n\r\n',
    'POST /a HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n',
    'POST /a HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n',
    'POST /a HTTP/1.1\r\nHost: h\r\nContent-Length: 5, 5\r\n\r\n',
    'POST /a HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n',
    'POST /a HTTP/1.1\r\nHost: h\r\nContent-Length: 0x10\r\n\r\n',
    `POST /a HTTP/1.1\r\nHost: h\r\nContent-Length: ${LIMIT + 1}\r\n\r\n`,
    'POST /a HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n',
    'GET /a HTTP/1.1\r\nHost: h\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n',
    'GET /a HTTP/1.1\r\nHost: h\r\nConnection: close, TE\r\n\r\n',
  ];
  for (const text of unsupported) assert.equal(parse(text), 'unsupported', JSON.stringify(text));
});

test('HTTP/1.0 closes unless it asks for keep-alive; HTTP/1.1 keeps unless it asks to close', () => {
  const closeOf = (version: string, connection?: string) => {
    const head = parse(`GET /a HTTP/${version}\r\nHost: h\r\n${connection === undefined ? '' : `Connection: ${connection}\r\n`}\r\n`);
    assert.ok(typeof head !== 'string');
    return head.close;
  };
  assert.equal(closeOf('1.0'), true);
  assert.equal(closeOf('1.0', 'keep-alive'), false);
  assert.equal(closeOf('1.0', 'Keep-Alive, close'), true);
  assert.equal(closeOf('1.1'), false);
  assert.equal(closeOf('1.1', 'keep-alive'), false);
  assert.equal(closeOf('1.1', 'close'), true);
});

test("fields named like Object's own properties are ordinary fields", () => {
  const head = parse('GET /a HTTP/1.1\r\nConstructor: c\r\ntoString: t\r\nHost: h\r\n\r\n');
  assert.ok(typeof head !== 'string');
  assert.equal(head.headers.constructor, 'c');
  assert.equal(head.headers.tostring, 't');
  assert.equal(head.headers.host, 'h');
  assert.equal(parse('GET /a HTTP/1.1\r\nConstructor: c\r\n\r\n'), 'unsupported', 'still no Host');
});

test('a body of exactly the limit is taken', () => {
  const head = parse(`PATCH /api/v1/settings HTTP/1.1\r\nHost: h\r\nContent-Length: ${LIMIT}\r\n\r\n`);
  assert.ok(typeof head !== 'string');
  assert.equal(head.bodyLength, LIMIT);
});
