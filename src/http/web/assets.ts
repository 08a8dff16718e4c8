// The built web client (dist/web): loaded into memory at start-up with its gzip and brotli copies.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Asset {
  body: Buffer;
  gzip: Buffer | null;
  brotli: Buffer | null;
  type: string;
  /** Content-hashed file names never change content: cached for a year. */
  immutable: boolean;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
  '.txt': 'text/plain; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
};

/** Where `vite build` writes the client, beside the compiled server (dist/src/http/web → dist/public). */
export const DEFAULT_WEB_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../public');

/** Every file of the built client by URL path ("/index.html", "/assets/app-3f2a.js"); empty when not built. */
export function loadAssets(dir: string): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  if (!fs.existsSync(path.join(dir, 'index.html'))) return assets;
  const walk = (sub: string): void => {
    for (const e of fs.readdirSync(path.join(dir, sub), { withFileTypes: true })) {
      const rel = path.posix.join(sub, e.name);
      if (e.isDirectory()) walk(rel);
      else if (!e.name.endsWith('.gz') && !e.name.endsWith('.br')) {
        const file = path.join(dir, rel);
        const read = (suffix: string): Buffer | null => (fs.existsSync(file + suffix) ? fs.readFileSync(file + suffix) : null);
        assets.set('/' + rel, {
          body: fs.readFileSync(file),
          gzip: read('.gz'),
          brotli: read('.br'),
          type: TYPES[path.extname(e.name)] ?? 'application/octet-stream',
          immutable: rel.startsWith('assets/'),
        });
      }
    }
  };
  walk('');
  return assets;
}
