import nodeFetch from 'node-fetch'

/**
 * The action's HTTP, one function for each side: the service's requests through node-fetch (its
 * answer a Node stream, read within a cap), GitHub's through the platform's fetch, which Octokit
 * uses. main.ts hands in these; tests hand in the same, each request followed by the virtual clock.
 */
export interface Network {
  service: typeof nodeFetch
  github: typeof fetch
}

export const systemNetwork: Network = {
  service: nodeFetch,
  github: (input, init) => fetch(input, init)
}
