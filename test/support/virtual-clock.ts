import type { IncomingMessage } from 'node:http'
import { setImmediate as nextTurn } from 'node:timers/promises'
import type { Readable } from 'node:stream'
import type { ServerClock } from '../../emulator/loopback-server.js'
import { CancelledError, type Clock } from '../../src/clock.js'
import { systemNetwork, type Network } from '../../src/network.js'

/**
 * Virtual time for the action, the emulator and the fake GitHub at once, in one process: a sleep is
 * a timer of the clock, and time moves to the next timer only when nothing else can happen. Nothing
 * races the machine's speed: a slow machine takes longer to get there, never to another outcome.
 *
 * "Nothing else can happen" is known, not guessed: every request of the action goes through the
 * clock's `network` (the action's Network seam), so the clock knows which requests are in flight,
 * from the call until the whole answer is read; a server that holds one back on purpose (a slow
 * answer, a hang) says so through `hold` (the servers' ServerClock), and the clock may move meanwhile.
 * Once no request is in flight but held ones, a few turns of the event loop with no timer set or
 * fired let every promise that was going to settle do so; then the earliest timer fires.
 *
 * `run(work)` drives it: the work's sleeps only end inside it, one timer at a time.
 */

/** Turns of the event loop with nothing new before time may move: promise chains settle in one. */
const QUIET_TURNS = 3
/** VIRTUAL_CLOCK_TRACE=1: each move of time and each request, on stderr. */
const TRACE = !!process.env.VIRTUAL_CLOCK_TRACE
/** The header naming a request, for its server to hold it. */
const REQUEST_HEADER = 'x-virtual-request'

/** A request of the action its server answered (onAnswered): the nth of the step's, on which side. */
export interface AnsweredRequest {
  index: number
  side: 'service' | 'github' | 'images'
  method: string
  url: URL
}

interface Timer {
  due: number
  order: number
  fire: () => void
}

export class VirtualClock implements Clock, ServerClock {
  /** Every sleep asked for, in order (ms): a test reads what the action waited. */
  readonly sleeps: number[] = []
  private timers: Timer[] = []
  private order = 0
  /** Bumped by every timer set, fired or cleared, and every request that starts, is held or ends. */
  private activity = 0
  /** Requests in flight by id: how many holds each is under (0: it is on its way, time stands still). */
  private readonly inFlight = new Map<number, number>()
  private nextRequest = 1
  private wake: (() => void) | undefined
  private running = false
  /**
   * Looks at each request of the action once its server has answered it, before the action reads the
   * answer: a promise returned holds it there (time may move meanwhile), and an answer whose request
   * was aborted meanwhile (the job cancelled, a deadline) is lost as it would be on the wire.
   */
  onAnswered?: (request: AnsweredRequest) => Promise<void> | undefined
  private answered = 0
  /**
   * What the network's `images` side sends through, followed by the clock: the platform's fetch, or
   * a test's image host (`routedToImageHost` of scripts/github-fake/image-host.ts).
   */
  imagesFetch: typeof fetch = systemNetwork.images

  constructor(public time = Date.parse('2026-03-02T09:00:00Z')) {}

