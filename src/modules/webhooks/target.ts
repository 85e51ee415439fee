// Where a webhook may be delivered (CONTRACT §12, no SSRF). A URL is checked when the webhook is
// created and again before every attempt: http(s) only (https only in production), and every
// address its host resolves to must be a public unicast address — loopback is allowed outside
// production, and WEBHOOK_ALLOWED_HOSTS names exceptions. The delivery then connects to the very
// address checked here (src/modules/webhooks/delivery.ts), so a DNS answer that changes between
// the check and the connection (DNS rebinding) cannot redirect it.
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to its addresses; the system's resolver (DNS, /etc/hosts) unless a test injects another. */
export type ResolveHost = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: ResolveHost = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));

export interface TargetPolicy {
  production: boolean;
  /** Host names, IP addresses or CIDR ranges (lower case) exempt from the address check. */
  allowedHosts: string[];
}

/** A URL that passed the checks, and the address to connect to for it. */
export interface WebhookTarget extends ResolvedAddress {
  url: URL;
}

/** Why a URL is refused, in words for the API's 400 or the delivery log. */
export class TargetRefused extends Error {}

export async function resolveTarget(rawUrl: string, policy: TargetPolicy, resolve: ResolveHost): Promise<WebhookTarget> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new TargetRefused('must be an absolute http(s) URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new TargetRefused('must be an http or https URL');
  if (policy.production && url.protocol !== 'https:') throw new TargetRefused('must be an https URL');
  // Credentials in the URL would be shown to every reader of GET /webhooks, and sent as Basic auth.
  if (url.username || url.password) throw new TargetRefused('must not carry a user name or password; deliveries are signed (webhook-signature)');
  // The URL parser has already normalized the host: IPv4 in dotted decimal, IPv6 in brackets.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  const addresses = isIP(host) ? [{ address: host, family: isIP(host) as 4 | 6 }] : await resolveOrRefuse(host, resolve);
  if (!policy.allowedHosts.includes(host)) {
    for (const { address } of addresses) {
      const refusal = refusalOf(address, policy);
      if (refusal) throw new TargetRefused(`must not point at ${refusal} address: ${host === address ? host : `${host} resolves to ${address}`}`);
    }
  }
  return { url, ...addresses[0]! };
}

async function resolveOrRefuse(host: string, resolve: ResolveHost): Promise<ResolvedAddress[]> {
  let addresses: ResolvedAddress[] = [];
  try {
    addresses = await resolve(host);
  } catch {
    // Below: no address is the same refusal as a failed lookup.
  }
  if (addresses.length === 0) throw new TargetRefused(`has a host that does not resolve: ${host}`);
  return addresses;
}

/** Names the kind of a refused address ("a private"), or null if it may be connected to. */
function refusalOf(address: string, policy: TargetPolicy): string | null {
  const parsed = ipaddr.process(address); // an IPv4-mapped IPv6 address is judged as the IPv4 address
  if (policy.allowedHosts.some((entry) => entry === parsed.toString() || inRange(parsed, entry))) return null;
  const range = parsed.range();
  if (range === 'unicast') return null;
  if (range === 'loopback') return policy.production ? 'a loopback' : null;
  return RANGE_NAMES[range] ?? 'a reserved';
}

const RANGE_NAMES: Record<string, string> = {
  private: 'a private',
  uniqueLocal: 'a private',
  carrierGradeNat: 'a private',
  linkLocal: 'a link-local',
  multicast: 'a multicast',
  unspecified: 'an unspecified',
  broadcast: 'a broadcast',
};

function inRange(address: ipaddr.IPv4 | ipaddr.IPv6, entry: string): boolean {
  if (!entry.includes('/') || !ipaddr.isValidCIDR(entry)) return false;
  const range = ipaddr.parseCIDR(entry);
  return address.kind() === range[0].kind() && address.match(range);
}
