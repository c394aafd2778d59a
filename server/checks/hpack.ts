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
  [':authority', ''], [':method', 'GET'], [':method', 'POST'], [':path', '/'], [':path', '/index.html'], [':scheme', 'http'],
  [':scheme', 'https'], [':status', '200'], [':status', '204'], [':status', '206'], [':status', '304'], [':status', '400'],
  [':status', '404'], [':status', '500'], ['accept-charset', ''], ['accept-encoding', 'gzip, deflate'], ['accept-language', ''],
  ['accept-ranges', ''], ['accept', ''], ['access-control-allow-origin', ''], ['age', ''], ['allow', ''], ['authorization', ''],
  ['cache-control', ''], ['content-disposition', ''], ['content-encoding', ''], ['content-language', ''], ['content-length', ''],
  ['content-location', ''], ['content-range', ''], ['content-type', ''], ['cookie', ''], ['date', ''], ['etag', ''], ['expect', ''],
  ['expires', ''], ['from', ''], ['host', ''], ['if-match', ''], ['if-modified-since', ''], ['if-none-match', ''], ['if-range', ''],
  ['if-unmodified-since', ''], ['last-modified', ''], ['link', ''], ['location', ''], ['max-forwards', ''], ['proxy-authenticate', ''],
  ['proxy-authorization', ''], ['range', ''], ['referer', ''], ['refresh', ''], ['retry-after', ''], ['server', ''], ['set-cookie', ''],
  ['strict-transport-security', ''], ['transfer-encoding', ''], ['user-agent', ''], ['vary', ''], ['via', ''], ['www-authenticate', ''],
];

/**
 * The Huffman code's lengths (RFC 7541 Appendix B), symbols 0 to 256 (EOS), each as
 * 'a' + length - 5. The code is canonical: codes are handed out in order of length, then of
 * symbol, so the lengths alone define it.
 */
const CODE_LENGTHS =
  'isxxxxxxxtzxxzxxxxxxxxzxxxxxxxxxbffhibdgffdgdbbbaaabbbbbbbcdkbhfibccccccccccccccccccccccdcdioijbkabababbbaccbbbabcbaabccccckgjixprpprrrsrssssststtrstssssqrsrsstrqprrssqsrrtqrssqqrqsrssprrrsrrsvvporsruvvvwwvtuoqvwwvwtqqvvxwwwptpqrqqsrruuttvsvwvvwwwwwxwwwwwvz';
const EOS = 256;

/**
 * The canonical decoding tables: for each length, the first code of that length and where its
 * symbols start in `symbols` (all symbols in code order).
 */
const huffman = (() => {
  const lengths = Array.from(CODE_LENGTHS, (letter) => letter.charCodeAt(0) - 92);
  const symbols = lengths.map((_, symbol) => symbol).sort((a, b) => lengths[a]! - lengths[b]! || a - b);
  const firstCode = new Array<number>(31).fill(0);
  const firstIndex = new Array<number>(31).fill(0);
  const count = new Array<number>(31).fill(0);
  for (const length of lengths) count[length]!++;
  let code = 0;
  let index = 0;
  for (let length = 1; length <= 30; length++) {
    firstCode[length] = code;
    firstIndex[length] = index;
    code = (code + count[length]!) * 2;
    index += count[length]!;
  }
  return { symbols, firstCode, firstIndex, count };
})();

function huffmanDecode(bytes: Uint8Array): string {
  const { symbols, firstCode, firstIndex, count } = huffman;
  let out = '';
  let code = 0;
  let length = 0;
  for (const byte of bytes) {
    for (let bit = 7; bit >= 0; bit--) {
      code = code * 2 + ((byte >> bit) & 1);
      length++;
      const offset = code - firstCode[length]!;
      if (offset < count[length]!) {
        const symbol = symbols[firstIndex[length]! + offset]!;
        if (symbol === EOS) throw new CompressionError('a Huffman string holds the end-of-string code');
        out += String.fromCharCode(symbol);
        code = length = 0;
      } else if (length === 30) {
        throw new CompressionError('a Huffman string holds an unknown code');
      }
    }
  }
  // What is left must be padding: fewer than 8 bits, all ones (the start of EOS).
  if (length > 7 || code !== 2 ** length - 1) throw new CompressionError('a Huffman string is padded wrongly');
  return out;
}

/** Writes `value` with an N-bit prefix (RFC 7541 5.1); `flags` fills the first byte's other bits. */
function encodeInteger(value: number, prefixBits: number, flags: number, out: number[]): void {
  const max = 2 ** prefixBits - 1;
  if (value < max) {
    out.push(flags | value);
    return;
  }
  out.push(flags | max);
  value -= max;
  while (value >= 128) {
    out.push((value % 128) + 128);
    value = Math.floor(value / 128);
  }
  out.push(value);
}

function encodeString(text: string, out: number[]): void {
  const bytes = Buffer.from(text, 'latin1');
  encodeInteger(bytes.length, 7, 0, out);
  for (const byte of bytes) out.push(byte);
}

/**
 * A header block of literals the server must never index (RFC 7541 6.2.3): nothing this client
 * sends lands in the server's table, so no state is shared between the two ends beyond one block.
 * `headers` are [name, value] pairs, pseudo-headers first.
 */
export function encodeHeaders(headers: readonly (readonly [string, string])[]): Buffer {
  const out: number[] = [];
  for (const [name, value] of headers) {
    out.push(0x10);
    encodeString(name, out);
    encodeString(value, out);
  }
  return Buffer.from(out);
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
  decode(block: Uint8Array): [string, string][] {
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
      const bytes = block.subarray(at, (at += length));
      return huffmanCoded ? huffmanDecode(bytes) : Buffer.from(bytes).toString('latin1');
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
        // 001xxxxx: a dynamic table size update.
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
