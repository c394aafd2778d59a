/**
 * HPACK (RFC 7541), the header compression of HTTP/2, as much as one client call needs: the
 * request's headers are written as literals that the server never indexes, and the answer's
 * headers are read whatever way the server wrote them (static and dynamic table, Huffman codes).
 * Header names and values are bytes; they are read as latin1, the way node:http2 reads them.
 */

/** A header block could not be read: the peer broke the compression (a connection error). */
export class CompressionError extends Error {}

/** RFC 7541 Appendix A. */
const STATIC_TABLE: readonly (readonly [string, string])[] = [
  [':authority', ''],
  [':method', 'GET'],
  [':method', 'POST'],
  [':path', '/'],
  [':path', '/index.html'],
  [':scheme', 'http'],
  [':scheme', 'https'],
  [':status', '200'],
  [':status', '204'],
  [':status', '206'],
  [':status', '304'],
  [':status', '400'],
  [':status', '404'],
  [':status', '500'],
  ['accept-charset', ''],
  ['accept-encoding', 'gzip, deflate'],
  ['accept-language', ''],
  ['accept-ranges', ''],
  ['accept', ''],
  ['access-control-allow-origin', ''],
  ['age', ''],
  ['allow', ''],
  ['authorization', ''],
  ['cache-control', ''],
  ['content-disposition', ''],
  ['content-encoding', ''],
  ['content-language', ''],
  ['content-length', ''],
  ['content-location', ''],
  ['content-range', ''],
  ['content-type', ''],
  ['cookie', ''],
  ['date', ''],
  ['etag', ''],
  ['expect', ''],
  ['expires', ''],
  ['from', ''],
  ['host', ''],
  ['if-match', ''],
  ['if-modified-since', ''],
  ['if-none-match', ''],
  ['if-range', ''],
  ['if-unmodified-since', ''],
  ['last-modified', ''],
  ['link', ''],
  ['location', ''],
  ['max-forwards', ''],
  ['proxy-authenticate', ''],
  ['proxy-authorization', ''],
  ['range', ''],
  ['referer', ''],
  ['refresh', ''],
  ['retry-after', ''],
  ['server', ''],
  ['set-cookie', ''],
  ['strict-transport-security', ''],
  ['transfer-encoding', ''],
  ['user-agent', ''],
  ['vary', ''],
  ['via', ''],
  ['www-authenticate', ''],
];

/**
 * The Huffman code's lengths in bits (RFC 7541 Appendix B), one letter per symbol, 'a' standing
 * for 5 bits, 'b' for 6 and so on to 'z' for 30. The code is canonical: codes are handed out in
 * order of length, then of symbol, so the lengths alone define it.
 */
const CODE_LENGTHS = [
  'isxxxxxxxtzxxzxxxxxxxxzxxxxxxxxx', // 0 to 31, control characters
  'bffhibdgffdgdbbbaaabbbbbbbcdkbhf', // 32 to 63, space to ?
  'ibccccccccccccccccccccccdcdioijb', // 64 to 95, @ to _
  'kabababbbaccbbbabcbaabccccckgjix', // 96 to 127, ` to DEL
  'prpprrrsrssssststtrstssssqrsrsst', // 128 to 159
  'rqprrssqsrrtqrssqqrqsrssprrrsrrs', // 160 to 191
  'vvporsruvvvwwvtuoqvwwvwtqqvvxwww', // 192 to 223
  'ptpqrqqsrruuttvsvwvvwwwwwxwwwwwv', // 224 to 255
  'z', // 256, EOS
].join('');
const EOS = 256;

/**
 * The Huffman decoder as a state machine read four bits at a time. A state is a node of the code
 * tree (0 is the root); for each state and nibble, `steps` holds the next state, the symbol
 * completed on the way plus one (0 for none: codes are 5 bits or more, so a nibble completes one
 * at most), and whether the nibble ran into EOS. `padding` marks the states a string may end in:
 * the root, or up to 7 one-bits from it (the start of EOS, RFC 7541 5.2).
 */
