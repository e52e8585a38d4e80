// Every IPv6 form that carries an IPv4 address, in every spelling, is judged as
// the IPv4 address it carries. Before this policy knew them, [::7f00:1],
// [::ffff:0:7f00:1], [2002:7f00:1::], [::a9fe:a9fe] and [64:ff9b:1::a9fe:a9fe]
// were all accepted as webhook targets: loopback and the cloud metadata service
// reached through IPv4-compatible, IPv4-translated, 6to4 and NAT64 addresses.
//
// The spellings are generated, not listed: for each IPv4 target and each form,
// the 16 bytes are built from the form's definition (RFC 4291, 2765, 6052, 8215,
// 3056, 4380, 5214), then written compressed, expanded, with a dotted quad, in
// upper case, with leading zeros, with a zone id, and bracketed in a URL, and
// judged at registration (the URL) and at connect time (the resolved address).
import { describe, expect, it } from 'vitest';
import { classifyAddress, parseCidrs, refusal, type AddressClass } from '../../src/domain/webhooks/address-policy.js';
import { policyRefusal, send } from '../../src/webhooks/sender.js';

type Bytes = number[];

const v4 = (text: string): Bytes => text.split('.').map(Number);
const be16 = (bytes: Bytes, at: number) => (bytes[at]! << 8) | bytes[at + 1]!;

const TARGETS: Array<[string, AddressClass]> = [
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['169.254.169.254', 'metadata'],
  ['100.100.100.200', 'metadata'],
  ['10.0.0.1', 'private'],
  ['172.16.5.4', 'private'],
  ['192.168.1.1', 'private'],
  ['169.254.10.20', 'link-local'],
  ['100.64.1.2', 'cgnat'],
  ['0.1.2.3', 'unspecified'],
  ['224.0.0.251', 'multicast'],
  ['198.18.0.7', 'reserved'],
  ['8.8.8.8', 'public'],
];

/** A public IPv4 used where a form needs a second one (the Teredo server). */
const PUBLIC_V4 = v4('65.54.227.120');

interface Form {
  name: string;
  build(ip: Bytes): Bytes;
  /** What the address is when the IPv4 it carries is public. */
  whenPublic: AddressClass;
  /**
   * The local-use NAT64 prefix does not say where its IPv4 address sits (the operator
   * picks the prefix length), so every position is judged: the address is then named
   * by the most dangerous candidate, which may be another than the target (never a milder one).
   */
  ambiguous?: boolean;
}

/** Most dangerous first, as the policy names an address that carries several. */
const SEVERITY: AddressClass[] = [
  'metadata',
  'loopback',
  'private',
  'link-local',
  'cgnat',
  'multicast',
  'reserved',
  'unspecified',
  'public',
];

