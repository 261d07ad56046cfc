// A seat service that fails the way real ones do, for hammer's tests of
// what it shows of a service's own logs. FAILURE=crash: the first
// reservation throws out of the handler and Node dies with the error, its
// stack and its version line. FAILURE=500: every reservation is logged as
// failed (as a service whose tables are missing would) and answered 500.
'use strict';
const http = require('http');

const failure = process.env.FAILURE;
const port = Number(process.env.PORT);

function reserve(req, res) {
  if (failure === 'crash') {
    throw new Error('seat map not loaded: cannot reserve in sector 1');
  }
  console.error('reserve failed: relation "sales" does not exist');
  res.writeHead(500, {'Content-Type': 'application/json'});
  res.end('{"error":"internal"}');
}

http.createServer((req, res) => {
  if (req.url === '/healthz') {
    res.end('ok');
    return;
  }
  req.resume();
  req.on('end', () => reserve(req, res));
}).listen(port, '127.0.0.1', () => console.log(`faulty (${failure}) listening on ${port}`));