const huffman = (() => {
  const lengths = Array.from(CODE_LENGTHS, (letter) => letter.charCodeAt(0) - 92);
  const symbols = lengths.map((_, symbol) => symbol).sort((a, b) => lengths[a]! - lengths[b]! || a - b);
  // The tree: children[2 * node + bit] is a node (> 0) or a symbol as -(symbol + 1).
  const children: number[] = [0, 0];
  const depth = [0];
  const ones = [true];
  let code = 0;
  let previous = lengths[symbols[0]!]!;
  for (const [i, symbol] of symbols.entries()) {
    const length = lengths[symbol]!;
    if (i > 0) code = (code + 1) * 2 ** (length - previous);
    previous = length;
    let node = 0;
    for (let bit = length - 1; bit >= 0; bit--) {
      const slot = 2 * node + (Math.floor(code / 2 ** bit) % 2);
      if (bit === 0) {
        children[slot] = -(symbol + 1);
      } else {
        if (children[slot] === 0) {
          children[slot] = depth.length;
          depth.push(depth[node]! + 1);
          ones.push(ones[node]! && slot % 2 === 1);
          children.push(0, 0);
        }
        node = children[slot]!;
      }
    }
  }
  const states = depth.length;
  const steps = new Int32Array(states * 16);
  for (let state = 0; state < states; state++) {
    for (let nibble = 0; nibble < 16; nibble++) {
      let node = state;
      let emitted = 0;
      let eos = 0;
      for (let bit = 3; bit >= 0; bit--) {
        const next = children[2 * node + ((nibble >> bit) & 1)]!;
        if (next > 0) {
          node = next;
        } else {
          if (-next - 1 === EOS) eos = 1;
          emitted = -next;
          node = 0;
        }
      }
      steps[state * 16 + nibble] = node | (emitted << 9) | (eos << 18);
    }
  }
  const padding = depth.map((d, node) => node === 0 || (ones[node]! && d <= 7));
  return { steps, padding };
})();

/**
 * Where Huffman strings are decoded before they become a string: one string's symbols, built as
 * bytes and read once, cost less than a string grown symbol by symbol. It grows with the longest
 * string seen (a byte holds at most one symbol and a half: codes are 5 bits or more).
 */
let decoded = Buffer.allocUnsafe(256);

/** The Huffman-coded string in `block` from `start` to `end`. */
function huffmanDecode(block: Uint8Array, start: number, end: number): string {
  const { steps, padding } = huffman;
  if (decoded.length < 2 * (end - start)) decoded = Buffer.allocUnsafe(2 * (end - start));
  let length = 0;
  let state = 0;
  for (let at = start; at < end; at++) {
    // Two nibbles per byte, high first.
    const high = steps[state * 16 + (block[at]! >> 4)]!;
    const low = steps[(high & 511) * 16 + (block[at]! & 15)]!;
    if ((high | low) & (1 << 18)) throw new CompressionError('a Huffman string holds the end-of-string code');
    // The symbol a nibble completed, plus one (0 for none).
    const first = (high >> 9) & 511;
    const second = (low >> 9) & 511;
    if (first) decoded[length++] = first - 1;
    if (second) decoded[length++] = second - 1;
    state = low & 511;
  }
  if (!padding[state]) throw new CompressionError('a Huffman string is padded wrongly');
  return decoded.toString('latin1', 0, length);
}

/** Writes a string's length with a 7-bit prefix (RFC 7541 5.1, no Huffman bit), then its bytes; returns the next offset. */
function writeString(text: string, out: Buffer, at: number): number {
  let length = text.length;
  if (length < 127) {
    out[at++] = length;
  } else {
    out[at++] = 127;
    for (length -= 127; length >= 128; length = Math.floor(length / 128)) out[at++] = (length % 128) + 128;
    out[at++] = length;
  }
  return at + out.write(text, at, 'latin1');
}

