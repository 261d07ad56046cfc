<?php
// The four strategies of STRATEGY: how a reservation takes a seat from
// PostgreSQL, with or without the Redis lock.

declare(strict_types=1);

namespace Ticketd;

/** The sector had no seat left (or does not exist). */
final class SoldOut extends \RuntimeException
{
}

/** The request id had already bought a seat. */
final class Duplicate extends \RuntimeException
{
}

/** Sells the seats of the sectors in PostgreSQL by one strategy. */
final class Store
{
    /**
     * @param string $strategy one of Config::STRATEGIES
     * @param ?Locker $locker used by the strategies with a lock
     * @param string $keyPrefix starts the lock's Redis key
     */
    public function __construct(
        private readonly string $strategy,
        private readonly \PDO $pdo,
        private readonly ?Locker $locker,
        private readonly string $keyPrefix,
    ) {
    }

    /** Sells one seat of $sector to $requestId and returns its number. */
    public function reserve(int $sector, string $requestId): int
    {
        $sell = match ($this->strategy) {
            'naive', 'lock-only' => fn (): int => $this->readThenWrite($sector, $requestId),
            default => fn (): int => $this->atomicUpdate($sector, $requestId),
        };
        if (!str_starts_with($this->strategy, 'lock-')) {
            return $sell();
        }
        return $this->locker->with("{$this->keyPrefix}lock:sector:$sector", $sell);
    }

    /**
     * Reads the available count, then writes back that count minus one and
     * records a sale for the seat it thinks is next. The read and the write
     * are separate statements of a READ COMMITTED transaction, which does
     * not serialise them: two requests that read the same count sell the
     * same seat. The transaction only keeps the counter and the ledger in
     * step when the sale is refused as a duplicate.
     */
    private function readThenWrite(int $sector, string $requestId): int
    {
        return $this->inTransaction(function () use ($sector, $requestId): int {
            $read = $this->pdo->prepare('SELECT capacity, available FROM sectors WHERE id = ?');
            $read->execute([$sector]);
            $row = $read->fetch();
            if ($row === false || (int) $row['available'] <= 0) {
                throw new SoldOut('sold out');
            }
            $capacity = (int) $row['capacity'];
            $available = (int) $row['available'];
            $this->pdo->prepare('UPDATE sectors SET available = ? WHERE id = ?')->execute([$available - 1, $sector]);
            $seat = $capacity - $available + 1;
            $this->insertSale($sector, $seat, $requestId);
            return $seat;
        });
    }

    /**
     * Takes a seat with one UPDATE … WHERE available > 0 and records the
     * sale in the same transaction: the database decides, so no two
     * requests can take the same seat.
     */
    private function atomicUpdate(int $sector, string $requestId): int
    {
        return $this->inTransaction(function () use ($sector, $requestId): int {
            $upd = $this->pdo->prepare(
                'UPDATE sectors SET available = available - 1 WHERE id = ? AND available > 0 RETURNING capacity - available AS seat',
            );
            $upd->execute([$sector]);
            $row = $upd->fetch();
            if ($row === false) {
                throw new SoldOut('sold out');
            }
            $seat = (int) $row['seat'];
            $this->insertSale($sector, $seat, $requestId);
            return $seat;
        });
    }

    /** Records a sale; a request id that already bought a seat (SQLSTATE 23505) is Duplicate. */
    private function insertSale(int $sector, int $seat, string $requestId): void
    {
        try {
            $this->pdo->prepare('INSERT INTO sales (seat, sector_id, request_id) VALUES (?, ?, ?)')
                ->execute([$seat, $sector, $requestId]);
        } catch (\PDOException $e) {
            if ($e->getCode() === '23505') {
                throw new Duplicate('request id already bought a seat');
            }
            throw $e;
        }
    }

    /**
     * Runs $fn in a READ COMMITTED transaction: COMMIT if it returns,
     * ROLLBACK if it throws.
     *
     * @template T
     * @param callable(): T $fn
     * @return T
     */
    private function inTransaction(callable $fn): mixed
    {
        $this->pdo->beginTransaction();
        try {
            $this->pdo->exec('SET TRANSACTION ISOLATION LEVEL READ COMMITTED');
            $result = $fn();
            $this->pdo->commit();
            return $result;
        } catch (\Throwable $e) {
            try {
                $this->pdo->rollBack();
            } catch (\Throwable) {
                // The connection broke; PDO drops a persistent one that errs.
            }
            throw $e;
        }
    }
}
