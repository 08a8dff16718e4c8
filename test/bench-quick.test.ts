// The quick bench runs to the end and writes every figure as a number (no timing assertions).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { REQUIRED_KEYS } from '../bench/report.js';

const RUN = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'bench', 'run.js');

// The quick bench always runs on SQLite; the SQLite pass of the suite covers it.
test('npm run bench -- --quick completes and writes every key', { skip: process.env.PARLEY_TEST_PG_URL ? 'runs in the SQLite pass' : false, timeout: 170_000 }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-bench-test-'));
  const out = path.join(dir, 'bench-results.json');
  try {
    const r = spawnSync(process.execPath, [RUN, '--quick', '--out', out], { encoding: 'utf8', timeout: 160_000 });
    assert.equal(r.status, 0, `bench exited with ${r.status} ${r.signal ?? ''}\n${r.stdout.slice(-3000)}\n${r.stderr.slice(-3000)}`);
    const results = JSON.parse(fs.readFileSync(out, 'utf8')) as Record<string, unknown>;
    for (const key of REQUIRED_KEYS) {
      assert.equal(typeof results[key], 'number', `${key} is ${JSON.stringify(results[key])}`);
      assert.ok(Number.isFinite(results[key]), `${key} is ${results[key]}`);
    }
    // Every long-poll aimed at was held, some of them as HTTP/2 streams (the bench's second transport).
    assert.equal(results.longpoll_held, results.longpoll_target);
    assert.ok((results.longpoll_held_http2 as number) > 0);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
