import type { EmulatorOptions } from './types.js'

/**
 * Named accounts of the emulated service: who `emulator-token` is and where it may act. `npm start
 * -- --account NAME` and `npm run emulator -- --account NAME` use them.
 */
const ACCOUNTS: Record<string, Pick<EmulatorOptions, 'tokens' | 'organizations'>> = {
  /** One organization (1, Octo Org) with an active GitHub integration: the default. */
  'one-org': {},
  /** Three organizations: org-id must say which. */
  'several-orgs': {
    tokens: { 'emulator-token': [1, 2, 3] },
    organizations: [
      { id: 1, name: 'Octo Org' },
      { id: 2, name: 'Octo Labs' },
      { id: 3, name: 'Octo Archive' }
    ]
  },
  /** Organization 1 whose GitHub integration is inactive: creates are refused. */
  'inactive-integration': { organizations: [{ id: 1, name: 'Octo Org', githubIntegration: false }] },
  /** A token that belongs to no organization. */
  'no-org': { tokens: { 'emulator-token': [] } }
}

export const ACCOUNT_NAMES: readonly string[] = Object.keys(ACCOUNTS)

export function account(name: string): Pick<EmulatorOptions, 'tokens' | 'organizations'> {
  const found = ACCOUNTS[name]
  if (!found) throw new Error(`Unknown account "${name}": one of ${ACCOUNT_NAMES.join(', ')}`)
  return structuredClone(found)
}
