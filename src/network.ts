import nodeFetch from 'node-fetch'

/**
 * The action's HTTP, one function for each side: the service's requests through node-fetch (its
 * answer a Node stream, read within a cap), GitHub's through the platform's fetch, which Octokit
 * uses. main.ts hands in these; tests hand in the same, each request followed by the virtual clock.
 */
export interface Network {
  service: typeof nodeFetch
  github: typeof fetch
  /**
   * The thread's images (issue 45), from GitHub's image hosts alone, never with a credential; its
   * own side so tests point it at an image host of their own.
   */
  images: typeof fetch
}

export const systemNetwork: Network = {
  service: nodeFetch,
  github: (input, init) => fetch(input, init),
  images: (input, init) => fetch(input, init)
}