/**
 * A header block of literals the server must never index (RFC 7541 6.2.3): nothing this client
 * sends lands in the server's table, so no state is shared between the two ends beyond one block.
 * `headers` are [name, value] pairs, pseudo-headers first.
 */
export function encodeHeaders(headers: readonly (readonly [string, string])[]): Buffer {
  // Per field: its prefix byte, and each string's bytes with up to 5 bytes of length.
  let size = 0;
  for (const [name, value] of headers) size += 11 + name.length + value.length;
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (const [name, value] of headers) {
    out[at++] = 0x10;
    at = writeString(value, out, writeString(name, out, at));
  }
  return out.subarray(0, at);
}

/** The largest dynamic table this client allows: the default of SETTINGS_HEADER_TABLE_SIZE. */
const TABLE_LIMIT = 4096;

/** Reads the header blocks of one connection, in order: the dynamic table carries from block to block. */
export class HpackDecoder {
  /** Newest first. */
  readonly #table: [string, string][] = [];
  #size = 0;
  #maxSize = TABLE_LIMIT;

  /** The block's headers as [name, value] pairs, in the order sent. */
  decode(block: Buffer): [string, string][] {
    const headers: [string, string][] = [];
    let at = 0;
    const integer = (prefixBits: number): number => {
      if (at >= block.length) throw new CompressionError('a header block ends inside an integer');
      const max = 2 ** prefixBits - 1;
      let value = block[at++]! & max;
      if (value < max) return value;
      for (let scale = 1; ; scale *= 128) {
        if (at >= block.length || scale > 2 ** 28) throw new CompressionError('a header block holds a broken integer');
        const byte = block[at++]!;
        value += (byte & 127) * scale;
        if (byte < 128) return value;
      }
    };
    const string = (): string => {
      const huffmanCoded = (block[at]! & 0x80) !== 0;
      const length = integer(7);
      if (at + length > block.length) throw new CompressionError('a header block ends inside a string');
      const start = at;
      at += length;
      return huffmanCoded ? huffmanDecode(block, start, at) : block.toString('latin1', start, at);
    };
    while (at < block.length) {
      const first = block[at]!;
      if (first & 0x80) {
        headers.push(this.#entry(integer(7)));
      } else if (first & 0x40 || (first & 0xe0) === 0) {
        // Literal with incremental indexing (6-bit name index), or without / never indexed (4-bit).
        const indexed = (first & 0x40) !== 0;
        const nameIndex = integer(indexed ? 6 : 4);
        const name = nameIndex === 0 ? string() : this.#entry(nameIndex)[0];
        const header: [string, string] = [name, string()];
        if (indexed) this.#add(header);
        headers.push(header);
      } else {
        // First bits 001: a dynamic table size update, its size a 5-bit-prefix integer.
        const size = integer(5);
        if (size > TABLE_LIMIT) throw new CompressionError(`the dynamic table may not grow past ${TABLE_LIMIT} bytes`);
        this.#maxSize = size;
        this.#evict(0);
      }
    }
    return headers;
  }

  #entry(index: number): [string, string] {
    if (index === 0) throw new CompressionError('a header block names index 0');
    const entry = index <= STATIC_TABLE.length ? STATIC_TABLE[index - 1] : this.#table[index - STATIC_TABLE.length - 1];
    if (!entry) throw new CompressionError(`a header block names index ${index}, which is not in the table`);
    return [entry[0], entry[1]];
  }

  #add(header: [string, string]): void {
    const size = header[0].length + header[1].length + 32;
    this.#evict(size);
    // An entry larger than the whole table empties it and is not added (RFC 7541 4.4).
    if (size > this.#maxSize) return;
    this.#table.unshift(header);
    this.#size += size;
  }

  /** Drops the oldest entries until `room` more bytes fit. */
  #evict(room: number): void {
    while (this.#size + room > this.#maxSize && this.#table.length > 0) {
      const [name, value] = this.#table.pop()!;
      this.#size -= name.length + value.length + 32;
    }
  }
}
