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
