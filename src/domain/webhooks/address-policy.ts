// Which resolved addresses an outbound webhook may connect to. Checked on the
// address actually connected to (not the URL's hostname), so DNS tricks and
// hostnames that resolve to private addresses are refused too.
import { BlockList, isIP } from 'node:net';

export type AddressClass = 'public' | 'private' | 'loopback' | 'link-local' | 'cgnat' | 'multicast' | 'metadata' | 'unspecified' | 'reserved';

const CLASSES: Array<[Exclude<AddressClass, 'public'>, Array<[string, number, 'ipv4' | 'ipv6']>]> = [
  // Cloud metadata first: 169.254.169.254 is also link-local, but deserves its own name.
  ['metadata', [['169.254.169.254', 32, 'ipv4'], ['fd00:ec2::254', 128, 'ipv6'], ['100.100.100.200', 32, 'ipv4']]],
  ['loopback', [['127.0.0.0', 8, 'ipv4'], ['::1', 128, 'ipv6']]],
  ['private', [['10.0.0.0', 8, 'ipv4'], ['172.16.0.0', 12, 'ipv4'], ['192.168.0.0', 16, 'ipv4'], ['fc00::', 7, 'ipv6']]],
  ['link-local', [['169.254.0.0', 16, 'ipv4'], ['fe80::', 10, 'ipv6']]],
  ['cgnat', [['100.64.0.0', 10, 'ipv4']]],
  ['multicast', [['224.0.0.0', 4, 'ipv4'], ['ff00::', 8, 'ipv6']]],
  ['unspecified', [['0.0.0.0', 8, 'ipv4'], ['::', 128, 'ipv6']]],
  [
    'reserved',
    [
      ['192.0.0.0', 24, 'ipv4'],
      ['192.0.2.0', 24, 'ipv4'],
      ['198.18.0.0', 15, 'ipv4'],
      ['198.51.100.0', 24, 'ipv4'],
      ['203.0.113.0', 24, 'ipv4'],
      ['240.0.0.0', 4, 'ipv4'],
      ['2001:db8::', 32, 'ipv6'],
      ['64:ff9b::', 96, 'ipv6'],
    ],
  ],
];

const LISTS = CLASSES.map(([name, ranges]) => {
  const list = new BlockList();
  for (const [net, prefix, family] of ranges) list.addSubnet(net, prefix, family);
  return [name, list] as const;
});

/** IPv4-mapped IPv6 (::ffff:10.0.0.1) is judged as the IPv4 address it carries. */
function normalise(address: string): { address: string; family: 'ipv4' | 'ipv6' } | null {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return { address: mapped[1]!, family: 'ipv4' };
  const kind = isIP(address);
  if (kind === 4) return { address, family: 'ipv4' };
  if (kind === 6) return { address, family: 'ipv6' };
  return null;
}

export function classifyAddress(address: string): AddressClass {
  const n = normalise(address);
  if (!n) return 'reserved';
  for (const [name, list] of LISTS) if (list.check(n.address, n.family)) return name;
  return 'public';
}

export interface AddressPolicy {
  allowPrivate: boolean;
  /** CIDRs always allowed, e.g. "10.1.2.0/24" or "127.0.0.1/32". */
  allowedCidrs: readonly string[];
}

export function parseCidrs(cidrs: readonly string[]): BlockList {
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [net, prefix] = cidr.split('/');
    const n = net ? normalise(net) : null;
    const max = n?.family === 'ipv6' ? 128 : 32;
    const bits = prefix === undefined ? max : /^\d{1,3}$/.test(prefix) ? Number(prefix) : Number.NaN;
    if (!n || !(bits >= 0 && bits <= max)) throw new Error(`"${cidr}" is not a CIDR like 10.0.0.0/8 (an IP address, then /0–/${max})`);
    list.addSubnet(n.address, bits, n.family);
  }
  return list;
}

const compiled = new WeakMap<readonly string[], BlockList>();
/** The policy's allow-list as a BlockList, built once per list (the sender asks on every delivery). */
export function allowedList(policy: AddressPolicy): BlockList {
  let list = compiled.get(policy.allowedCidrs);
  if (!list) compiled.set(policy.allowedCidrs, (list = parseCidrs(policy.allowedCidrs)));
  return list;
}

/** null when the address may be contacted, else the reason it may not. */
export function refusal(address: string, policy: AddressPolicy, allowed = allowedList(policy)): string | null {
  const n = normalise(address);
  if (n && allowed.check(n.address, n.family)) return null;
  const kind = classifyAddress(address);
  if (kind === 'public') return null;
  if (policy.allowPrivate && kind !== 'metadata') return null;
  return `refusing to connect to ${address} (${kind} address); set WEBHOOK_ALLOWED_CIDRS${kind === 'metadata' ? '' : ' or WEBHOOK_ALLOW_PRIVATE=true'} to allow it`;
}
