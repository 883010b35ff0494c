/**
 * The flows of the service's limits: daily limits read from the runs list, rate windows shared by one
 * token, GitHub's request policy, in process on the virtual clock against the emulator (and the fake GitHub where GitHub is in the
 * flow). One jest file for them all, so that the action loads once (CONTRIBUTING.md, Tests): a new flow
 * of this kind goes in limits/ and is imported here.
 */
import './limits/daily-limit-pages.js'
import './limits/daily-limit-read.js'
import './limits/daily-limits-usage.js'
import './limits/shared-token.js'
import './limits/request-policy.js'