const FORMS: Form[] = [
  { name: 'IPv4-mapped ::ffff:0:0/96', build: (ip) => [...Array(10).fill(0), 0xff, 0xff, ...ip], whenPublic: 'public' },
  { name: 'IPv4-compatible ::/96', build: (ip) => [...Array(12).fill(0), ...ip], whenPublic: 'reserved' },
  { name: 'IPv4-translated ::ffff:0:0:0/96', build: (ip) => [...Array(8).fill(0), 0xff, 0xff, 0, 0, ...ip], whenPublic: 'reserved' },
  { name: 'NAT64 64:ff9b::/96', build: (ip) => [0, 0x64, 0xff, 0x9b, ...Array(8).fill(0), ...ip], whenPublic: 'public' },
  // RFC 8215's local-use prefix, with the IPv4 where RFC 6052 puts it for each prefix length an operator may pick.
  {
    name: 'NAT64 local 64:ff9b:1::/96',
    build: (ip) => [0, 0x64, 0xff, 0x9b, 0, 1, ...Array(6).fill(0), ...ip],
    whenPublic: 'reserved',
    ambiguous: true,
  },
  {
    name: 'NAT64 local 64:ff9b:1::/64',
    build: (ip) => [0, 0x64, 0xff, 0x9b, 0, 1, 0, 0, 0, ...ip, 0, 0, 0],
    whenPublic: 'reserved',
    ambiguous: true,
  },
  {
    name: 'NAT64 local 64:ff9b:1:xx00::/56',
    build: (ip) => [0, 0x64, 0xff, 0x9b, 0, 1, 0xab, ip[0]!, 0, ip[1]!, ip[2]!, ip[3]!, 0, 0, 0, 0],
    whenPublic: 'reserved',
    ambiguous: true,
  },
  {
    name: 'NAT64 local 64:ff9b:1::/48',
    build: (ip) => [0, 0x64, 0xff, 0x9b, 0, 1, ip[0]!, ip[1]!, 0, ip[2]!, ip[3]!, 0, 0, 0, 0, 0],
    whenPublic: 'reserved',
    ambiguous: true,
  },
  { name: '6to4 2002::/16', build: (ip) => [0x20, 0x02, ...ip, 0, 7, ...Array(7).fill(0), 1], whenPublic: 'public' },
  // Teredo: the server's IPv4 in bits 32–63, the client's (where packets go) in the last 32 bits, inverted.
  {
    name: 'Teredo 2001::/32 (client)',
    build: (ip) => [0x20, 0x01, 0, 0, ...PUBLIC_V4, 0x80, 0, 0xfb, 0xf5, ...ip.map((b) => b ^ 0xff)],
    whenPublic: 'public',
  },
  {
    name: 'Teredo 2001::/32 (server)',
    build: (ip) => [0x20, 0x01, 0, 0, ...ip, 0x80, 0, 0xfb, 0xf5, ...PUBLIC_V4.map((b) => b ^ 0xff)],
    whenPublic: 'public',
  },
  // ISATAP (RFC 5214): the IPv4 in the interface identifier, behind any prefix.
  { name: 'ISATAP ::0:5efe:a.b.c.d', build: (ip) => [0x26, 0x00, 0x1f, 0x18, 0, 0, 0, 0, 0, 0, 0x5e, 0xfe, ...ip], whenPublic: 'public' },
  { name: 'ISATAP ::200:5efe:a.b.c.d', build: (ip) => [0x26, 0x00, 0x1f, 0x18, 0, 0, 0, 0, 2, 0, 0x5e, 0xfe, ...ip], whenPublic: 'public' },
];

const groupsOf = (bytes: Bytes) => Array.from({ length: 8 }, (_, i) => be16(bytes, i * 2));

/** RFC 5952: lower case, no leading zeros, the longest run of two or more zero groups as "::". */
function compressed(groups: number[], tail = 8): string {
  const hex = groups.slice(0, tail).map((g) => g.toString(16));
  let best = { at: -1, length: 1 };
  for (let i = 0; i < hex.length;) {
    if (hex[i] !== '0') {
      i += 1;
      continue;
    }
    let j = i;
    while (j < hex.length && hex[j] === '0') j += 1;
    if (j - i > best.length) best = { at: i, length: j - i };
    i = j;
  }
  if (best.at < 0) return hex.join(':');
  const head = hex.slice(0, best.at).join(':');
  const rest = hex.slice(best.at + best.length).join(':');
  return `${head}::${rest}`;
}

function spellings(bytes: Bytes) {
  const groups = groupsOf(bytes);
  const quad = bytes.slice(12).join('.');
  const withQuad = (head: string) => (head.endsWith(':') ? `${head}${quad}` : `${head}:${quad}`);
  return {
    compressed: compressed(groups),
    expanded: groups.map((g) => g.toString(16).padStart(4, '0')).join(':'),
    'expanded, no leading zeros': groups.map((g) => g.toString(16)).join(':'),
    'upper case': compressed(groups).toUpperCase(),
    'leading zeros': compressed(groups)
      .split(':')
      .map((g) => (g === '' ? g : g.padStart(4, '0')))
      .join(':'),
    'dotted quad': withQuad(compressed(groups, 6)),
    'dotted quad, expanded': withQuad(
      groups
        .slice(0, 6)
        .map((g) => g.toString(16).padStart(4, '0'))
        .join(':'),
    ),
    'dotted quad, upper case': withQuad(compressed(groups, 6)).toUpperCase(),
  };
}

