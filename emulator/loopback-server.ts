import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/** An HTTP server, on loopback by default: the service emulator's, and the tests' fake GitHub's. */
export interface Listening {
  server: Server
  /** http://host:port, IPv6 hosts in brackets. */
  url: string
}

/** Listens on `port` (0: any free one) and resolves once it does. */
export async function listen(
  handler: (request: IncomingMessage, response: ServerResponse) => void,
  port = 0,
  host = '127.0.0.1'
): Promise<Listening> {
  const server = createServer(handler)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const address = server.address() as AddressInfo
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address
  return { server, url: `http://${shownHost}:${address.port}` }
}

/** Closes the server and every open connection, keep-alive ones included, so tests end at once. */
export async function close(server: Server): Promise<void> {
  const closed = new Promise<void>(resolve => server.close(() => resolve()))
  server.closeAllConnections()
  await closed
}

/**
 * Time as a loopback server keeps it: the system's, or a test's virtual clock shared with the action
 * (test/support/virtual-clock.ts), which moves while a server holds a request back on purpose.
 */
export interface ServerClock {
  now(): number
  sleep(ms: number, signal?: AbortSignal): Promise<void>
  /** Resolves as `until` does, the server holding `request`'s answer back meanwhile (a slow answer, a hang). */
  hold<T>(request: IncomingMessage, until: Promise<T>): Promise<T>
}

/** The system's time; `now` replaces its reading (a test's clock moved by hand). */
export function systemServerClock(now: () => number = Date.now): ServerClock {
  return {
    now,
    sleep: (ms, signal) =>
      new Promise((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason)
        const timer = setTimeout(resolve, Math.max(0, ms))
        signal?.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true })
      }),
    hold: (_request, until) => until
  }
}
