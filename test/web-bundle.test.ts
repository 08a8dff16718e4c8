// The built web client (npm run build writes dist/public): no inline script, every text file
// precompressed, and the initial JavaScript within its 150 KB (gzipped) budget.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../public');
const BUDGET_GZIP_BYTES = 150 * 1024;

test('the page loads its scripts from hashed files only, none inline', () => {
  const html = fs.readFileSync(path.join(root, 'index.html'), 'utf8');
  const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
  assert.ok(scripts.length > 0);
  for (const [, attrs, body] of scripts) {
    assert.equal(body.trim(), '', 'no inline script');
    assert.match(attrs, /src="\/assets\/[\w-]+-[\w-]{8,}\.js"/, 'a content-hashed file');
  }
  assert.doesNotMatch(html, /\son[a-z]+=/i, 'no inline event handlers');
});

test('every text file has gzip and brotli copies, and the initial JavaScript is within budget', () => {
  const assets = path.join(root, 'assets');
  const files = fs.readdirSync(assets);
  const text = files.filter((f) => /\.(js|css)$/.test(f));
  for (const f of text) for (const ext of ['.gz', '.br']) assert.ok(files.includes(f + ext), `${f}${ext}`);
  const html = fs.readFileSync(path.join(root, 'index.html'), 'utf8');
  const initial = [...html.matchAll(/src="\/assets\/([^"]+\.js)"/g)].map((m) => m[1]);
  const imports = new Set(initial);
  // Chunks the entry imports statically load with it.
  for (const f of initial) for (const m of fs.readFileSync(path.join(assets, f), 'utf8').matchAll(/from\s*"\.\/([\w-]+\.js)"/g)) imports.add(m[1]);
  const gzipped = [...imports].reduce((sum, f) => sum + fs.statSync(path.join(assets, f + '.gz')).size, 0);
  assert.ok(gzipped <= BUDGET_GZIP_BYTES, `initial JavaScript is ${gzipped} bytes gzipped`);
});
