// Which resolved addresses an outbound webhook may connect to. Checked on the
// address actually connected to (not the URL's hostname), so DNS tricks and
// hostnames that resolve to private addresses are refused too.
//
// An IPv6 address can carry an IPv4 address, and packets to it may end up at
// that IPv4 address (the kernel, a NAT64 gateway, a 6to4 or Teredo relay does
// the rest). Such an address is judged as the IPv4 address it carries: the
// IPv4-mapped (::ffff:0:0/96), IPv4-compatible (::/96), IPv4-translated
// (::ffff:0:0:0/96), NAT64 (64:ff9b::/96, and 64:ff9b:1::/48 at every position
// RFC 6052 allows), 6to4 (2002::/16), Teredo (2001::/32: the server and the
// client, whose address is the last 32 bits inverted) and ISATAP (an interface
// id of 0:5efe or 200:5efe) forms. The ranges are those of IANA's IPv4 and IPv6
// special-purpose address registries; IPv6 outside 2000::/3 is not assigned
// for global use, so it is refused as reserved.
import { formatIp, ipv4, matchesAny, parseCidr, parseIp, type Cidr, type IpAddress } from '../ip.js';

export type AddressClass =
  'public' | 'private' | 'loopback' | 'link-local' | 'cgnat' | 'multicast' | 'metadata' | 'unspecified' | 'reserved';
type Refused = Exclude<AddressClass, 'public'>;

/** When an address carries several IPv4 addresses, the most dangerous one names it. */
const SEVERITY: readonly Refused[] = ['metadata', 'loopback', 'private', 'link-local', 'cgnat', 'multicast', 'reserved', 'unspecified'];

const ranges = (list: readonly string[]) => list.map((text) => parseCidr(text));

const IPV4_CLASSES: ReadonlyArray<readonly [Refused, readonly Cidr[]]> = [
  // Cloud metadata and credential endpoints: also link-local or CGNAT, but refused even with WEBHOOK_ALLOW_PRIVATE.
  ['metadata', ranges(['169.254.169.254/32', '169.254.170.2/32', '169.254.170.23/32', '100.100.100.200/32'])],
  ['loopback', ranges(['127.0.0.0/8'])],
  ['private', ranges(['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16'])],
  ['link-local', ranges(['169.254.0.0/16'])],
  ['cgnat', ranges(['100.64.0.0/10'])],
  ['multicast', ranges(['224.0.0.0/4'])],
  ['unspecified', ranges(['0.0.0.0/8'])],
  // IETF protocol assignments, documentation, the old 6to4 relay anycast, benchmarking, class E and broadcast.
  [
    'reserved',
    ranges(['192.0.0.0/24', '192.0.2.0/24', '192.88.99.0/24', '198.18.0.0/15', '198.51.100.0/24', '203.0.113.0/24', '240.0.0.0/4']),
  ],
];

const IPV6_EXACT: ReadonlyArray<readonly [Refused, readonly Cidr[]]> = [
  // AWS (instance metadata, EKS pod identity) and Google Cloud on IPv6.
  ['metadata', ranges(['fd00:ec2::254/128', 'fd00:ec2::23/128', 'fd20:ce::254/128'])],
  ['loopback', ranges(['::1/128'])],
  ['unspecified', ranges(['::/128'])],
];

const IPV6_CLASSES: ReadonlyArray<readonly [Refused | 'public', readonly Cidr[]]> = [
  ['private', ranges(['fc00::/7', 'fec0::/10'])],
  ['link-local', ranges(['fe80::/10'])],
  ['multicast', ranges(['ff00::/8'])],
  // Globally reachable blocks inside 2001::/23 (PCP, TURN and DNS-SD anycast, AMT, AS112, ORCHIDv2, drone remote id).
  ['public', ranges(['2001:1::1/128', '2001:1::2/128', '2001:1::3/128', '2001:3::/32', '2001:4:112::/48', '2001:20::/28', '2001:30::/28'])],
  // Discard-only, dummy prefix, the rest of the IETF protocol assignments, documentation, SRv6 SIDs.
  ['reserved', ranges(['100::/64', '100:0:0:1::/64', '2001::/23', '2001:db8::/32', '3fff::/20', '5f00::/16'])],
];

const GLOBAL_UNICAST = parseCidr('2000::/3');

function classOfIpv4(ip: IpAddress): AddressClass {
  for (const [name, list] of IPV4_CLASSES) if (list.some((cidr) => matchesAny(ip, [cidr]))) return name;
  return 'public';
}

const zero = (bytes: Uint8Array, from: number, to: number) => bytes.subarray(from, to).every((b) => b === 0);
const startsWith = (bytes: Uint8Array, prefix: readonly number[]) => prefix.every((b, i) => bytes[i] === b);

interface Carried {
  /** The IPv4 addresses packets to this address may reach. */
  readonly addresses: IpAddress[];
  /** What the address is when every one of them is public; undefined: judge the IPv6 address itself. */
  readonly whenPublic: 'public' | 'reserved' | undefined;
}

