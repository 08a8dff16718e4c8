// deploy/parley.service: systemd reads it without a warning, and it runs migrate then serve.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { root } from './helpers/cli.js';
import { resolveConfig } from '../src/config-file.js';

const unit = path.join(root, 'deploy/parley.service');
const analyze = spawnSync('systemd-analyze', ['--version']).status === 0;
if (!analyze) {
  if (process.env.CI) throw new Error('CI needs systemd-analyze (Debian: systemd) to check deploy/parley.service');
  console.log('NOTE: the systemd unit check was SKIPPED: systemd-analyze is not installed.');
}

test('systemd-analyze verify accepts the unit with no warning about it', { skip: !analyze }, () => {
  const r = spawnSync('systemd-analyze', ['verify', unit], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const aboutUnit = r.stderr.split('\n').filter((l) => l.includes('parley.service'));
  assert.deepEqual(aboutUnit, [], 'no warning about the unit (an unknown key or bad value is only a warning)');
});

test('the unit migrates explicitly, then serves, with the config file and a private state directory', () => {
  const text = fs.readFileSync(unit, 'utf8');
  assert.match(text, /^ExecStartPre=\S+node \S+\/bin\/parley\.js migrate$/m);
  assert.match(text, /^ExecStart=\S+node \S+\/bin\/parley\.js serve$/m);
  assert.match(text, /^Environment=PARLEY_CONFIG=\/etc\/parley\/parley\.toml$/m);
  assert.match(text, /^UMask=0077$/m);
  // The sample config file it names parses and holds only known settings.
  const toml = path.join(root, 'deploy/parley.toml');
  const config = resolveConfig({ config: toml }, {});
  assert.equal(config.externalUrl, 'https://chat.example.com');
  assert.equal(config.dataDir, '/var/lib/parley/data');
});
