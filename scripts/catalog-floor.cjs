// The floor for `tally pricing` when the catalog changed since the cache: a bare node:http
// client that fetches the same catalog, parses it with JSON.parse and writes its bytes to a
// file, with nothing else (no exactness proof, no rows, no listing, no output). npm run bench
// times it beside tally. CommonJS, as tally's launcher is: an ES module would also start Node's
// module loader (about 15M instructions, 4 ms) and raise the floor.
// Usage: node scripts/catalog-floor.cjs BASE_URL OUT_FILE
const { writeFileSync } = require('node:fs');
const { request } = require('node:http');

const [baseUrl, out] = process.argv.slice(2);

request(new URL('/api/pricing', baseUrl), { headers: { accept: 'application/json' }, agent: false }, (res) => {
  const chunks = [];
  res.on('data', (chunk) => chunks.push(chunk));
  res.on('end', () => {
    const bytes = Buffer.concat(chunks);
    const catalog = JSON.parse(bytes.toString('utf8'));
    writeFileSync(out, bytes);
    if (!Array.isArray(catalog.data)) process.exitCode = 1;
  });
})
  .on('error', (error) => {
    console.error(error.message);
    process.exitCode = 1;
  })
  .end();
