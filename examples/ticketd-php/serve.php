<?php
// serve.php starts one replica of ticketd-php: it checks the environment
// (exit 1 on a bad value, as ticketd does), then replaces itself with PHP's
// built-in server on 127.0.0.1:$PORT running router.php, with
// PHP_CLI_SERVER_WORKERS worker processes (default 8) so that requests to
// one replica really run at the same time.

declare(strict_types=1);

namespace Ticketd;

require_once __DIR__ . '/src/config.php';

$fail = static function (string $err, string $msg = 'ticketd-php: bad configuration'): never {
    fwrite(STDERR, json_encode(['time' => gmdate('Y-m-d\TH:i:s\Z'), 'msg' => $msg, 'err' => $err]) . "\n");
    exit(1);
};
try {
    $cfg = Config::load('getenv');
} catch (\InvalidArgumentException $e) {
    $fail($e->getMessage());
}
$port = (string) getenv('PORT');
if (!preg_match('/^[0-9]{1,5}$/', $port)) {
    $fail($port === '' ? 'PORT is not set' : "PORT \"$port\": want a port number");
}
$env = getenv();
$env['PHP_CLI_SERVER_WORKERS'] = $env['PHP_CLI_SERVER_WORKERS'] ?? '8';
if (!preg_match('/^[1-9][0-9]{0,2}$/', $env['PHP_CLI_SERVER_WORKERS'])) {
    $fail("PHP_CLI_SERVER_WORKERS \"{$env['PHP_CLI_SERVER_WORKERS']}\": want a number of workers");
}
fwrite(STDERR, json_encode([
    'time' => gmdate('Y-m-d\TH:i:s\Z'), 'msg' => 'ticketd-php listening',
    'addr' => "127.0.0.1:$port", 'strategy' => $cfg->strategy, 'workers' => (int) $env['PHP_CLI_SERVER_WORKERS'],
]) . "\n");
// -q: no line per request on stderr. opcache keeps the compiled scripts
// across the requests of a worker.
pcntl_exec(PHP_BINARY, ['-q', '-d', 'opcache.enable_cli=1', '-S', "127.0.0.1:$port", __DIR__ . '/router.php'], $env);
$fail(PHP_BINARY . ': ' . pcntl_strerror(pcntl_get_last_error()), 'ticketd-php: cannot start the built-in server');
