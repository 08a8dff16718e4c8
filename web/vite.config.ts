// Builds the web client into dist/public (served by the server at /), with gzip and brotli copies of each text file.
import { defineConfig, type Plugin } from 'vite';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const outDir = path.resolve(here, '../dist/public');

/** Writes name.gz and name.br beside every compressible file, so the server never compresses per request. */
function precompress(): Plugin {
  return {
    name: 'parley-precompress',
    apply: 'build',
    closeBundle() {
      const walk = (dir: string): string[] => fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
      for (const file of walk(outDir)) {
        if (!/\.(js|css|html|svg|json|txt)$/.test(file)) continue;
        const body = fs.readFileSync(file);
        fs.writeFileSync(file + '.gz', zlib.gzipSync(body, { level: 9 }));
        fs.writeFileSync(file + '.br', zlib.brotliCompressSync(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }));
      }
    },
  };
}

export default defineConfig({
  root: here,
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir,
    emptyOutDir: true,
    target: 'es2022',
    // No inline script anywhere: the page's Content-Security-Policy allows only the client's files.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    reportCompressedSize: false,
  },
  plugins: [precompress()],
});
