// Password hashing (argon2id) and random API keys.
import { randomBytes } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';

export const newApiKey = (): string => randomBytes(24).toString('base64url').slice(0, 32);

export const hashPassword = (password: string): Promise<string> =>
  // Algorithm 2 is argon2id; the library's defaults (19 MiB, 2 passes) follow current guidance.
  hash(password, { algorithm: 2 });

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