  now(): number {
    return this.time
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps.push(ms)
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(new CancelledError())
      const onAbort = (): void => {
        this.timers = this.timers.filter(other => other !== timer)
        this.changed()
        reject(new CancelledError())
      }
      const timer: Timer = {
        due: this.time + Math.max(0, ms),
        order: this.order++,
        fire: () => {
          signal?.removeEventListener('abort', onAbort)
          resolve()
        }
      }
      this.insert(timer)
      this.changed()
      signal?.addEventListener('abort', onAbort, { once: true })
    })
  }

  /**
   * Runs `work` to its end: whenever nothing but time can move it on, the earliest timer fires. A
   * work that waits on nothing the clock knows (no timer, no request) fails at once: it would hang.
   */
  async run<T>(work: () => Promise<T>, options: { onQuiet?: () => void } = {}): Promise<T> {
    if (this.running) throw new Error('The virtual clock already runs a work: one at a time')
    this.running = true
    let ended: { value: T } | { error: unknown } | undefined
    work().then(
      value => {
        ended = { value }
        this.changed()
      },
      (error: unknown) => {
        ended = { error }
        this.changed()
      }
    )
    try {
      for (;;) {
        await this.quiet(() => ended !== undefined)
        if (ended) break
        // The test's own look at a quiet moment (a cancellation it sends then): quiet again after it.
        const seen = this.activity
        options.onQuiet?.()
        if (seen !== this.activity) continue
        await this.quiet(() => ended !== undefined)
        if (ended) break
        const next = this.timers.shift()
        if (!next || next.due === Infinity)
          throw new Error(
            `The work waits for good: no timer is set and no request is on its way (virtual time ${new Date(this.time).toISOString()})`
          )
        if (TRACE)
          process.stderr.write(
            `virtual clock: +${next.due - this.time} ms to ${new Date(next.due).toISOString()}\n`
          )
        this.time = Math.max(this.time, next.due)
        this.changed()
        next.fire()
      }
    } finally {
      this.running = false
    }
    if ('error' in ended) throw ended.error
    return ended.value
  }

  /** Moves time by `ms` within a run, as a sleep of the test's own (a person acting later). */
  advance(ms: number): Promise<void> {
    return this.sleep(ms)
  }

  /**
   * The action's network with every request followed (Network seam): the very functions main.ts
   * hands in (systemNetwork), each request marked and its answer looked at by the clock.
   */
  get network(): Network {
    return {
      // The answer handed on as it arrives, as node-fetch does (an answer of hundreds of MB is read
      // only as far as the action reads it); in flight until its body ends, fails or is dropped.
      service: (url, init) =>
        new Promise((resolve, reject) => {
          this.follow(async id => {
            const response = await systemNetwork.service(url, {
              ...init,
              headers: withHeader(init?.headers, id)
            })
            const body = response.body as unknown as Readable | null
            const signal = (init?.signal ?? undefined) as AbortSignal | undefined
            try {
              await this.lookAtAnswer(id, 'service', init?.method ?? 'GET', String(url), signal)
            } catch (error) {
              body?.destroy()
              throw error
            }
            const done =
              body && !body.readableEnded && !body.destroyed
                ? new Promise<void>(settle => {
                    for (const event of ['end', 'error', 'close']) body.once(event, () => settle())
                  })
                : Promise.resolve()
            resolve(response)
            await done
          }).catch(reject)
        }),
      github: (input, init) =>
        this.follow(async id => {
          const response = await systemNetwork.github(input, {
            ...init,
            headers: withHeader(init?.headers, id)
          })
          const body = await response.arrayBuffer()
          const url = input instanceof Request ? input.url : String(input)
          await this.lookAtAnswer(id, 'github', init?.method ?? 'GET', url, init?.signal ?? undefined)
          const nullBody = [101, 204, 205, 304].includes(response.status)
          const read = new Response(nullBody ? null : body, response)
          return Object.defineProperty(read, 'url', { value: response.url })
        }),
      // Issue 45's image host: the answer handed on at its head and followed as its body streams (an
      // endless or held answer stays in flight, so the image's time limit fires on virtual time); in
      // flight until its body ends, fails, is cancelled or its request aborted.
      images: (input, init) =>
        new Promise((resolve, reject) => {
          this.follow(async id => {
            const response = await this.imagesFetch(input, {
              ...init,
              headers: withHeader(init?.headers, id)
            })
            const url = input instanceof Request ? input.url : String(input)
            const signal = init?.signal ?? undefined
            try {
              await this.lookAtAnswer(id, 'images', init?.method ?? 'GET', url, signal)
            } catch (error) {
              await response.body?.cancel().catch(() => undefined)
              throw error
            }
            const followed = followedBody(response, signal)
            resolve(followed.response)
            await followed.done
          }).catch(reject)
        })
    }
  }

  /** ServerClock: the server waits for `until` on behalf of `request`, and time may move meanwhile. */
  async hold<T>(request: IncomingMessage, until: Promise<T>): Promise<T> {
    const id = Number(request.headers[REQUEST_HEADER])
    const held = this.inFlight.get(id)
    if (held === undefined) return until
    this.inFlight.set(id, held + 1)
    this.changed()
    try {
      return await until
    } finally {
      const now = this.inFlight.get(id)
      if (now !== undefined) this.inFlight.set(id, now - 1)
      this.changed()
    }
  }

  /** The test's look at an answered request (onAnswered), the request held meanwhile. */
  private async lookAtAnswer(
    id: number,
    side: AnsweredRequest['side'],
    method: string,
    url: string,
    signal: AbortSignal | undefined
  ): Promise<void> {
    const hold = this.onAnswered?.({ index: ++this.answered, side, method, url: new URL(url) })
    if (!hold) return
    const held = this.inFlight.get(id)
    if (held !== undefined) this.inFlight.set(id, held + 1)
    this.changed()
    try {
      await hold
    } finally {
      const now = this.inFlight.get(id)
      if (now !== undefined) this.inFlight.set(id, now - 1)
      this.changed()
    }
    if (signal?.aborted) throw Object.assign(new Error('The operation was aborted.'), { name: 'AbortError' })
  }

  /** One request, in flight from the call until its whole answer is read (or it failed). */
  private async follow<T>(send: (id: number) => Promise<T>): Promise<T> {
    const id = this.nextRequest++
    this.inFlight.set(id, 0)
    this.changed()
    try {
      return await send(id)
    } catch (error) {
      if (TRACE) process.stderr.write(`virtual clock: request ${id} failed: ${String(error)}\n`)
      throw error
    } finally {
      this.inFlight.delete(id)
      this.changed()
    }
  }

  /** Resolves once nothing but time can move the work on (or `done()` holds). */
  private async quiet(done: () => boolean): Promise<void> {
    let calm = 0
    let seen = this.activity
    while (!done()) {
      if (this.onTheirWay()) {
        await new Promise<void>(resolve => (this.wake = resolve))
        calm = 0
        continue
      }
      await nextTurn()
      // A file read or written, a connection opened or closed: it ends on its own, soon.
      if (seen !== this.activity || transientWork()) calm = 0
      else if (++calm >= QUIET_TURNS) return
      seen = this.activity
    }
  }

  /** Some request is on its way: neither answered yet nor held by its server. */
  private onTheirWay(): boolean {
    for (const holds of this.inFlight.values()) if (holds === 0) return true
    return false
  }

  private changed(): void {
    this.activity++
    const wake = this.wake
    this.wake = undefined
    wake?.()
  }

  private insert(timer: Timer): void {
    let i = this.timers.length
    while (i > 0 && (this.timers[i - 1] as Timer).due > timer.due) i--
    this.timers.splice(i, 0, timer)
  }
}