const CASES = TARGETS.flatMap(([target, targetClass]) =>
  FORMS.map((form) => {
    const expected: AddressClass = targetClass === 'public' ? form.whenPublic : targetClass;
    return { target, form: form.name, bytes: form.build(v4(target)), expected, ambiguous: form.ambiguous === true };
  }),
);

const policy = { allowPrivate: false, allowedCidrs: [] };

describe('IPv6 forms carrying an IPv4 address', () => {
  it.each(CASES.map((c) => [`${c.form} of ${c.target}`, c] as const))('%s: every spelling is judged as what it carries', (_, c) => {
    for (const [how, text] of Object.entries(spellings(c.bytes))) {
      for (const written of [text, `${text}%eth0`]) {
        const kind = classifyAddress(written);
        if (c.ambiguous && c.expected !== 'metadata')
          expect(SEVERITY.indexOf(kind), `${how}: ${written} is ${kind}`).toBeLessThanOrEqual(SEVERITY.indexOf(c.expected));
        else expect(kind, `${how}: ${written}`).toBe(c.expected);
        if (c.expected === 'public') expect(refusal(written, policy), written).toBeNull();
        else expect(refusal(written, policy), written).toMatch(new RegExp(`\\(${kind} address\\)`));
      }
    }
  });

  it.each(CASES.filter((c) => c.expected !== 'public').map((c) => [`${c.form} of ${c.target}`, c] as const))(
    '%s: refused at registration, bracketed in a URL, in every spelling',
    async (_, c) => {
      for (const [how, text] of Object.entries(spellings(c.bytes))) {
        const url = `http://[${text}]:8080/hook`;
        expect(await policyRefusal(url, policy), `${how}: ${url}`).toMatch(/address\)/);
      }
    },
  );

  it.each(CASES.filter((c) => c.expected !== 'public').map((c) => [`${c.form} of ${c.target}`, c] as const))(
    '%s: refused at connect time when a host name resolves to it',
    async (_, c) => {
      const address = spellings(c.bytes).compressed!;
      const resolve = async () => [{ address, family: 6 }];
      expect(await policyRefusal('http://hooks.example.test/in', policy, resolve)).toMatch(
        new RegExp(`resolves to ${address.replace(/[.]/g, '\\.')}`),
      );
      const result = await send(
        'http://hooks.example.test:9/in',
        { id: 'msg_1', body: '{}', secrets: ['whsec_dGVzdHNlY3JldHRlc3RzZWNyZXQ='] },
        policy,
        5_000,
        resolve,
      );
      expect(result.refused, result.error ?? '').toBe(true);
      expect(result.error).toMatch(/address\)/);
    },
  );

  it('the examples of the review are refused', async () => {
    for (const host of ['[::7f00:1]', '[::ffff:0:7f00:1]', '[2002:7f00:1::]', '[::a9fe:a9fe]', '[64:ff9b:1::a9fe:a9fe]']) {
      expect(await policyRefusal(`http://${host}/hook`, policy), host).not.toBeNull();
    }
  });

  it('a dotted quad with leading zeros, or anything that is not an address, is refused rather than guessed at', () => {
    for (const text of [
      '::ffff:127.000.000.001',
      '::ffff:0177.0.0.1',
      '1.2.3',
      '::ffff:1.2.3.4.5',
      'fe80::1%',
      '[::1]',
      '1::2::3',
      '12345::1',
      'g::1',
      '',
    ]) {
      expect(classifyAddress(text), text).toBe('reserved');
    }
  });
});

