// ticketd-ts: a small seat-reservation service for hammer to race, the
// same service as examples/ticketd in TypeScript, with ioredis for the
// lock as the lab's TypeScript backends have it. Several replicas sell the
// seats of one sector from PostgreSQL by one of four strategies
// (STRATEGY), optionally serialised by a Redis lock. See README.md.
import http from 'node:http';
import pg from 'pg';
import { Redis } from 'ioredis';
import { routes } from './http.js';
import { Locker } from './lock.js';
import { isStrategy, STRATEGIES, Store, type Strategy } from './store.js';

/** Writes one log line to stderr. */
function log(msg: string, fields: Record<string, unknown> = {}): void {
  console.error(JSON.stringify({ time: new Date().toISOString(), msg, ...fields }));
}

/** The service's environment. */
interface Config {
  port: number;
  redisUrl: string;
  pgUrl: string;
  schema: string;
  keyPrefix: string;
  strategy: Strategy;
  lockTtlMs: number;
  lockWaitMs: number;
}

/** Reads the service's environment; throws on a missing or bad value. */
function loadConfig(env: NodeJS.ProcessEnv): Config {
  for (const name of ['PORT', 'REDIS_URL', 'PG_URL', 'STRATEGY']) {
    if (!env[name]) {
      throw new Error(`${name} is not set`);
    }
  }
  const schema = env.PG_SCHEMA ?? '';
  if (schema !== '' && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new Error(`PG_SCHEMA "${schema}": want a lower-case identifier`);
  }
  const strategy = env.STRATEGY ?? '';
  if (!isStrategy(strategy)) {
    throw new Error(`STRATEGY "${strategy}": want ${STRATEGIES.join(', ')}`);
  }
  return {
    port: Number(env.PORT),
    redisUrl: env.REDIS_URL ?? '',
    pgUrl: env.PG_URL ?? '',
    schema,
    keyPrefix: env.KEY_PREFIX ?? '',
    strategy,
    lockTtlMs: millis(env, 'LOCK_TTL_MS', 10000),
    lockWaitMs: millis(env, 'LOCK_WAIT_MS', 30000),
  };
}

/** Reads a positive number of milliseconds, def when unset. */
function millis(env: NodeJS.ProcessEnv, name: string, def: number): number {
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
function connectRedis(url: string): Redis {
  // Without the offline queue a command fails at once while Redis is down
  // instead of waiting for a reconnect the client may never see.
  const client = new Redis(url, { enableOfflineQueue: false, connectTimeout: 5000, maxRetriesPerRequest: 1 });
  let down = false;
  client.on('error', (err: Error) => {
    if (!down) {
      log('redis error', { err: err.message });
    }
    down = true;
  });
  client.on('ready', () => { down = false; });
  return client;
}

/** Starts the service; on SIGTERM or SIGINT it stops taking requests, finishes the open ones and exits 0. */
function main(): void {
  let cfg: Config;
  try {
    cfg = loadConfig(process.env);
  } catch (err) {
    log('ticketd-ts: bad configuration', { err: (err as Error).message });
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
  const locker = new Locker(redis, { ttlMs: cfg.lockTtlMs, waitMs: cfg.lockWaitMs }, log);
  const store = new Store(cfg.strategy, pool, locker, cfg.keyPrefix);
  const server = http.createServer(routes({ store, pool, redis, log }));
  server.on('error', (err) => {
    log('ticketd-ts: server error', { err: err.message });
    process.exit(1);
  });
  server.listen(cfg.port, '127.0.0.1', () => {
    log('ticketd-ts listening', { addr: `127.0.0.1:${cfg.port}`, strategy: cfg.strategy });
  });

  const shutdown = (signal: string): void => {
    log('ticketd-ts stopping', { signal });
    setTimeout(() => process.exit(1), 5000).unref();
    server.close(() => {
      void Promise.allSettled([pool.end(), redis.quit()]).then(() => process.exit(0));
    });
    server.closeIdleConnections();
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

main();
