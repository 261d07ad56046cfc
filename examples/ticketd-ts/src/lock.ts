// The Redis lock: SET key token NX PX ttl to take it, a Lua script that
// deletes the key only while it still holds our token to give it back.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';

/** Writes one log line with fields. */
export type Log = (msg: string, fields?: Record<string, unknown>) => void;

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

/** How long the lock lives and how long acquire waits for it, in milliseconds. */
export interface LockTimes {
  ttlMs: number;
  waitMs: number;
}

/** A single-instance Redis lock over an ioredis client. */
export class Locker {
  constructor(
    private readonly redis: Redis,
    private readonly times: LockTimes,
    private readonly log: Log,
  ) {}

  /**
   * Runs fn while holding the lock key and releases it afterwards. Throws
   * LockTimeoutError if the lock could not be had within the wait. A failed
   * release does not change fn's result (the sale is decided by then; the
   * TTL frees the lock), so it is logged here instead of thrown.
   */
  async with<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const token = await this.acquire(key);
    try {
      return await fn();
    } finally {
      try {
        if (!(await this.release(key, token))) {
          this.log('lock expired before release', { key, ttlMs: this.times.ttlMs });
        }
      } catch (err) {
        this.log('lock release failed', { key, err: (err as Error).message });
      }
    }
  }

  /** Tries SET NX PX until it takes key, sleeping 1–16 ms between tries; returns the token. */
  async acquire(key: string): Promise<string> {
    const token = randomBytes(16).toString('hex');
    const deadline = Date.now() + this.times.waitMs;
    for (;;) {
      const ok = await this.redis.set(key, token, 'PX', this.times.ttlMs, 'NX');
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
  async release(key: string, token: string): Promise<boolean> {
    const n = await this.redis.eval(RELEASE_SCRIPT, 1, key, token);
    return n === 1;
  }
}
