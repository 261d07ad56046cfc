<?php
// ticketd-php: a small seat-reservation service for hammer to race, the
// same service as examples/ticketd in PHP. PHP's built-in server
// (php -S, PHP_CLI_SERVER_WORKERS workers) runs this file once per
// request: it routes the request and answers it. Several replicas sell the
// seats of one sector from PostgreSQL by one of four strategies
// (STRATEGY), optionally serialised by a Redis lock. See README.md.

declare(strict_types=1);

namespace Ticketd;

require_once 'Predis/autoload.php'; // Debian's php-predis, on the include path
require_once __DIR__ . '/src/config.php';
require_once __DIR__ . '/src/lock.php';
require_once __DIR__ . '/src/store.php';

/** Writes one log line to stderr. */
function logLine(string $msg, array $fields = []): void
{
    $line = ['time' => gmdate('Y-m-d\TH:i:s\Z'), 'msg' => $msg] + $fields;
    file_put_contents('php://stderr', json_encode($line, JSON_UNESCAPED_SLASHES) . "\n");
}

/** Answers with $v as the JSON body and $status. */
function send(int $status, array $v): void
{
    http_response_code($status);
    header('Content-Type: application/json');
    echo json_encode($v, JSON_UNESCAPED_SLASHES);
}

/** GET /healthz: 200 while both PostgreSQL and Redis answer, else 503. */
function healthz(Config $cfg): void
{
    try {
        $cfg->openPostgres()->query('SELECT 1');
        $cfg->openRedis()->ping();
        send(200, ['status' => 'ok']);
    } catch (\Throwable $e) {
        send(503, ['error' => $e->getMessage()]);
    }
}

/**
 * POST /sectors/{id}/reservations: 201 {"seat": N}, 409 sold_out or
 * duplicate, 503 lock_timeout, 400 for a malformed request, 500 for
 * anything else.
 */
function reserve(Config $cfg, string $id): void
{
    if (!preg_match('/^-?[0-9]{1,9}$/', $id)) {
        send(400, ['error' => 'bad_request: sector id is not a number']);
        return;
    }
    $body = json_decode((string) file_get_contents('php://input', false, null, 0, 1 << 16), true);
    if (!is_array($body) || !is_string($body['request_id'] ?? null) || $body['request_id'] === '') {
        send(400, ['error' => 'bad_request: want JSON with a request_id']);
        return;
    }
    $requestId = $body['request_id'];
    try {
        $locker = str_starts_with($cfg->strategy, 'lock-')
            ? new Locker($cfg->openRedis(), $cfg->lockTtlMs, $cfg->lockWaitMs, logLine(...))
            : null;
        $store = new Store($cfg->strategy, $cfg->openPostgres(), $locker, $cfg->keyPrefix);
        send(201, ['seat' => $store->reserve((int) $id, $requestId)]);
    } catch (SoldOut) {
        send(409, ['error' => 'sold_out']);
    } catch (Duplicate) {
        send(409, ['error' => 'duplicate']);
    } catch (LockTimeout) {
        send(503, ['error' => 'lock_timeout']);
    } catch (\Throwable $e) {
        logLine('reservation failed', [
            'request_id' => $requestId,
            'contender' => $body['contender'] ?? null,
            'err' => $e->getMessage(),
        ]);
        send(500, ['error' => $e->getMessage()]);
    }
}

function main(): void
{
    try {
        $cfg = Config::load('getenv');
    } catch (\InvalidArgumentException $e) {
        logLine('ticketd-php: bad configuration', ['err' => $e->getMessage()]);
        send(500, ['error' => 'bad configuration: ' . $e->getMessage()]);
        return;
    }
    $path = (string) parse_url($_SERVER['REQUEST_URI'] ?? '/', PHP_URL_PATH);
    $method = $_SERVER['REQUEST_METHOD'] ?? 'GET';
    $isReserve = preg_match('#^/sectors/([^/]+)/reservations$#', $path, $m) === 1;
    if ($path === '/healthz' && $method === 'GET') {
        healthz($cfg);
    } elseif ($isReserve && $method === 'POST') {
        reserve($cfg, $m[1]);
    } elseif ($path === '/healthz' || $isReserve) {
        send(405, ['error' => 'method_not_allowed']);
    } else {
        send(404, ['error' => 'not_found']);
    }
}

main();
