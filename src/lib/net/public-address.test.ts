// Which addresses count as public for requests to user-chosen URLs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isPublicAddress } from './public-address.js';

test('private, loopback, link-local and reserved addresses are not public', () => {
  for (const ip of ['127.0.0.1', '127.8.9.10', '10.0.0.1', '172.16.5.4', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '255.255.255.255', '::1', '::', 'fe80::1', 'fd00::1', 'fc12::3', 'ff02::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '64:ff9b::a9fe:a9fe', '[::1]', 'fe80::1%eth0', 'localhost', 'not an ip'])
    assert.equal(isPublicAddress(ip), false, ip);
});

test('public addresses are', () => {
  for (const ip of ['8.8.8.8', '1.1.1.1', '172.32.0.1', '192.169.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '2001:4860:4860::8888']) assert.equal(isPublicAddress(ip), true, ip);
});
