<?php
// The service's environment, read once per request (the built-in server
// runs router.php afresh for each one).

declare(strict_types=1);

namespace Ticketd;

/** The service's environment; see README.md. */
final class Config
{
    /** The names STRATEGY may hold. */
    public const STRATEGIES = ['naive', 'lock-only', 'update-only', 'lock-plus-update'];

    public function __construct(
        public readonly string $redisUrl,
        public readonly string $pgUrl,
        public readonly string $schema,
        public readonly string $keyPrefix,
        public readonly string $strategy,
        public readonly int $lockTtlMs,
        public readonly int $lockWaitMs,
    ) {
    }

    /**
     * Reads the environment through getenv; throws \InvalidArgumentException
     * on a missing or bad value.
     */
    public static function load(callable $getenv): self
    {
        foreach (['REDIS_URL', 'PG_URL', 'STRATEGY'] as $name) {
            if ((string) $getenv($name) === '') {
                throw new \InvalidArgumentException("$name is not set");
            }
        }
        $schema = (string) $getenv('PG_SCHEMA');
        if ($schema !== '' && !preg_match('/^[a-z_][a-z0-9_]{0,62}$/', $schema)) {
            throw new \InvalidArgumentException("PG_SCHEMA \"$schema\": want a lower-case identifier");
        }
        $strategy = (string) $getenv('STRATEGY');
        if (!in_array($strategy, self::STRATEGIES, true)) {
            throw new \InvalidArgumentException("STRATEGY \"$strategy\": want " . implode(', ', self::STRATEGIES));
        }
        return new self(
            (string) $getenv('REDIS_URL'),
            (string) $getenv('PG_URL'),
            $schema,
            (string) $getenv('KEY_PREFIX'),
            $strategy,
            self::millis($getenv, 'LOCK_TTL_MS', 10000),
            self::millis($getenv, 'LOCK_WAIT_MS', 30000),
        );
    }

    /** Reads a positive number of milliseconds, $def when unset. */
    private static function millis(callable $getenv, string $name, int $def): int
    {
        $v = (string) $getenv($name);
        if ($v === '') {
            return $def;
        }
        if (!preg_match('/^[0-9]{1,9}$/', $v) || (int) $v <= 0) {
            throw new \InvalidArgumentException("$name \"$v\": want a positive number of milliseconds");
        }
        return (int) $v;
    }

    /**
     * Opens the PostgreSQL connection of PG_URL, a postgres:// URL, with
     * PDO: persistent, so each worker of the built-in server keeps one
     * connection across requests instead of opening one per request.
     * PG_SCHEMA becomes the connection's search_path (libpq's `options`);
     * unset, libpq's PGOPTIONS applies.
     */
    public function openPostgres(): \PDO
    {
        $u = parse_url($this->pgUrl);
        if ($u === false || !in_array($u['scheme'] ?? '', ['postgres', 'postgresql'], true)) {
            throw new \InvalidArgumentException('PG_URL: want postgres://user:password@host:port/database');
        }
        $kv = [];
        if (isset($u['host'])) {
            $kv['host'] = $u['host'];
        }
        if (isset($u['port'])) {
            $kv['port'] = (string) $u['port'];
        }
        $db = ltrim(rawurldecode($u['path'] ?? ''), '/');
        if ($db !== '') {
            $kv['dbname'] = $db;
        }
        // The URL's parameters (sslmode, host=/socket/dir, …) are libpq's keywords.
        parse_str($u['query'] ?? '', $query);
        foreach ($query as $k => $v) {
            $kv[(string) $k] = (string) $v;
        }
        if ($this->schema !== '') {
            $kv['options'] = '-c search_path=' . $this->schema;
        }
        $dsn = 'pgsql:';
        foreach ($kv as $k => $v) {
            $dsn .= $k . "='" . addcslashes($v, "'\\") . "';";
        }
        return new \PDO(
            $dsn,
            isset($u['user']) ? rawurldecode($u['user']) : null,
            isset($u['pass']) ? rawurldecode($u['pass']) : null,
            [
                \PDO::ATTR_PERSISTENT => true,
                \PDO::ATTR_ERRMODE => \PDO::ERRMODE_EXCEPTION,
                \PDO::ATTR_TIMEOUT => 5,
                \PDO::ATTR_DEFAULT_FETCH_MODE => \PDO::FETCH_ASSOC,
            ],
        );
    }

    /**
     * Returns a Predis client of REDIS_URL (redis://[:password@]host:port/db).
     * It connects on its first command; a command fails at once while Redis
     * is down, and one that hangs fails after 10 s.
     */
    public function openRedis(): \Predis\Client
    {
        $params = \Predis\Connection\Parameters::parse($this->redisUrl);
        return new \Predis\Client($params + ['timeout' => 5.0, 'read_write_timeout' => 10.0]);
    }
}
