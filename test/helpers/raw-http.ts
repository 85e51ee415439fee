// Raw HTTP over a real socket, for requests no well-behaved client sends (a body longer than its
// Content-Length, a connection dropped mid-body or mid-download), and the process's resources
// they must not leave behind.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';

export interface RawResponse {
  /** Everything the server wrote before it closed the connection (or before we did). */
  text: string;
  statusCode: number | null;
  /** True when the server never closed the connection and we gave up after `timeoutMs`. */
  timedOut: boolean;
  /** The JSON body of the first response, when it has one. */
  json(): any;
}

export interface RawRequestOptions {
  /** Close our side after this many response bytes (a client giving up mid-download). */
  abortAfterBytes?: number;
  /** Close our side right after writing (a client giving up before any answer). */
  abortAfterWrite?: boolean;
  /** Give up waiting for the server after this long (ms). */
  timeoutMs?: number;
}

/** Writes `request` as-is to 127.0.0.1:`port` and collects what comes back until the connection closes. */
export function rawRequest(port: number, request: string | Buffer | Array<string | Buffer>, options: RawRequestOptions = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    let received = 0;
    let timedOut = false;
    const done = () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('latin1');
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text);
      resolve({
        text,
        statusCode: status ? Number(status[1]) : null,
        timedOut,
        json: () => JSON.parse(responseBody(text)),
      });
    };
    const timer = setTimeout(() => {
      timedOut = true;
      socket.destroy();
    }, options.timeoutMs ?? 10_000);
    socket.on('connect', () => {
      for (const part of Array.isArray(request) ? request : [request]) socket.write(part);
      if (options.abortAfterWrite) socket.destroy();
    });
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      received += chunk.length;
      if (options.abortAfterBytes !== undefined && received >= options.abortAfterBytes) socket.destroy();
    });
    socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' || error.code === 'EPIPE' ? undefined : reject(error)));
    socket.on('close', done);
  });
}

/** The body of the first response in `text` (Content-Length or chunked). */
function responseBody(text: string): string {
  const end = text.indexOf('\r\n\r\n');
  const head = text.slice(0, end);
  const rest = text.slice(end + 4);
  const length = /\r\ncontent-length: *(\d+)/i.exec(head);
  if (length) return Buffer.from(rest, 'latin1').subarray(0, Number(length[1])).toString('utf8');
  if (/\r\ntransfer-encoding: *chunked/i.test(head)) {
    let body = '';
    let at = 0;
    for (;;) {
      const lineEnd = rest.indexOf('\r\n', at);
      const size = parseInt(rest.slice(at, lineEnd), 16);
      if (!size) break;
      body += rest.slice(lineEnd + 2, lineEnd + 2 + size);
      at = lineEnd + 2 + size + 2;
    }
    return Buffer.from(body, 'latin1').toString('utf8');
  }
  return Buffer.from(rest, 'latin1').toString('utf8');
}

/**
 * One request on a connection of its own that closes after the answer (fetch would keep it
 * alive, and an idle keep-alive connection counts as an open file for over a minute). An answer
 * that comes before the whole body is sent (a 413) is read all the same.
 */
export function requestOnce(url: string, init: { method: string; headers: Record<string, string>; body: string }): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: init.method, headers: { ...init.headers, connection: 'close' }, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    // The server may stop reading once it has answered; the answer is what counts.
    request.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error)));
    request.end(init.body);
  });
}

/** Request text of `method url` with `headers` and a body (sent as given; Content-Length only if the caller puts it in headers). */
export function httpRequest(method: string, url: string, headers: Record<string, string | number>, body: string | Buffer = ''): Buffer {
  const { pathname, search, host } = new URL(url);
  const lines = [`${method} ${pathname}${search} HTTP/1.1`, `Host: ${host}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), Buffer.isBuffer(body) ? body : Buffer.from(body)]);
}

/**
 * Open file descriptors of this process (the app runs in it), leaving out TCP connections to
 * `exceptRemotePorts` (the database's: its pools grow and shrink by themselves).
 */
export function openFileCount(exceptRemotePorts: number[] = []): number {
  const fds = readdirSync('/proc/self/fd');
  if (exceptRemotePorts.length === 0) return fds.length;
  const excluded = socketInodesTo(exceptRemotePorts);
  return fds.filter((fd) => {
    try {
      const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/self/fd/${fd}`))?.[1];
      return !(inode && excluded.has(inode));
    } catch {
      return false; // closed meanwhile (the directory listing's own descriptor, for one)
    }
  }).length;
}

/** Inodes of the TCP sockets connected to one of `ports` (from /proc/net/tcp and tcp6). */
function socketInodesTo(ports: number[]): Set<string> {
  const inodes = new Set<string>();
  for (const table of ['/proc/self/net/tcp', '/proc/self/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const columns = line.trim().split(/\s+/);
      const remotePort = parseInt(columns[2]?.split(':')[1] ?? '', 16);
      if (ports.includes(remotePort) && columns[9]) inodes.add(columns[9]);
    }
  }
  return inodes;
}

/**
 * Waits until `check` passes (resources are released asynchronously: a socket closes, then the
 * handler unwinds), failing with its last error after `timeoutMs`.
 */
export async function eventually(check: () => void | Promise<void>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