describe('other special-purpose IPv6 ranges (IANA registry)', () => {
  it.each([
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['100::1', 'reserved'], // discard-only
    ['2001:2::1', 'reserved'], // benchmarking
    ['2001:10::1', 'reserved'], // ORCHID (deprecated)
    ['2001:db8::1', 'reserved'], // documentation
    ['3fff::1', 'reserved'], // documentation (RFC 9637)
    ['5f00::1', 'reserved'], // SRv6 SIDs
    ['fec0::1', 'private'], // site-local (deprecated)
    ['fd00:ec2::254', 'metadata'], // AWS
    ['fd20:ce::254', 'metadata'], // Google Cloud
    ['4000::1', 'reserved'], // outside 2000::/3: not assigned
    ['2001:4860:4860::8888', 'public'],
    ['2001:1::1', 'public'], // PCP anycast: globally reachable
    ['2001:20::1', 'public'], // ORCHIDv2: globally reachable
  ] as const)('%s is %s', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });
});

describe('allow-lists', () => {
  it('an IPv4 CIDR also allows the IPv4-mapped spelling of its addresses, and nothing else that carries them', () => {
    const allowed = { allowPrivate: false, allowedCidrs: ['127.0.0.1/32'] };
    expect(refusal('::ffff:7f00:1', allowed)).toBeNull();
    expect(refusal('::ffff:127.0.0.1', allowed)).toBeNull();
    expect(refusal('::7f00:1', allowed)).not.toBeNull();
    expect(refusal('2002:7f00:1::', allowed)).not.toBeNull();
  });

  it.each([
    ['64:ff9b::/96', '64:ff9b::a9fe:a9fe'],
    ['64:ff9b::/96', '64:ff9b::7f00:1'],
    ['2002::/16', '2002:a9fe:a9fe::'],
    ['2000::/3', '2001:0:a9fe:a9fe::1'],
    ['2000::/3', '2001:0:4136:e378:8000:63bf:5601:5601'], // Teredo client 169.254.169.254 stored inverted
    ['64:ff9b:1::/48', '64:ff9b:1::a9fe:a9fe'],
  ])('an IPv6 CIDR (%s) does not admit loopback or metadata carried inside it (%s)', (cidr, address) => {
    expect(refusal(address, { allowPrivate: false, allowedCidrs: [cidr] })).toMatch(/metadata|loopback/);
  });

  it('an IPv6 CIDR still admits private receivers behind it, and the carried address can be listed itself', () => {
    expect(refusal('64:ff9b::a00:5', { allowPrivate: false, allowedCidrs: ['64:ff9b::/96'] })).toBeNull(); // 10.0.0.5 through NAT64
    expect(refusal('64:ff9b::7f00:1', { allowPrivate: false, allowedCidrs: ['64:ff9b::/96', '127.0.0.1/32'] })).toBeNull();
  });

  it.each([
    '64:ff9b:1:1::a9fe:a9fe',
    '64:ff9b:1:0:0:ffff:a9fe:a9fe',
    '64:ff9b:1:a9fe:a9:fe00:0:1',
    '64:ff9b:1:ffa9:fe:a9fe::1',
    '64:ff9b:1:ffff:ffa9:fea9:fe00:0',
  ])('NAT64 local-use %s carries metadata at some layout and is refused even with WEBHOOK_ALLOW_PRIVATE', (address) => {
    expect(refusal(address, { allowPrivate: true, allowedCidrs: [] })).toMatch(/metadata/);
  });

  it.each([
    '10.0.0.0/8/99',
    '10.0.0.0/',
    '10.0.0.0/33',
    '10.0.0.0/08',
    '10.0.0.0/8 ',
    '10.0.0.1/8',
    '::/129',
    'fe80::/10%eth0',
    '10.0.0.0/-1',
    '10.0.0.0/+8',
    '010.0.0.0/8',
    'example.com/8',
  ])('%j is refused, not read as something else', (cidr) => {
    expect(() => parseCidrs([cidr])).toThrow(/CIDR/);
  });

  it.each(['10.0.0.0/8', '127.0.0.1', '127.0.0.1/32', '::1/128', '2001:db8::/32', 'FD00::/8', '::ffff:10.0.0.0/104'])(
    '%j is a CIDR',
    (cidr) => {
      expect(() => parseCidrs([cidr])).not.toThrow();
    },
  );
});