/** The IPv4 addresses an IPv6 address carries, by the forms that embed one; null when it carries none. */
function carriedIpv4(b: Uint8Array): Carried | null {
  const at = (...indexes: number[]) => ipv4(indexes.map((i) => b[i]!));
  const last = () => at(12, 13, 14, 15);
  if (zero(b, 0, 10) && b[10] === 0xff && b[11] === 0xff) return { addresses: [last()], whenPublic: 'public' }; // mapped
  if (zero(b, 0, 12)) return { addresses: [last()], whenPublic: 'reserved' }; // compatible (deprecated)
  if (zero(b, 0, 8) && b[8] === 0xff && b[9] === 0xff && zero(b, 10, 12)) return { addresses: [last()], whenPublic: 'reserved' }; // translated
  if (startsWith(b, [0, 0x64, 0xff, 0x9b]) && zero(b, 4, 12)) return { addresses: [last()], whenPublic: 'public' }; // NAT64, well-known prefix
  if (startsWith(b, [0, 0x64, 0xff, 0x9b, 0, 1])) {
    // NAT64, local-use prefix: the operator picks the prefix length, so every RFC 6052 layout
    // whose fixed zeros hold is a candidate. A gateway need not check those zeros, and the
    // prefix may sit anywhere inside the /48: at every layout, whatever the other bytes hold,
    // loopback or metadata is refused too.
    const addresses: IpAddress[] = [];
    if (zero(b, 6, 12)) addresses.push(last());
    if (b[8] === 0) {
      if (zero(b, 13, 16)) addresses.push(at(9, 10, 11, 12)); // /64
      if (zero(b, 12, 16)) addresses.push(at(7, 9, 10, 11)); // /56
      if (zero(b, 11, 16)) addresses.push(at(6, 7, 9, 10)); // /48
    }
    const anyLayout = [last(), at(9, 10, 11, 12), at(7, 9, 10, 11), at(6, 7, 9, 10)];
    addresses.push(...anyLayout.filter((v4) => ['metadata', 'loopback'].includes(classOfIpv4(v4))));
    return { addresses, whenPublic: 'reserved' };
  }
  if (startsWith(b, [0x20, 0x02])) return { addresses: [at(2, 3, 4, 5)], whenPublic: 'public' }; // 6to4
  if (startsWith(b, [0x20, 0x01, 0, 0])) {
    // Teredo: the server, and the client behind its NAT (stored inverted).
    return { addresses: [at(4, 5, 6, 7), ipv4([12, 13, 14, 15].map((i) => b[i]! ^ 0xff))], whenPublic: 'public' };
  }
  if ((b[8] === 0 || b[8] === 2) && b[9] === 0 && b[10] === 0x5e && b[11] === 0xfe) return { addresses: [last()], whenPublic: undefined }; // ISATAP
  return null;
}

function worst(classes: AddressClass[]): Refused | null {
  for (const name of SEVERITY) if (classes.includes(name)) return name;
  return null;
}

function classOfIpv6(ip: IpAddress): AddressClass {
  for (const [name, list] of IPV6_EXACT) if (list.some((cidr) => matchesAny(ip, [cidr]))) return name;
  const carried = carriedIpv4(ip.bytes);
  if (carried) {
    const refused = worst(carried.addresses.map(classOfIpv4));
    if (refused) return refused;
    if (carried.whenPublic) return carried.whenPublic;
  }
  for (const [name, list] of IPV6_CLASSES) if (list.some((cidr) => matchesAny(ip, [cidr]))) return name;
  return matchesAny(ip, [GLOBAL_UNICAST]) ? 'public' : 'reserved';
}

/** What an address is; text that is not exactly an address is 'reserved' (refused, never guessed at). */
export function classifyAddress(address: string): AddressClass {
  const ip = parseIp(address);
  if (!ip) return 'reserved';
  return ip.family === 4 ? classOfIpv4(ip) : classOfIpv6(ip);
}

export interface AddressPolicy {
  allowPrivate: boolean;
  /** CIDRs always allowed, e.g. "10.1.2.0/24" or "127.0.0.1/32". */
  allowedCidrs: readonly string[];
}

/** The CIDRs of an allow-list; throws, naming the first entry that is not a CIDR. */
export function parseCidrs(cidrs: readonly string[]): Cidr[] {
  return cidrs.map((cidr) => parseCidr(cidr));
}

const compiled = new WeakMap<readonly string[], Cidr[]>();
/** The policy's allow-list, parsed once per list (the sender asks on every delivery). */
export function allowedList(policy: AddressPolicy): readonly Cidr[] {
  let list = compiled.get(policy.allowedCidrs);
  if (!list) compiled.set(policy.allowedCidrs, (list = parseCidrs(policy.allowedCidrs)));
  return list;
}

/** null when the address may be contacted, else the reason it may not. */
/**
 * Whether the allow-list admits this address. An IPv4 CIDR also admits the IPv4-mapped
 * spelling of its addresses (the parser reads that spelling as the IPv4 address). An IPv6
 * CIDR admits the addresses inside it, except that one carrying loopback or cloud metadata
 * (through NAT64, 6to4, Teredo and the like) is admitted only when that IPv4 address is
 * listed itself: listing the NAT64 prefix to reach private receivers must not open the
 * metadata service or this host through it.
 */
function listed(ip: IpAddress, allowed: readonly Cidr[]): boolean {
  if (!matchesAny(ip, allowed)) return false;
  if (ip.family === 4) return true;
  const carried = carriedIpv4(ip.bytes);
  if (!carried) return true;
  return carried.addresses.every((v4) => {
    const kind = classOfIpv4(v4);
    return (kind !== 'metadata' && kind !== 'loopback') || matchesAny(v4, allowed);
  });
}

export function refusal(address: string, policy: AddressPolicy, allowed: readonly Cidr[] = allowedList(policy)): string | null {
  const ip = parseIp(address);
  if (ip && listed(ip, allowed)) return null;
  const kind = ip ? (ip.family === 4 ? classOfIpv4(ip) : classOfIpv6(ip)) : 'reserved';
  if (kind === 'public') return null;
  if (policy.allowPrivate && kind !== 'metadata') return null;
  const shown = ip ? formatIp(ip) : JSON.stringify(address.slice(0, 60));
  return `refusing to connect to ${shown} (${kind} address); the operator may allow it with WEBHOOK_ALLOWED_CIDRS${kind === 'metadata' ? '' : ' or WEBHOOK_ALLOW_PRIVATE=true'}`;
}
