import { lookup as dnsLookup } from 'node:dns/promises';
import { request } from 'node:https';
import { isIP } from 'node:net';
import type { Duplex } from 'node:stream';
import { connect as tlsConnect } from 'node:tls';
import { isPublicAddress } from '../domain/destinations.ts';
import type { ClientMetadataFetcher } from '../domain/oauth/clients.ts';

/** A document is read within this time, whole (SPEC 4.4: fetched on every authorization request). */
const METADATA_TIMEOUT_MS = 5_000;
/** Client metadata is a few hundred bytes; more is not a metadata document. */
const METADATA_MAX_BYTES = 64 * 1024;

/** How the fetch reaches the network; tests replace both, so no packet leaves loopback. */
export interface MetadataNetwork {
  /** Every address of a host name. */
  resolve(host: string): Promise<string[]>;
  /** Opens a TLS connection to an address that was checked, naming the host for SNI and the certificate. */
  connect(target: { address: string; port: number; servername: string }): Duplex;
}

/**
 * Whether an address is on the public internet: the destination policy's rule (IPv6 standing for
 * IPv4, such as ::7f00:1 or ::ffff:7f00:1, is judged as that IPv4 address).
 */
export { isPublicAddress };

const systemNetwork: MetadataNetwork = {
  async resolve(host) {
    return (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address);
  },
  connect: ({ address, port, servername }) => tlsConnect({ host: address, port, servername, ALPNProtocols: ['http/1.1'] }),
};

/**
 * Fetches a Client ID Metadata Document safely: the host is resolved first and refused if any of
 * its addresses is not public; the connection goes to the address that was checked (a second DNS
 * answer cannot swap it); no redirect is followed; the body is bounded in size and time.
 */
export function createMetadataFetcher(network: MetadataNetwork = systemNetwork): ClientMetadataFetcher {
  return async (clientId) => {
    const url = new URL(clientId);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const addresses = isIP(host)
      ? [host]
      : await network.resolve(host).catch(() => {
          throw new Error(`the host ${host} could not be resolved`);
        });
    if (addresses.length === 0) throw new Error(`the host ${host} has no address`);
    const refused = addresses.find((a) => !isPublicAddress(a));
    if (refused) throw new Error(`the host ${host} resolves to ${refused}, which is not a public address`);
    const address = addresses[0]!;
    const port = Number(url.port || 443);

    return new Promise((resolve, reject) => {
      const req = request(
        {
          method: 'GET',
          host,
          port,
          path: url.pathname + url.search,
          headers: { accept: 'application/json', host: url.host },
          // No agent: an agent would open its own connection, resolving the name again.
          createConnection: () => network.connect({ address, port, servername: isIP(host) ? '' : host }),
          timeout: METADATA_TIMEOUT_MS,
        },
        (res) => {
          if (res.statusCode !== 200) {
            res.resume();
            reject(
              new Error(
                `it answered ${res.statusCode}${res.statusCode && res.statusCode >= 300 && res.statusCode < 400 ? ' (redirects are not followed)' : ''}`,
              ),
            );
            return;
          }
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > METADATA_MAX_BYTES) {
              req.destroy(new Error(`it is larger than ${METADATA_MAX_BYTES} bytes`));
              return;
            }
            chunks.push(chunk);
          });
          res.on('end', () => {
            try {
              resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
            } catch {
              reject(new Error('it is not JSON'));
            }
          });
          res.on('error', reject);
        },
      );
      const deadline = setTimeout(() => req.destroy(new Error(`it did not answer within ${METADATA_TIMEOUT_MS / 1000} s`)), METADATA_TIMEOUT_MS);
      req.on('timeout', () => req.destroy(new Error(`it did not answer within ${METADATA_TIMEOUT_MS / 1000} s`)));
      req.on('error', reject);
      req.on('close', () => clearTimeout(deadline));
      req.end();
    });
  };
}
