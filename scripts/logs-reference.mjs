// The floor for `tally logs --all --ndjson`: a bare node:http client that fetches the same pages
// (following next_cursor) and writes the same lines, with nothing else. npm run bench measures
// tally against it. Usage: node scripts/logs-reference.mjs BASE_URL API_KEY START END LIMIT
import { request } from 'node:http';

const [baseUrl, key, start, end, limit] = process.argv.slice(2);

function get(url) {
  return new Promise((resolve, reject) => {
    request(url, { headers: { authorization: `Bearer ${key}`, accept: 'application/json' }, agent: false }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
      res.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

let cursor;
do {
  const url = new URL('/v1/open/logs', baseUrl);
  url.searchParams.set('start', start);
  url.searchParams.set('end', end);
  url.searchParams.set('limit', limit);
  if (cursor) url.searchParams.set('cursor', cursor);
  const page = await get(url);
  let out = '';
  for (const record of page.data) out += `${JSON.stringify(record)}\n`;
  if (!process.stdout.write(out)) await new Promise((resolve) => process.stdout.once('drain', resolve));
  cursor = page.next_cursor;
} while (cursor);
