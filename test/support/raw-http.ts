/**
 * Requests that send exactly the headers a test gives, Host included (fetch does not let a caller
 * choose Host), to a loopback port, over HTTP/1.1 or cleartext HTTP/2.
 */
import http from 'node:http';
import http2 from 'node:http2';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One HTTP/1.1 request to 127.0.0.1 on its own connection; an answer must come within 5 s. */
export function request(port: number, path: string, headers: Record<string, string>, method = 'GET', body?: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method, headers, setHost: false, agent: false, timeout: 5_000 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 5 s')));
    req.on('error', reject);
    req.end(body);
  });
}

/** One cleartext HTTP/2 request (prior knowledge) to 127.0.0.1 on its own connection. */
export function h2Request(port: number, headers: http2.OutgoingHttpHeaders): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(`http://127.0.0.1:${port}`);
    session.on('error', reject);
    const stream = session.request(headers);
    let status = 0;
    let responseHeaders: Record<string, string | string[] | undefined> = {};
    let text = '';
    stream.setEncoding('utf8');
    stream.on('response', (h) => {
      status = Number(h[':status']);
      responseHeaders = h as Record<string, string | string[] | undefined>;
    });
    stream.on('data', (chunk: string) => (text += chunk));
    stream.on('error', (error) => {
      session.close();
      reject(error);
    });
    stream.on('end', () => {
      session.close();
      resolve({ status, headers: responseHeaders, body: text });
    });
    stream.end();
  });
}

/**
 * A POST whose body is sent in part, the rest held back until `finish`: what a slow or stalling
 * client does. Without Content-Length among `headers` the body goes chunked. The answer must come
 * within `withinMs`.
 */
export function unfinishedPost(port: number, path: string, headers: Record<string, string>, first: string, withinMs: number) {
  const req = http.request({ host: '127.0.0.1', port, method: 'POST', path, headers, agent: false });
  const answer = new Promise<{ status: number; headers: Headers; text: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${withinMs} ms while the body was unfinished`)), withinMs);
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        clearTimeout(timer);
        const received = new Headers();
        for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) received.set(name, Array.isArray(value) ? value.join(', ') : value);
        resolve({ status: res.statusCode ?? 0, headers: received, text });
      });
      res.on('error', reject);
    });
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
  req.flushHeaders();
  req.write(first);
  return { answer, finish: (rest: string) => req.end(rest), destroy: () => req.destroy() };
}
