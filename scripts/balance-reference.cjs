// The floor for `tally balance --json`: a bare node:http client that asks for the balance with
// the key, parses the answer and prints it indented, with nothing else. npm run bench times it
// beside tally (the target: tally within 1.35x of it). CommonJS, as tally's launcher is.
// Usage: node scripts/balance-reference.cjs BASE_URL API_KEY
const { request } = require('node:http');

const [baseUrl, key] = process.argv.slice(2);

request(new URL('/v1/open/balance', baseUrl), { headers: { accept: 'application/json', authorization: `Bearer ${key}` } }, (res) => {
  const chunks = [];
  res.on('data', (chunk) => chunks.push(chunk));
  res.on('end', () => {
    process.stdout.write(`${JSON.stringify(JSON.parse(Buffer.concat(chunks).toString('utf8')), null, 2)}\n`);
  });
})
  .on('error', (error) => {
    console.error(error.message);
    process.exitCode = 1;
  })
  .end();
