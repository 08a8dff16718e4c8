// The turn-batched log output: a turn's lines reach the file together, whole and in order, and nothing is lost at a flush.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TurnBatchedOutput } from './log-output.js';

const turn = () => new Promise((r) => setImmediate(r));

test('lines written in one turn reach the output at its end, in order, multi-byte text intact', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-log-'));
  const file = path.join(dir, 'out.log');
  const fd = fs.openSync(file, 'w');
  try {
    const out = new TurnBatchedOutput(fd);
    const lines = Array.from({ length: 1000 }, (_, i) => JSON.stringify({ i, text: 'café ☕ ' + 'x'.repeat(i % 50) }) + '\n');
    for (const l of lines) out.write(l);
    assert.equal(fs.readFileSync(file, 'utf8'), '', 'nothing is written before the turn ends');
    await turn();
    await turn();
    assert.equal(fs.readFileSync(file, 'utf8'), lines.join(''));
    out.write('last\n');
    out.flush();
    assert.equal(fs.readFileSync(file, 'utf8'), lines.join('') + 'last\n', 'flush writes at once');
  } finally {
    fs.closeSync(fd);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
