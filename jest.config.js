/** jest in ESM mode (the @actions and @octokit packages are ESM-only); run with --experimental-vm-modules. */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.tools.json' }]
  },
  testMatch: ['**/test/**/*.test.ts'],
  testTimeout: 60000
}
