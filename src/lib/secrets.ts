// Password hashing (argon2id) and random API keys.
import { randomBytes } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';

export const newApiKey = (): string => randomBytes(24).toString('base64url').slice(0, 32);

export const hashPassword = (password: string): Promise<string> =>
  // Algorithm 2 is argon2id; the library's defaults (19 MiB, 2 passes) follow current guidance.
  hash(password, { algorithm: 2 });

export async function checkPassword(stored: string | null, password: string): Promise<boolean> {
  if (!stored) return false;
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
}
