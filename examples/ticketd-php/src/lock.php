<?php
// The Redis lock: SET key token NX PX ttl to take it, a Lua script that
// deletes the key only while it still holds our token to give it back.

declare(strict_types=1);

namespace Ticketd;

/** The lock stayed taken for the whole LOCK_WAIT_MS. */
final class LockTimeout extends \RuntimeException
{
    public function __construct()
    {
        parent::__construct('lock wait timed out');
    }
}

/** A single-instance Redis lock over a Predis client. */
final class Locker
{
    // Deletes the lock only while it still holds the caller's token, so a
    // holder whose lock expired never deletes the next holder's.
    private const RELEASE_SCRIPT = <<<'LUA'
        if redis.call("get", KEYS[1]) == ARGV[1] then
          return redis.call("del", KEYS[1])
        else
          return 0
        end
        LUA;

    /** @param callable(string, array<string, mixed>): void $log */
    public function __construct(
        private readonly \Predis\Client $redis,
        private readonly int $ttlMs,
        private readonly int $waitMs,
        private $log,
    ) {
    }

    /**
     * Runs $fn while holding $key and releases it afterwards. Throws
     * LockTimeout if the lock could not be had within the wait. A failed
     * release does not change $fn's result (the sale is decided by then;
     * the TTL frees the lock), so it is logged instead of thrown.
     *
     * @template T
     * @param callable(): T $fn
     * @return T
     */
    public function with(string $key, callable $fn): mixed
    {
        $token = $this->acquire($key);
        try {
            return $fn();
        } finally {
            try {
                if (!$this->release($key, $token)) {
                    ($this->log)('lock expired before release', ['key' => $key, 'ttlMs' => $this->ttlMs]);
                }
            } catch (\Throwable $e) {
                ($this->log)('lock release failed', ['key' => $key, 'err' => $e->getMessage()]);
            }
        }
    }

    /** Tries SET NX PX until it takes $key, sleeping 1–16 ms between tries; returns the token. */
    public function acquire(string $key): string
    {
        $token = bin2hex(random_bytes(16));
        $deadline = hrtime(true) + $this->waitMs * 1_000_000;
        for (;;) {
            if ($this->redis->set($key, $token, 'PX', $this->ttlMs, 'NX') !== null) {
                return $token;
            }
            $leftUs = intdiv($deadline - hrtime(true), 1000);
            if ($leftUs <= 0) {
                throw new LockTimeout();
            }
            usleep(min(random_int(1, 16) * 1000, $leftUs));
        }
    }

    /** Deletes $key if it still holds $token; false means the lock had expired. */
    public function release(string $key, string $token): bool
    {
        return (int) $this->redis->eval(self::RELEASE_SCRIPT, 1, $key, $token) === 1;
    }
}
