#!/usr/bin/env node
// npm's prepare step (after `npm install` / `npm ci`): builds dist/ (server and web client) so `npx parley …` works at once.
// Skipped when dist/ is already newer than every source file, and in CI, whose `npm test` builds.
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
if (process.env.CI) {
  console.log('prepare: CI is set; `npm test` builds dist/.');
  process.exit(0);
}

function newest(dir) {
  let t = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : fs.statSync(p).mtimeMs);
  }
  return t;
}

const built = path.join(root, 'dist/src/cli.js');
const sources = Math.max(...['src', 'test', 'bench', 'web'].filter((d) => fs.existsSync(path.join(root, d))).map((d) => newest(path.join(root, d))), fs.statSync(path.join(root, 'tsconfig.json')).mtimeMs);
if (fs.existsSync(built) && fs.statSync(built).mtimeMs >= sources) process.exit(0);
const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
if (!fs.existsSync(tsc)) {
  console.log('prepare: TypeScript is not installed (an install without dev dependencies?); run `npm run build` before `npx parley`.');
  process.exit(0);
}
const r = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.json')], { stdio: 'inherit' });
if (r.status !== 0) process.exit(r.status ?? 1);
// The web client the server serves at / (as `npm run build` does).
const vite = path.join(root, 'node_modules/vite/bin/vite.js');
const w = spawnSync(process.execPath, [vite, 'build', path.join(root, 'web'), '--logLevel', 'warn'], { stdio: 'inherit', cwd: root });
process.exit(w.status ?? 1);
