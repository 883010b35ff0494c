/**
 * jest in ESM mode (the @actions and @octokit packages are ESM-only); run with --experimental-vm-modules.
 *
 * `npm test` runs every test but the long suites, which their own scripts run (and .ci/run). Before any test, dist/ is rebuilt when it is older than src/: the end-to-end tests
 * spawn the bundle, and must never test an old one. Then the TypeScript the tests load is compiled
 * once into jest's cache (test/support/warm-transforms.js): a fresh clone's workers find it there.
 */

/**
 * Test files `npm test` leaves to their own scripts: `npm run test:faults`, `npm run test:windows`
 * (jobs on one token against rate windows held in real time: a minute each, or more) and
 * `npm run test:bounds` (answers whose check burns a core until its 10 s are up, by design: 25 s
 * of CPU that would slow every other test) and `npm run test:linearity` (CPU-bound measurements,
 * run alone so that they measure cleanly).
 */
export const LONG_SUITES = ['<rootDir>/test/long/']

export default {
  // jest's node environment, that disables the AsyncLocalStorage of each file when it is over.
  testEnvironment: '<rootDir>/test/support/node-environment.js',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  // ts-jest's output under a cache key that needs neither ts-jest nor TypeScript loaded (ts-transform.js).
  transform: {
    '^.+\\.ts$': ['<rootDir>/test/support/ts-transform.js', { useESM: true, tsconfig: 'tsconfig.test.json' }]
  },
  testMatch: ['**/test/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', ...LONG_SUITES],
  globalSetup: '<rootDir>/test/support/global-setup.js',
  setupFilesAfterEnv: ['<rootDir>/test/support/remove-runner-folders.ts'],
  // The flows are CPU-bound (virtual time costs none), the bundle's files wait on child processes:
  // one worker a core, and one more for those waits.
  maxWorkers: 3,
  // jest's ESM modules are not all freed between files (about 10 MB a file): a worker past this is
  // started afresh. Not lower: a fresh worker costs more CPU (loading jest, TypeScript) than the
  // larger heap's collections (unit and flows: 115 s of CPU at 250MB, 97 s at 600MB).
  workerIdleMemoryLimit: '600MB',
  // A worker with that heap takes longer than jest's 500 ms to end on a busy machine (nothing left
  // open: a probe after each file found no timer, socket or child); a real leak still outlasts 3 s.
  workerGracefulExitTimeout: 3000,
  testSequencer: '<rootDir>/test/support/longest-first.js',
  testTimeout: 60000,
  collectCoverageFrom: ['src/**/*.ts'],
  coverageReporters: ['text-summary', 'text'],
  coverageThreshold: {
    global: { lines: 90 },
    './src/**/*.ts': { lines: 80 }
  }
}
