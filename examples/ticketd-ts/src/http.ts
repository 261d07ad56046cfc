// The HTTP side of the service: GET /healthz and POST /sectors/{id}/reservations.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type pg from 'pg';
import type { Redis } from 'ioredis';
import { LockTimeoutError, type Log } from './lock.js';
import { DuplicateError, SoldOutError, type Store } from './store.js';

/** What the handlers use. */
export interface Deps {
  store: Store;
  pool: pg.Pool;
  redis: Redis;
  log: Log;
}

/** Sends v as the JSON body of a response with status. */
function send(res: ServerResponse, status: number, v: unknown): void {
  const body = JSON.stringify(v);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

/** Reads a request body of at most limit bytes as JSON; null if it is not. */
async function readJSON(req: IncomingMessage, limit = 1 << 16): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      return null;
    }
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return null;
  }
}

/** The body of a reservation. */
interface Reservation {
  request_id: string;
  contender?: unknown;
}

/** Reports whether v is a reservation body with a request id. */
function isReservation(v: unknown): v is Reservation {
  const id = (v as { request_id?: unknown } | null)?.request_id;
  return typeof id === 'string' && id !== '';
}

/** Returns the request handler. */
export function routes({ store, pool, redis, log }: Deps): RequestListener {
  // 200 while both PostgreSQL and Redis answer, else 503.
  const healthz = async (res: ServerResponse): Promise<void> => {
    try {
      if (redis.status !== 'ready') {
        throw new Error(`redis is ${redis.status}`);
      }
      await Promise.all([pool.query('SELECT 1'), redis.ping()]);
      send(res, 200, { status: 'ok' });
    } catch (err) {
      send(res, 503, { error: (err as Error).message });
    }
  };
  // 201 {"seat": N}, 409 sold_out or duplicate, 503 lock_timeout, 400 for
  // a malformed request, 500 for anything else.
  const reserve = async (req: IncomingMessage, res: ServerResponse, id: string): Promise<void> => {
    if (!/^[0-9]+$/.test(id)) {
      send(res, 400, { error: 'bad_request: sector id is not a number' });
      return;
    }
    const body = await readJSON(req);
    if (!isReservation(body)) {
      send(res, 400, { error: 'bad_request: want JSON with a request_id' });
      return;
    }
    try {
      const seat = await store.reserve(Number(id), body.request_id);
      send(res, 201, { seat });
    } catch (err) {
      if (err instanceof SoldOutError) {
        send(res, 409, { error: 'sold_out' });
      } else if (err instanceof DuplicateError) {
        send(res, 409, { error: 'duplicate' });
      } else if (err instanceof LockTimeoutError) {
        send(res, 503, { error: 'lock_timeout' });
      } else {
        const msg = (err as Error).message;
        log('reservation failed', { request_id: body.request_id, contender: body.contender, err: msg });
        send(res, 500, { error: msg });
      }
    }
  };
  return (req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const m = /^\/sectors\/([^/]+)\/reservations$/.exec(path);
    let done: Promise<void>;
    if (path === '/healthz' && req.method === 'GET') {
      done = healthz(res);
    } else if (m && req.method === 'POST') {
      done = reserve(req, res, m[1]);
    } else if (path === '/healthz' || m) {
      send(res, 405, { error: 'method_not_allowed' });
      return;
    } else {
      send(res, 404, { error: 'not_found' });
      return;
    }
    done.catch((err: Error) => {
      log('request failed', { err: err.message });
      if (!res.headersSent) {
        send(res, 500, { error: err.message });
      }
    });
  };
}
