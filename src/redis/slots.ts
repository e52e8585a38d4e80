// Which Redis Cluster slot a key hashes to: CRC16 (XMODEM) of the key, or of
// its {hash tag} when it has one, modulo 16384. For `insights doctor`, which
// shows where the key layout of keys.ts puts things.

function crc16(text: string): number {
  let crc = 0;
  for (const byte of Buffer.from(text)) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i += 1) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

export function keySlot(key: string): number {
  const open = key.indexOf('{');
  const close = open === -1 ? -1 : key.indexOf('}', open + 1);
  const hashed = close > open + 1 ? key.slice(open + 1, close) : key;
  return crc16(hashed) % 16384;
}
