import type { Readable } from 'node:stream'
import nodeFetch from 'node-fetch'
import type { Network } from '../../src/network.js'
import { VirtualClock } from './virtual-clock.js'

/**
 * A VirtualClock whose service side hands the action the answer as it arrives, as node-fetch does,
 * instead of read whole first: an answer of hundreds of MB is read only as far as the action reads
 * it (its cap), as on the runner. The request stays in flight until its body is read to the end,
 * fails or is dropped (every path of src/api/transport.ts reads the body or destroys it).
 */
export class StreamingClock extends VirtualClock {
  override get network(): Network {
    const github = super.network.github
    const service: Network['service'] = (url, init) =>
      new Promise((resolve, reject) => {
        // VirtualClock's own bookkeeping of requests in flight (private there: one place for it).
        const follow = (
          this as unknown as { follow: (send: (id: number) => Promise<void>) => Promise<void> }
        ).follow.bind(this)
        follow(async id => {
          const headers = new Headers(init?.headers as ConstructorParameters<typeof Headers>[0])
          headers.set('x-virtual-request', String(id))
          const response = await nodeFetch(url, { ...init, headers: Object.fromEntries(headers) })
          const body = response.body as unknown as Readable | null
          const done = body
            ? new Promise<void>(settle => {
                for (const event of ['end', 'error', 'close']) body.once(event, () => settle())
              })
            : Promise.resolve()
          resolve(response)
          await done
        }).catch(reject)
      })
    return { service, github }
  }
}
