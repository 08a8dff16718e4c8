// Which coding an Accept-Encoding header gets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chooseEncoding } from './compression.js';

test('brotli is preferred, gzip taken alone, q=0 refuses, * accepts, unknown codings get nothing', () => {
  assert.equal(chooseEncoding('gzip, deflate, br'), 'br');
  assert.equal(chooseEncoding('gzip, deflate'), 'gzip');
  assert.equal(chooseEncoding('br;q=0, gzip'), 'gzip');
  assert.equal(chooseEncoding('gzip;q=0.5, br;q=0.2'), 'gzip');
  assert.equal(chooseEncoding('BR ; Q=1'), 'br');
  assert.equal(chooseEncoding('x-gzip'), 'gzip');
  assert.equal(chooseEncoding('*'), 'br');
  assert.equal(chooseEncoding('*;q=0, gzip'), 'gzip');
  assert.equal(chooseEncoding('identity'), null);
  assert.equal(chooseEncoding('deflate, zstd'), null);
  assert.equal(chooseEncoding('gzip;q=0, br;q=0'), null);
});
