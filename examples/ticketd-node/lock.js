// The Redis lock: SET key token NX PX ttl to take it, a Lua script that
// deletes the key only while it still holds our token to give it back.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

/** The lock stayed taken for the whole LOCK_WAIT_MS. */
export class LockTimeoutError extends Error {
  constructor() {
    super('lock wait timed out');
    this.name = 'LockTimeoutError';
  }
}

// Deletes the lock only while it still holds the caller's token, so a
// holder whose lock expired never deletes the next holder's.
const RELEASE_SCRIPT = `if redis.call("get", KEYS[1]) == ARGV[1] then
  return redis.call("del", KEYS[1])
else
  return 0
end`;

/** A single-instance Redis lock over a connected node-redis v4 client. */
export class Locker {
  /**
   * @param {import('redis').RedisClientType} redis
   * @param {{ttlMs: number, waitMs: number, log: (msg: string, fields?: object) => void}} opts
   */
  constructor(redis, { ttlMs, waitMs, log }) {
    this.redis = redis;
    this.ttlMs = ttlMs;
    this.waitMs = waitMs;
    this.log = log;
  }

  /**
   * Runs fn while holding the lock key and releases it afterwards. Throws
   * LockTimeoutError if the lock could not be had within the wait. A failed
   * release does not change fn's result (the sale is decided by then; the
   * TTL frees the lock), so it is logged here instead of thrown.
   */
  async with(key, fn) {
    const token = await this.acquire(key);
    try {
      return await fn();
    } finally {
      try {
        if (!(await this.release(key, token))) {
          this.log('lock expired before release', { key, ttlMs: this.ttlMs });
        }
      } catch (err) {
        this.log('lock release failed', { key, err: err.message });
      }
    }
  }

  /** Tries SET NX PX until it takes key, sleeping 1–16 ms between tries; returns the token. */
  async acquire(key) {
    const token = randomBytes(16).toString('hex');
    const deadline = Date.now() + this.waitMs;
    for (;;) {
      const ok = await this.redis.set(key, token, { NX: true, PX: this.ttlMs });
      if (ok === 'OK') {
        return token;
      }
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new LockTimeoutError();
      }
      await sleep(Math.min(1 + Math.floor(Math.random() * 16), left));
    }
  }

  /** Deletes key if it still holds token; false means the lock had expired. */
  async release(key, token) {
    const n = await this.redis.eval(RELEASE_SCRIPT, { keys: [key], arguments: [token] });
    return n === 1;
  }
}
