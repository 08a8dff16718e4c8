// Which kind of gateway address a recipient is: a channel's (<slug>.<token>@) or a notification's reply address (mm<token>@).
import { REPLY_LOCAL_PART } from './tokens.js';

export type GatewayAddress = { kind: 'channel'; token: string; domain: string } | { kind: 'reply'; token: string; domain: string };

/** Null when the address has neither form (refused as unknown). */
export function parseGatewayAddress(address: string): GatewayAddress | null {
  const at = address.lastIndexOf('@');
  if (at <= 0) return null;
  // Plus-addressing (tags some senders add) is not part of the address.
  const local = address.slice(0, at).toLowerCase().replace(/\+.*$/, '');
  const domain = address.slice(at + 1).toLowerCase();
  const reply = REPLY_LOCAL_PART.exec(local);
  if (reply) return { kind: 'reply', token: reply[1], domain };
  const token = local.slice(local.lastIndexOf('.') + 1);
  if (local.includes('.') && /^[0-9a-f]{32}$/.test(token)) return { kind: 'channel', token, domain };
  return null;
}
