// What every scripted model API of the real-agent suite shares: a loopback HTTP server on a free
// port whose handler may be async (a throw is a 500, never an unhandled rejection), and a
// request body read whole and parsed as JSON ({} when empty or not JSON). Each fake
// (fake-messages-api.ts, fake-responses-api.ts, fake-gemini-api.ts) scripts only its answers.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RunningFakeApi {
  url: string;
  /** Every request, in arrival order: its path (no query) and parsed body. */
  requests: { path: string; body: unknown }[];
  close(): Promise<void>;
}

/** The request's path (no query) and its JSON body, recorded in `requests`. */
export async function readRequest<Request>(req: IncomingMessage, requests: { path: string; body: unknown }[]): Promise<{ path: string; body: Request }> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const raw = Buffer.concat(chunks).toString('utf8');
  let body: Request;
  try {
    body = (raw ? JSON.parse(raw) : {}) as Request;
  } catch {
    body = {} as Request;
  }
  const path = (req.url ?? '').split('?')[0];
  requests.push({ path, body });
  return { path, body };
}

export async function startFakeApi(
  requests: { path: string; body: unknown }[],
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<unknown>,
): Promise<RunningFakeApi> {
  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
