import { readFileSync } from 'node:fs'
import { VirtualClock } from '../../support/virtual-clock.js'
import { HttpAgentRunApi } from '../../../src/api/client.js'
import { endpoints, MAX_LOG_PAGE_BYTES, type Endpoint, type Endpoints } from '../../../src/api/endpoints.js'
import { matchRoute } from '../../../emulator/routes.js'

/**
 * Every call the action makes (src/api/endpoints.ts), held to the service's published OpenAPI
 * document: its method and path are documented (but the beta stop path, which says so), a write
 * is never sent twice blind, and what each call spends of the budget.
 */

const openapi = JSON.parse(
  readFileSync(new URL('../../../emulator/reference/codegen-openapi.json', import.meta.url), 'utf8')
) as { paths: Record<string, Record<string, unknown>> }

/** Whether a concrete path and method is one the document describes (its `{params}` any segment). */
function documented(method: string, path: string): boolean {
  return Object.entries(openapi.paths).some(
    ([template, operations]) =>
      method.toLowerCase() in operations &&
      new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path)
  )
}

const CALLS: Array<[string, Endpoint<unknown>]> = [
  ['createRun', endpoints.createRun(7, { prompt: 'x' })],
  ['resumeRun', endpoints.resumeRun(7, { agent_run_id: 12, prompt: 'y' })],
  ['getRun', endpoints.getRun(7, 12)],
  ['getLogs alpha', endpoints.getLogs(7, 12, 'alpha', 0, 100)],
  ['listRepos', endpoints.listRepos(7, 0, 100)],
  ['listRuns', endpoints.listRuns(7, 0, 100, { source_type: 'API' })],
  ['listOrganizations', endpoints.listOrganizations(7, 0, 100)],
  ['getCurrentUser', endpoints.getCurrentUser(7)],
  ['getUser', endpoints.getUser(7, 3)],
  ['getIntegrations', endpoints.getIntegrations(7)],
  ['generateSetupCommands', endpoints.generateSetupCommands(7, { repo_id: 5 })]
]

test.each(CALLS)('%s: a documented method and path', (_name, endpoint) => {
  expect(documented(endpoint.method, endpoint.path)).toBe(true)
  expect(endpoint.undocumented).toBeUndefined()
})

test('the stop is the undocumented beta path, a write that may be repeated', () => {
  const stop = endpoints.stopRun(7, 12)
  expect(documented(stop.method, stop.path)).toBe(false)
  expect(stop).toMatchObject({ method: 'POST', undocumented: true, effect: 'repeatable-write' })
  expect(stop.body).toEqual({ agent_run_id: 12 })
})

test('reads are GETs; writes are POSTs never repeated blind; a create spends the create budget', () => {
  for (const [, endpoint] of CALLS) expect(endpoint.effect).toBe(endpoint.method === 'GET' ? 'read' : 'write')
  expect(endpoints.createRun(7, { prompt: 'x' }).budgets).toEqual(['general', 'create'])
  expect(endpoints.resumeRun(7, { agent_run_id: 12, prompt: 'y' }).budgets).toEqual(['general'])
})

test('a log page: its own budget and a cap well below the client’s, on either published path', () => {
  const alpha = endpoints.getLogs(7, 12, 'alpha', 100, 50)
  const own = endpoints.getLogs(7, 12, 'interface', 100, 50)
  expect(alpha.path).toBe('/v1/alpha/organizations/7/agent/run/12/logs')
  expect(own.path).toBe('/v1/organizations/7/agent/run/12/logs')
  for (const page of [alpha, own]) {
    expect(page).toMatchObject({ query: { skip: 100, limit: 50 }, budgets: ['general', 'logs'] })
    expect(page.maxBytes).toBe(MAX_LOG_PAGE_BYTES)
  }
})

test('a listing of runs sends only the filters it has', () => {
  expect(endpoints.listRuns(7, 0, 100, {}).query).toEqual({ skip: 0, limit: 100 })
  expect(endpoints.listRuns(7, 0, 100, { user_id: 3 }).query).toEqual({ skip: 0, limit: 100, user_id: 3 })
})

/**
 * One entry a call: a row of the table is the client's method and the emulator's route. Arguments
 * for each row (the compiler asks for one when a row is added).
 */
const ARGUMENTS: { [K in keyof Endpoints]: Parameters<Endpoints[K]> } = {
  createRun: [7, { prompt: 'x' }],
  resumeRun: [7, { agent_run_id: 12, prompt: 'y' }],
  stopRun: [7, 12],
  getRun: [7, 12],
  getLogs: [7, 12, 'interface', 0, 100],
  listRepos: [7, 0, 100],
  listRuns: [7, 0, 100, {}],
  listOrganizations: [7, 0, 100],
  getCurrentUser: [7],
  getUser: [7, 3],
  getIntegrations: [7],
  generateSetupCommands: [7, { repo_id: 5 }]
}

const ROWS = Object.keys(endpoints) as Array<keyof Endpoints>

test.each(ROWS)('%s: a row read by its parser, that the emulator routes', name => {
  const endpoint = (endpoints[name] as (...args: unknown[]) => Endpoint<unknown>)(...ARGUMENTS[name])
  expect(typeof endpoint.parse).toBe('function')
  expect(endpoint.what).not.toBe('')
  expect(matchRoute(endpoint.method, endpoint.path).route).toBeDefined()
})

test('every row is a method of the client, in the faces it names', () => {
  const client = new HttpAgentRunApi({
    baseUrl: 'http://127.0.0.1:9',
    token: 't',
    orgId: 7,
    clock: new VirtualClock()
  })
  for (const name of ROWS) {
    expect(typeof client[name]).toBe('function')
    expect(endpoints[name].faces.length).toBeGreaterThan(0)
  }
})

test("a row's arguments are all counted by its length: the client reads the call options after them", () => {
  for (const name of ROWS) expect(endpoints[name].length).toBe(ARGUMENTS[name].length)
})
