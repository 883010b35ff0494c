/**
 * Unit tests of src/api/: the service's endpoints, pages, parsing, rate budget and retries.
 * One jest file for them all, so that their modules load once (CONTRIBUTING.md, Tests): a new unit test
 * of this part goes in api/ and is imported here.
 */
import './api/endpoints.js'
import './api/paging.js'
import './api/parse.js'
import './api/rate-budget.js'
import './api/retry.js'
import './api/retry-effect.js'
