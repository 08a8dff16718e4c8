// Outgoing requests to addresses users choose (outgoing-webhook bots) reach only public addresses: every
// address a host name resolves to is checked, and the connection uses the addresses that were checked.
import dns from 'node:dns';
import net from 'node:net';
import { Agent } from 'undici';

/** Ranges no user-chosen request may reach: this host, private networks, link-local (cloud metadata), reserved. */
const BLOCKED = new net.BlockList();
for (const [addr, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  BLOCKED.addSubnet(addr, bits, 'ipv4');
for (const [addr, bits] of [
  ['::', 128],
  ['::1', 128],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const)
  BLOCKED.addSubnet(addr, bits, 'ipv6');

/** The IPv4 address an IPv6 address carries (mapped ::ffff:a.b.c.d, NAT64 64:ff9b::/96, compatible ::a.b.c.d), or null. */
function embeddedIpv4(ip: string): string | null {
  const m = /^(?:::ffff:|64:ff9b::|::)(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (m) return m[1]!;
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(ip);
  if (!hex) return null;
  const hi = parseInt(hex[1]!, 16);
  const lo = parseInt(hex[2]!, 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** Whether an IP address (v4 or v6 text) is a public one. Anything that is not an IP address is not. */
export function isPublicAddress(ip: string): boolean {
  const bare = ip.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = net.isIP(bare);
  if (family === 4) return !BLOCKED.check(bare, 'ipv4');
  if (family !== 6) return false;
  const v4 = embeddedIpv4(bare);
  if (v4 !== null) return !BLOCKED.check(v4, 'ipv4');
  return !BLOCKED.check(bare, 'ipv6');
}

export class ForbiddenAddressError extends Error {
  override readonly name = 'ForbiddenAddressError';
  constructor(host: string, address?: string) {
    super(address && address !== host ? `${host} resolves to ${address}, which is not a public address` : `${host} is not a public address`);
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/** net.connect's lookup: resolves every address, refuses the host if any is not public, connects to the checked ones. */
function publicLookup(hostname: string, options: dns.LookupOptions, callback: LookupCallback): void {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    const bad = addresses.find((a) => !isPublicAddress(a.address));
    if (bad) return callback(new ForbiddenAddressError(hostname, bad.address), []);
    if (options.all) return callback(null, addresses);
    callback(null, addresses[0]!.address, addresses[0]!.family);
  });
}

/**
 * An undici dispatcher for requests to user-chosen URLs. Node's connect skips the lookup for an IP literal,
 * so the caller checks a literal host with `checkUrlHost` first.
 */
export const publicOnlyAgent = new Agent({ connect: { lookup: publicLookup } });

/** Refuses a URL whose host is a literal address that is not public (host names are checked at connect). */
export function checkUrlHost(url: URL): void {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(host) && !isPublicAddress(host)) throw new ForbiddenAddressError(host);
}

/** The error to report for a failed request: undici wraps connect errors in "fetch failed". */
export function rootCause(err: unknown): Error {
  let e = err as Error & { cause?: unknown };
  while (e.cause instanceof Error) e = e.cause as Error & { cause?: unknown };
  return e;
}
