// The close codes of a WebSocket in words (RFC 6455 7.4.1 and IANA's registry), as the check's
// messages say them and the dashboard shows them: written once for both. Plain TypeScript.

const CLOSE_WORDS: Readonly<Record<number, string>> = {
  1000: 'normal closure',
  1001: 'going away',
  1002: 'protocol error',
  1003: 'unsupported data',
  1005: 'no close code',
  1006: 'dropped without a close frame',
  1007: 'invalid payload data',
  1008: 'policy violation',
  1009: 'message too big',
  1010: 'mandatory extension missing',
  1011: 'internal error',
  1012: 'service restart',
  1013: 'try again later',
  1014: 'bad gateway',
  1015: 'TLS handshake failure',
  3000: 'unauthorized',
  3003: 'forbidden',
  3008: 'timeout',
};

/** `1008 policy violation`, `4001 (the application's own code)`, `2999` for a code nothing names. */
export function closeCodeWords(code: number): string {
  const words =
    CLOSE_WORDS[code] ?? (code >= 4000 && code <= 4999 ? "(the application's own code)" : code >= 3000 && code <= 3999 ? '(a registered code)' : '');
  return words ? `${code} ${words}` : String(code);
}
