// IP addresses and CIDRs as bytes, parsed strictly. Every place that judges an
// address (the webhook policy, allow-lists, trusted proxies, the unknown-key
// limiter) goes through this one parser, so a spelling cannot mean one thing to
// one check and another to the next. What is not exactly an address is refused,
// never guessed at: "127.000.000.001" is octal to some parsers and decimal to
// others, so it is no address here.

export interface IpAddress {
  readonly family: 4 | 6;
  /** 4 or 16 bytes, network order. */
  readonly bytes: Uint8Array;
}

export interface Cidr {
  readonly address: IpAddress;
  readonly prefix: number;
}

const DECIMAL_OCTET = /^(?:0|[1-9]\d{0,2})$/;
const HEX_GROUP = /^[0-9a-fA-F]{1,4}$/;

function parseIpv4(text: string): Uint8Array | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  const bytes = new Uint8Array(4);
  for (let i = 0; i < 4; i += 1) {
    if (!DECIMAL_OCTET.test(parts[i]!)) return null;
    const value = Number(parts[i]);
    if (value > 255) return null;
    bytes[i] = value;
  }
  return bytes;
}

function parseIpv6(text: string): Uint8Array | null {
  if (text.length === 0 || text.length > 45) return null;
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const groupsOf = (part: string): string[] => (part === '' ? [] : part.split(':'));
  const head = groupsOf(halves[0]!);
  const tail = halves.length === 2 ? groupsOf(halves[1]!) : [];
  // A dotted quad may only be the last thing written ("1.2.3.4::" is no address).
  let quad: Uint8Array | null = null;
  const lastWritten = halves.length === 2 ? tail : head;
  const last = lastWritten.at(-1);
  if (last !== undefined && last.includes('.')) {
    quad = parseIpv4(last);
    if (!quad) return null;
    lastWritten.pop();
  }
  for (const group of [...head, ...tail]) if (!HEX_GROUP.test(group)) return null;
  const written = head.length + tail.length + (quad ? 2 : 0);
  if (halves.length === 2 ? written > 7 : written !== 8) return null;
  const groups: number[] = [...head.map((g) => parseInt(g, 16))];
  for (let i = written; i < 8; i += 1) groups.push(0);
  groups.push(...tail.map((g) => parseInt(g, 16)));
  const bytes = new Uint8Array(16);
  groups.forEach((g, i) => {
    bytes[i * 2] = g >> 8;
    bytes[i * 2 + 1] = g & 0xff;
  });
  if (quad) bytes.set(quad, 12);
  return bytes;
}

/**
 * An IPv4 address in dotted decimal (no leading zeros), or an IPv6 address in
 * any RFC 4291 spelling (compressed or not, a trailing dotted quad, either case,
 * leading zeros within a group), optionally with a zone id ("%eth0"), which is
 * dropped: the policy judges the address, whatever interface it names.
 */
export function parseIp(text: string): IpAddress | null {
  if (text.includes(':')) {
    const zone = text.indexOf('%');
    if (zone === text.length - 1) return null;
    const bytes = parseIpv6(zone >= 0 ? text.slice(0, zone) : text);
    return bytes ? { family: 6, bytes } : null;
  }
  const bytes = parseIpv4(text);
  return bytes ? { family: 4, bytes } : null;
}

export function ipv4(bytes: ArrayLike<number>): IpAddress {
  return { family: 4, bytes: Uint8Array.from(bytes) };
}

/** RFC 5952 text (IPv6 compressed, lower case; IPv4 dotted decimal). */
export function formatIp(ip: IpAddress): string {
  if (ip.family === 4) return [...ip.bytes].join('.');
  const groups = Array.from({ length: 8 }, (_, i) => (ip.bytes[i * 2]! << 8) | ip.bytes[i * 2 + 1]!);
  let best = { at: -1, length: 1 };
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i += 1;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j += 1;
    if (j - i > best.length) best = { at: i, length: j - i };
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best.at < 0) return hex.join(':');
  return `${hex.slice(0, best.at).join(':')}::${hex.slice(best.at + best.length).join(':')}`;
}

/** The IPv4 address an IPv4-mapped IPv6 address (::ffff:a.b.c.d) is; other addresses as they are. */
export function unmapped(ip: IpAddress): IpAddress {
  if (ip.family === 6 && ip.bytes.subarray(0, 10).every((b) => b === 0) && ip.bytes[10] === 0xff && ip.bytes[11] === 0xff)
    return ipv4(ip.bytes.subarray(12));
  return ip;
}

/** "10.0.0.0/8", "2001:db8::/32", or a bare address (all its bits). Strict: one "/", a decimal prefix in range, no bits set past it. */
export function parseCidr(text: string): Cidr {
  const fail = (why: string): never => {
    throw new Error(`"${text}" is not a CIDR like 10.0.0.0/8 or 2001:db8::/32: ${why}`);
  };
  const parts = text.split('/');
  if (parts.length > 2) fail('it has more than one "/"');
  if (parts[0]!.includes('%')) fail('a CIDR has no zone id');
  const address = parseIp(parts[0]!);
  if (!address) fail(`"${parts[0]}" is not an IP address`);
  const max = address!.family === 4 ? 32 : 128;
  const written = parts[1];
  if (written !== undefined && !/^(?:0|[1-9]\d{0,2})$/.test(written)) fail(`the prefix length must be a whole number from 0 to ${max}`);
  const prefix = written === undefined ? max : Number(written);
  if (prefix > max) fail(`the prefix length must be a whole number from 0 to ${max}`);
  const masked = mask(address!.bytes, prefix);
  if (!masked.every((b, i) => b === address!.bytes[i])) {
    fail(`it has bits set past /${prefix}; the network is ${formatIp({ family: address!.family, bytes: masked })}/${prefix}`);
  }
  return { address: address!, prefix };
}

function mask(bytes: Uint8Array, prefix: number): Uint8Array {
  const out = Uint8Array.from(bytes);
  for (let i = 0; i < out.length; i += 1) {
    const keep = Math.max(0, Math.min(8, prefix - i * 8));
    out[i]! &= keep === 8 ? 0xff : (0xff << (8 - keep)) & 0xff;
  }
  return out;
}

export function inCidr(ip: IpAddress, cidr: Cidr): boolean {
  if (ip.family !== cidr.address.family) return false;
  const masked = mask(ip.bytes, cidr.prefix);
  return masked.every((b, i) => b === cidr.address.bytes[i]);
}

/** The address matches a listed CIDR as written, or as the IPv4 address it is (::ffff:a.b.c.d). */
export function matchesAny(ip: IpAddress, cidrs: readonly Cidr[]): boolean {
  const plain = unmapped(ip);
  return cidrs.some((cidr) => inCidr(ip, cidr) || (plain !== ip && inCidr(plain, cidr)));
}

/**
 * The group a limit counts a client under: an IPv4 address as it is (IPv4-mapped IPv6 too), an IPv6
 * address by its first `ipv6Prefix` bits (a multiple of 8). A subscriber is usually given a /64 and a
 * site a /48, so counting /64s gives one site 65,536 budgets; limits that a site must not multiply
 * (sign-in) count /48s.
 */
export function clientGroup(ip: IpAddress, ipv6Prefix: 48 | 64): string {
  const plain = unmapped(ip);
  if (plain.family === 4) return [...plain.bytes].join('.');
  return `${Buffer.from(plain.bytes.subarray(0, ipv6Prefix / 8)).toString('hex')}/${ipv6Prefix}`;
}
