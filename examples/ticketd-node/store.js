// The four strategies of STRATEGY: how a reservation takes a seat from
// PostgreSQL, with or without the Redis lock.

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
export const STRATEGIES = ['naive', 'lock-only', 'update-only', 'lock-plus-update'];

/** Sells the seats of the sectors in PostgreSQL by one strategy. */
export class Store {
  /**
   * @param {string} strategy one of STRATEGIES
   * @param {import('pg').Pool} pool
   * @param {import('./lock.js').Locker} locker used by the strategies with a lock
   * @param {string} keyPrefix starts the lock's Redis key
   */
  constructor(strategy, pool, locker, keyPrefix) {
    if (!STRATEGIES.includes(strategy)) {
      throw new Error(`STRATEGY "${strategy}": want ${STRATEGIES.join(', ')}`);
    }
    this.pool = pool;
    this.keyPrefix = keyPrefix;
    this.locker = strategy.startsWith('lock-') ? locker : null;
    this.sell = strategy === 'naive' || strategy === 'lock-only' ? readThenWrite : atomicUpdate;
  }

  /** Sells one seat of sector to requestId and returns its number. */
  async reserve(sector, requestId) {
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
async function readThenWrite(pool, sector, requestId) {
  return inTransaction(pool, async (client) => {
    const read = await client.query('SELECT capacity, available FROM sectors WHERE id = $1', [sector]);
    if (read.rowCount === 0 || read.rows[0].available <= 0) {
      throw new SoldOutError();
    }
    const { capacity, available } = read.rows[0];
    await client.query('UPDATE sectors SET available = $2 WHERE id = $1', [sector, available - 1]);
    const seat = capacity - available + 1;
    await insertSale(client, sector, seat, requestId);
    return seat;
  });
}

/**
 * Takes a seat with one UPDATE … WHERE available > 0 and records the sale in
 * the same transaction: the database decides, so no two requests can take
 * the same seat.
 */
async function atomicUpdate(pool, sector, requestId) {
  return inTransaction(pool, async (client) => {
    const upd = await client.query(
      'UPDATE sectors SET available = available - 1 WHERE id = $1 AND available > 0 RETURNING capacity - available AS seat',
      [sector]);
    if (upd.rowCount === 0) {
      throw new SoldOutError();
    }
    const { seat } = upd.rows[0];
    await insertSale(client, sector, seat, requestId);
    return seat;
  });
}

/** Records a sale; a request id that already bought a seat (SQLSTATE 23505) is a DuplicateError. */
async function insertSale(client, sector, seat, requestId) {
  try {
    await client.query('INSERT INTO sales (seat, sector_id, request_id) VALUES ($1, $2, $3)', [seat, sector, requestId]);
  } catch (err) {
    if (err.code === '23505') {
      throw new DuplicateError();
    }
    throw err;
  }
}

/** Runs fn(client) in a READ COMMITTED transaction: COMMIT if it returns, ROLLBACK if it throws. */
async function inTransaction(pool, fn) {
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