/**
 * Node's requests in progress that end on their own (file system calls, connects, closes, writes,
 * name look-ups): while one is, a promise may yet settle, so time does not move. Handles that live
 * on (sockets, servers, child processes, timers) are not among them.
 */
const TRANSIENT =
  /^(FSReq|FileHandleCloseReq|CloseReq|ConnectWrap|TCPConnectWrap|PipeConnectWrap|GetAddrInfoReqWrap|GetNameInfoReqWrap|QueryWrap|ShutdownWrap|WriteWrap|Zlib)/

function transientWork(): boolean {
  return process.getActiveResourcesInfo().some(name => TRANSIENT.test(name))
}

/**
 * A platform fetch's answer whose body's end is known: `done` resolves once the body ended, failed or
 * was cancelled, or the request was aborted; the answer handed on reads the same bytes as they come.
 */
function followedBody(
  response: Response,
  signal: AbortSignal | undefined
): { response: Response; done: Promise<void> } {
  const body = response.body
  if (!body) return { response, done: Promise.resolve() }
  let settle = (): void => undefined
  const done = new Promise<void>(resolve => (settle = resolve))
  if (signal?.aborted) settle()
  signal?.addEventListener('abort', () => settle(), { once: true })
  const reader = body.getReader()
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { done: ended, value } = await reader.read()
          if (ended) {
            controller.close()
            settle()
          } else controller.enqueue(value)
        } catch (error) {
          controller.error(error)
          settle()
        }
      },
      async cancel(reason) {
        settle()
        await reader.cancel(reason).catch(() => undefined)
      }
    },
    { highWaterMark: 0 }
  )
  const nullBody = [101, 204, 205, 304].includes(response.status)
  const followed = new Response(nullBody ? null : stream, response)
  Object.defineProperty(followed, 'url', { value: response.url })
  return { response: followed, done }
}

function withHeader(headers: unknown, id: number): Record<string, string> {
  const merged: Record<string, string> = {}
  new Headers(headers as ConstructorParameters<typeof Headers>[0]).forEach(
    (value, name) => (merged[name] = value)
  )
  merged[REQUEST_HEADER] = String(id)
  return merged
}
