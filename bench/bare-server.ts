// The machine's ceiling: a bare node:http server answering a ~100-byte JSON body, run as a child process.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const body = JSON.stringify({ result: 'success', msg: '', id: 12345, note: 'bare node:http ceiling for the Parley bench' });

const server = http.createServer({ keepAliveTimeout: 120_000 }, (req, res) => {
  req.resume();
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
