// The four strategies of STRATEGY: how a reservation takes a seat from
// PostgreSQL, with or without the Redis lock.
import type pg from 'pg';
import type { Locker } from './lock.js';

/** The sector had no seat left (or does not exist). */
export class SoldOutError extends Error {
  constructor() {
    super('sold out');
    this.name = 'SoldOutError';
  }
}

/** The request id had already bought a seat. */
export class DuplicateError extends Error {
  constructor() {
    super('request id already bought a seat');
    this.name = 'DuplicateError';
  }
}

/** The names STRATEGY may hold. */
export const STRATEGIES = ['naive', 'lock-only', 'update-only', 'lock-plus-update'] as const;

/** One of STRATEGIES. */
export type Strategy = (typeof STRATEGIES)[number];

/** Reports whether s names a strategy. */
export function isStrategy(s: string): s is Strategy {
  return (STRATEGIES as readonly string[]).includes(s);
}

type Sell = (pool: pg.Pool, sector: number, requestId: string) => Promise<number>;

/** Sells the seats of the sectors in PostgreSQL by one strategy. */
export class Store {
  private readonly locker: Locker | null;
  private readonly sell: Sell;

  /**
   * @param locker used by the strategies with a lock
   * @param keyPrefix starts the lock's Redis key
   */
  constructor(strategy: Strategy, private readonly pool: pg.Pool, locker: Locker, private readonly keyPrefix: string) {
    this.locker = strategy.startsWith('lock-') ? locker : null;
    this.sell = strategy === 'naive' || strategy === 'lock-only' ? readThenWrite : atomicUpdate;
  }

  /** Sells one seat of sector to requestId and returns its number. */
  async reserve(sector: number, requestId: string): Promise<number> {
    if (!this.locker) {
      return this.sell(this.pool, sector, requestId);
    }
    return this.locker.with(`${this.keyPrefix}lock:sector:${sector}`, () =>
      this.sell(this.pool, sector, requestId));
  }
}

/**
 * Reads the available count, then writes back that count minus one and
 * records a sale for the seat it thinks is next. The read and the write are
 * separate statements of a READ COMMITTED transaction, which does not
 * serialise them: two requests that read the same count sell the same seat.
 * The transaction only keeps the counter and the ledger in step when the
 * sale is refused as a duplicate.
 */
async function readThenWrite(pool: pg.Pool, sector: number, requestId: string): Promise<number> {
  return inTransaction(pool, async (client) => {
    const read = await client.query<{ capacity: number; available: number }>(
      'SELECT capacity, available FROM sectors WHERE id = $1', [sector]);
    const row = read.rows[0];
    if (!row || row.available <= 0) {
      throw new SoldOutError();
    }
    await client.query('UPDATE sectors SET available = $2 WHERE id = $1', [sector, row.available - 1]);
    const seat = row.capacity - row.available + 1;
    await insertSale(client, sector, seat, requestId);
    return seat;
  });
}

/**
 * Takes a seat with one UPDATE … WHERE available > 0 and records the sale in
 * the same transaction: the database decides, so no two requests can take
 * the same seat.
 */
async function atomicUpdate(pool: pg.Pool, sector: number, requestId: string): Promise<number> {
  return inTransaction(pool, async (client) => {
    const upd = await client.query<{ seat: number }>(
      'UPDATE sectors SET available = available - 1 WHERE id = $1 AND available > 0 RETURNING capacity - available AS seat',
      [sector]);
    const row = upd.rows[0];
    if (!row) {
      throw new SoldOutError();
    }
    await insertSale(client, sector, row.seat, requestId);
    return row.seat;
  });
}

/** Records a sale; a request id that already bought a seat (SQLSTATE 23505) is a DuplicateError. */
async function insertSale(client: pg.PoolClient, sector: number, seat: number, requestId: string): Promise<void> {
  try {
    await client.query('INSERT INTO sales (seat, sector_id, request_id) VALUES ($1, $2, $3)', [seat, sector, requestId]);
  } catch (err) {
    if ((err as { code?: string }).code === '23505') {
      throw new DuplicateError();
    }
    throw err;
  }
}

/** Runs fn(client) in a READ COMMITTED transaction: COMMIT if it returns, ROLLBACK if it throws. */
async function inTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query('BEGIN ISOLATION LEVEL READ COMMITTED');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => { broken = true; });
    throw err;
  } finally {
    client.release(broken);
  }
}
