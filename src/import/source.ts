// An export given as a directory, a .zip or a .tar.gz: archives are unpacked into a temporary directory (yauzl, tar).
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import * as tar from 'tar';
import yauzl from 'yauzl';
import { ImportError } from './bundle.js';

export interface OpenedSource {
  /** The directory holding the export's files. */
  dir: string;
  /** Removes what unpacking made (nothing for a directory). */
  close(): Promise<void>;
}

export async function openSource(input: string): Promise<OpenedSource> {
  const stat = await fsp.stat(input).catch(() => null);
  if (!stat) throw new ImportError(`no such file or directory: ${input}`);
  if (stat.isDirectory()) return { dir: input, close: async () => {} };
  const tmp = await fsp.mkdtemp(path.join(os.tmpdir(), 'parley-import-'));
  const close = () => fsp.rm(tmp, { recursive: true, force: true });
  try {
    if (/\.zip$/i.test(input)) await unzip(input, tmp);
    else if (/\.(tar\.gz|tgz|tar)$/i.test(input)) await tar.x({ file: input, cwd: tmp, strict: true });
    else throw new ImportError(`${input} is neither a directory, a .zip nor a .tar.gz`);
  } catch (err) {
    await close();
    if (err instanceof ImportError) throw err;
    throw new ImportError(`cannot unpack ${input}: ${err instanceof Error ? err.message : String(err)}`);
  }
  return { dir: await singleTopFolder(tmp), close };
}

/** Archives often hold one folder with the export inside: use it. */
async function singleTopFolder(dir: string): Promise<string> {
  const entries = (await fsp.readdir(dir, { withFileTypes: true })).filter((e) => !e.name.startsWith('.') && e.name !== '__MACOSX');
  if (entries.length === 1 && entries[0].isDirectory()) return path.join(dir, entries[0].name);
  return dir;
}

function unzip(file: string, into: string): Promise<void> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true, strictFileNames: true }, (err, zip) => {
      if (err) return reject(err);
      zip.on('error', reject);
      zip.on('end', () => resolve());
      zip.on('entry', (entry: yauzl.Entry) => {
        // yauzl refuses absolute paths and ".." (strictFileNames, validateEntrySizes); folders are made as needed.
        const target = path.join(into, entry.fileName);
        if (entry.fileName.endsWith('/')) {
          fs.mkdirSync(target, { recursive: true });
          zip.readEntry();
          return;
        }
        zip.openReadStream(entry, (e, stream) => {
          if (e) return reject(e);
          fs.mkdirSync(path.dirname(target), { recursive: true });
          pipeline(stream, fs.createWriteStream(target)).then(() => zip.readEntry(), reject);
        });
      });
      zip.readEntry();
    });
  });
}

/** Reads and parses a JSON file of the export, with an error naming the file when it is missing or damaged. */
export async function readJson<T = unknown>(dir: string, name: string, optional = false): Promise<T | undefined> {
  const file = path.join(dir, name);
  let text: string;
  try {
    text = await fsp.readFile(file, 'utf8');
  } catch {
    if (optional) return undefined;
    throw new ImportError(`the export has no ${name}`);
  }
  try {
    return JSON.parse(text) as T;
  } catch (err) {
    throw new ImportError(`${name} is not valid JSON (${err instanceof Error ? err.message : String(err)}); is the export truncated?`);
  }
}
