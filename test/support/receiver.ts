// A real HTTP receiver on 127.0.0.1 for notify destinations: it records what reaches it (path,
// headers, body) so a test reads back what tally sent, and answers as the test says (200 unless
// `reply` says otherwise; a reply with `record: false` is not recorded).
import { type IncomingHttpHeaders, createServer } from 'node:http';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  record?: boolean;
}

export async function startReceiver(reply: (path: string) => Reply = () => ({ status: 200 })): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const answer = reply(req.url ?? '');
      if (answer.record !== false) received.push({ path: req.url!, headers: req.headers, body });
      res.writeHead(answer.status, answer.headers).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    received,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
