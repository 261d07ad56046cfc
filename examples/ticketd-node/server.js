// ticketd-node: a small seat-reservation service for hammer to race, the
// same service as examples/ticketd in plain JavaScript. Several replicas
// sell the seats of one sector from PostgreSQL by one of four strategies
// (STRATEGY), optionally serialised by a Redis lock. See README.md.
import http from 'node:http';
import pg from 'pg';
import { createClient } from 'redis';
import { Locker, LockTimeoutError } from './lock.js';
import { DuplicateError, SoldOutError, Store } from './store.js';

/** Writes one log line to stderr. */
function log(msg, fields = {}) {
  console.error(JSON.stringify({ time: new Date().toISOString(), msg, ...fields }));
}

/** Reads the service's environment; throws on a missing or bad value. */
function loadConfig(env) {
  for (const name of ['PORT', 'REDIS_URL', 'PG_URL', 'STRATEGY']) {
    if (!env[name]) {
      throw new Error(`${name} is not set`);
    }
  }
  const schema = env.PG_SCHEMA ?? '';
  if (schema !== '' && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new Error(`PG_SCHEMA "${schema}": want a lower-case identifier`);
  }
  return {
    port: env.PORT,
    redisUrl: env.REDIS_URL,
    pgUrl: env.PG_URL,
    schema,
    keyPrefix: env.KEY_PREFIX ?? '',
    strategy: env.STRATEGY,
    lockTtlMs: millis(env, 'LOCK_TTL_MS', 10000),
    lockWaitMs: millis(env, 'LOCK_WAIT_MS', 30000),
  };
}

/** Reads a positive number of milliseconds, def when unset. */
function millis(env, name, def) {
  const v = env[name];
  if (v === undefined || v === '') {
    return def;
  }
  if (!/^[0-9]+$/.test(v) || Number(v) <= 0) {
    throw new Error(`${name} "${v}": want a positive number of milliseconds`);
  }
  return Number(v);
}

/** Connects to Redis in the background, logging the first error of each outage. */
function connectRedis(url) {
  // Without the offline queue a command fails at once while Redis is down
  // instead of waiting for a reconnect the client may never see.
  const client = createClient({ url, disableOfflineQueue: true, socket: { connectTimeout: 5000 } });
  let down = false;
  client.on('error', (err) => {
    if (!down) {
      log('redis error', { err: err.message });
    }
    down = true;
  });
  client.on('ready', () => { down = false; });
  client.connect().catch((err) => log('redis connect failed', { err: err.message }));
  return client;
}

/** Sends v as the JSON body of a response with status. */
function send(res, status, v) {
  const body = JSON.stringify(v);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

/** Reads a request body of at most limit bytes as JSON; null if it is not. */
async function readJSON(req, limit = 1 << 16) {
  const chunks = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > limit) {
      return null;
    }
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return null;
  }
}

/** Returns the request handler: GET /healthz and POST /sectors/{id}/reservations. */
function routes({ store, pool, redis }) {
  const healthz = async (res) => {
    try {
      if (!redis.isReady) {
        throw new Error('redis is not connected');
      }
      await Promise.all([pool.query('SELECT 1'), redis.ping()]);
      send(res, 200, { status: 'ok' });
    } catch (err) {
      send(res, 503, { error: err.message });
    }
  };
  const reserve = async (req, res, id) => {
    if (!/^[0-9]+$/.test(id)) {
      send(res, 400, { error: 'bad_request: sector id is not a number' });
      return;
    }
    const sector = Number(id);
    const body = await readJSON(req);
    if (!body || typeof body.request_id !== 'string' || body.request_id === '') {
      send(res, 400, { error: 'bad_request: want JSON with a request_id' });
      return;
    }
    try {
      const seat = await store.reserve(sector, body.request_id);
      send(res, 201, { seat });
    } catch (err) {
      if (err instanceof SoldOutError) {
        send(res, 409, { error: 'sold_out' });
      } else if (err instanceof DuplicateError) {
        send(res, 409, { error: 'duplicate' });
      } else if (err instanceof LockTimeoutError) {
        send(res, 503, { error: 'lock_timeout' });
      } else {
        log('reservation failed', { request_id: body.request_id, contender: body.contender, err: err.message });
        send(res, 500, { error: err.message });
      }
    }
  };
  return (req, res) => {
    const path = new URL(req.url, 'http://localhost').pathname;
    const m = /^\/sectors\/([^/]+)\/reservations$/.exec(path);
    let done;
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
    done.catch((err) => {
      log('request failed', { err: err.message });
      if (!res.headersSent) {
        send(res, 500, { error: err.message });
      }
    });
  };
}

/** Starts the service; on SIGTERM or SIGINT it stops taking requests, finishes the open ones and exits 0. */
function main() {
  let cfg;
  try {
    cfg = loadConfig(process.env);
  } catch (err) {
    log('ticketd-node: bad configuration', { err: err.message });
    process.exit(1);
  }
  const pool = new pg.Pool({
    connectionString: cfg.pgUrl,
    max: 8,
    connectionTimeoutMillis: 5000,
    ...(cfg.schema ? { options: '-c search_path=' + cfg.schema } : {}),
  });
  pool.on('error', (err) => log('postgres idle client error', { err: err.message }));
  const redis = connectRedis(cfg.redisUrl);
  const locker = new Locker(redis, { ttlMs: cfg.lockTtlMs, waitMs: cfg.lockWaitMs, log });
  let store;
  try {
    store = new Store(cfg.strategy, pool, locker, cfg.keyPrefix);
  } catch (err) {
    log('ticketd-node: bad configuration', { err: err.message });
    process.exit(1);
  }
  const server = http.createServer(routes({ store, pool, redis }));
  server.on('error', (err) => {
    log('ticketd-node: server error', { err: err.message });
    process.exit(1);
  });
  server.listen(Number(cfg.port), '127.0.0.1', () => {
    log('ticketd-node listening', { addr: `127.0.0.1:${cfg.port}`, strategy: cfg.strategy });
  });

  const shutdown = (signal) => {
    log('ticketd-node stopping', { signal });
    setTimeout(() => process.exit(1), 5000).unref();
    server.close(async () => {
      await Promise.allSettled([pool.end(), redis.isOpen ? redis.disconnect() : Promise.resolve()]);
      process.exit(0);
    });
    server.closeIdleConnections();
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

main();
