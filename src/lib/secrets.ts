// Password hashing (argon2id) and random API keys.
import { randomBytes } from 'node:crypto';

// The native argon2 module (about 12 MB of RSS) loads on the first password check or hash, not
// at start-up: a server that only answers API-key requests never needs it.
let argon2: Promise<typeof import('@node-rs/argon2')> | null = null;
const loadArgon2 = () => (argon2 ??= import('@node-rs/argon2'));

export const newApiKey = (): string => randomBytes(24).toString('base64url').slice(0, 32);

export async function hashPassword(password: string): Promise<string> {
  const { hash } = await loadArgon2();
  // Algorithm 2 is argon2id; the library's defaults (19 MiB, 2 passes) follow current guidance.
  return hash(password, { algorithm: 2 });
}

async function verify(stored: string, password: string): Promise<boolean> {
  return (await loadArgon2()).verify(stored, password);
}

let dummyHash: Promise<string> | null = null;

/** Verifies a password; without a stored hash it still spends the time of one check, so timing does not reveal which accounts exist. */
export async function checkPassword(stored: string | null, password: string): Promise<boolean> {
  if (!stored) {
    dummyHash ??= hashPassword(randomBytes(16).toString('hex'));
    await verify(await dummyHash, password).catch(() => false);
    return false;
  }
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
}
