export const id = 174;
export const ids = [174];
export const modules = {

/***/ 8174:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {


// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  OctokitGitHubApi: () => (/* binding */ OctokitGitHubApi)
});

// UNUSED EXPORTS: MAX_JOB_PAGES

// EXTERNAL MODULE: ./src/github-shapes.ts
var github_shapes = __webpack_require__(8463);
// EXTERNAL MODULE: external "node:crypto"
var external_node_crypto_ = __webpack_require__(7598);
// EXTERNAL MODULE: ./node_modules/@actions/github/lib/github.js + 22 modules
var github = __webpack_require__(2413);
// EXTERNAL MODULE: ./src/clock.ts
var src_clock = __webpack_require__(9373);
// EXTERNAL MODULE: ./src/text.ts
var src_text = __webpack_require__(8992);
;// CONCATENATED MODULE: ./src/github/log-tail.ts

/**
 * The end of a job's log, where its error is: read as a stream whatever its size, only its last
 * bytes kept (memory bounded, each byte looked at once), then made plain text (ANSI escapes and the
 * runner's timestamps removed) and cut to about 16 KB. The log is hostile (a pull request's tests
 * print whatever they like): it goes into the agent's prompt only, quoted as data.
 */
/**
 * Bytes of the log kept as it streams: enough for LOG_TAIL_CHARS once timestamps and colours go (a
 * line of coloured dots is ten bytes a character).
 */
const LOG_TAIL_BYTES = 256 * 1024;
/** Characters of a log's end the prompt quotes. */
const LOG_TAIL_CHARS = 16_000;
/** The last `capacity` bytes of a stream, in a ring: each chunk's bytes copied once, the rest dropped. */
class TailBuffer {
    capacity;
    ring;
    /** Where the next byte goes. */
    at = 0;
    /** Bytes seen in all. */
    total = 0;
    constructor(capacity = LOG_TAIL_BYTES) {
        this.capacity = capacity;
        this.ring = new Uint8Array(capacity);
    }
    push(chunk) {
        this.total += chunk.length;
        // Of a chunk longer than the ring, only its end can stay.
        const kept = chunk.length > this.capacity ? chunk.subarray(chunk.length - this.capacity) : chunk;
        const first = Math.min(kept.length, this.capacity - this.at);
        this.ring.set(kept.subarray(0, first), this.at);
        this.ring.set(kept.subarray(first), 0);
        this.at = (this.at + kept.length) % this.capacity;
    }
    /** The bytes kept, oldest first. */
    bytes() {
        if (this.total < this.capacity)
            return this.ring.slice(0, this.total);
        const out = new Uint8Array(this.capacity);
        out.set(this.ring.subarray(this.at), 0);
        out.set(this.ring.subarray(0, this.at), this.capacity - this.at);
        return out;
    }
    /** Whether bytes before the kept ones were dropped. */
    get cut() {
        return this.total > this.capacity;
    }
}
/**
 * Escape sequences a terminal reads (colours, cursor moves, titles): CSI `ESC [ … final`, OSC
 * `ESC ] … BEL|ESC \` (within its line), and other two-character escapes; also their 8-bit CSI.
 * Linear: every class here excludes what ends it.
 */
const ANSI = 
// eslint-disable-next-line no-control-regex -- escape sequences are what it removes
/\x1b\[[0-?]*[ -/]*[@-~]|\x9b[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b\n]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]/g;
/** The runner's timestamp at the start of each line: `2024-05-01T10:00:00.1234567Z `. */
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z ?/gm;
/**
 * The kept bytes of a log as plain text: a character cut in two at the start dropped, ANSI escapes,
 * timestamps and invisible characters removed, then its last `maxChars` characters, from a line's
 * start when one begins within them.
 */
function logTail(kept, totalBytes, maxChars = LOG_TAIL_CHARS) {
    let start = 0;
    // A UTF-8 character cut at the ring's start: its continuation bytes (10xxxxxx) go.
    if (totalBytes > kept.length)
        while (start < 3 && start < kept.length && (kept[start] & 0xc0) === 0x80)
            start++;
    const decoded = new TextDecoder('utf-8').decode(kept.subarray(start));
    const plain = (0,src_text/* stripInvisible */._0)(decoded.replace(/\r\n?/g, '\n').replace(ANSI, '').replace(TIMESTAMP, ''));
    // Trailing line breaks trimmed by a scan: /\n+$/ would rescan every run of them that is not the last.
    let end = plain.length;
    while (end > 0 && plain.charCodeAt(end - 1) === 10)
        end--;
    let text = plain.slice(0, end);
    let cut = totalBytes > kept.length;
    // The first line of a cut log is a piece of one: it goes when others follow.
    if (cut) {
        const firstBreak = text.indexOf('\n');
        if (firstBreak >= 0 && firstBreak < text.length - 1)
            text = text.slice(firstBreak + 1);
    }
    if (text.length > maxChars) {
        cut = true;
        const end = text.slice(text.length - maxChars).replace(/^[\udc00-\udfff]/, '');
        const lineStart = end.indexOf('\n');
        text = lineStart >= 0 && lineStart < end.length - 1 ? end.slice(lineStart + 1) : end;
    }
    return { text, totalBytes, cut };
}

// EXTERNAL MODULE: ./src/github/request-policy.ts
var request_policy = __webpack_require__(889);
;// CONCATENATED MODULE: ./src/github/well-formed.ts
/**
 * Every text sent to GitHub well-formed: a lone surrogate (half of a UTF-16 pair, which the service's
 * or the agent's text may hold) is not Unicode, and a JSON parser may refuse the body that carries it.
 */
/** A high surrogate without its low one after it, or a low one without its high one before it. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
/** `text` with each lone surrogate replaced by U+FFFD (as a UTF-8 encoder writes it); linear. */
function wellFormedText(text) {
    return text.replace(LONE_SURROGATE, '\ufffd');
}
/** Request parameters are our own shallow values; deeper than this, a value is kept as it is. */
const MAX_DEPTH = 64;
/**
 * `value` with every string in it well-formed: plain objects and arrays are copied; anything else
 * (a function, a signal) is kept as it is. Linear in the value's size.
 */
function wellFormed(value, depth = 0) {
    if (typeof value === 'string')
        return wellFormedText(value);
    if (value === null || typeof value !== 'object' || depth >= MAX_DEPTH)
        return value;
    if (Array.isArray(value))
        return value.map(item => wellFormed(item, depth + 1));
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null)
        return value;
    // fromEntries defines each key as its own (a key `__proto__` stays a key).
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [wellFormedText(key), wellFormed(item, depth + 1)]));
}

;// CONCATENATED MODULE: ./src/github/octokit.ts





/** The client of `config`, its requests through the request policy. */
function policedOctokit(config) {
    const octokit = (0,github/* getOctokit */.Q)(config.token, {
        baseUrl: config.apiUrl,
        // Each attempt has its own time limit, and every one is aborted with the signal.
        request: { fetch: timedFetch(config.fetch ?? globalThis.fetch, config.clock, config.signal) }
    });
    const policy = new request_policy/* GitHubRequestPolicy */.P$(config);
    octokit.hook.wrap('request', (request, options) => policy.send(async (next) => request(next), options));
    // Every request's parameters (bodies included) well-formed, here at the boundary, whoever wrote them.
    octokit.hook.before('request', options => {
        const params = options;
        for (const key of Object.keys(params))
            if (key !== 'request' && key !== 'headers')
                params[key] = wellFormed(params[key]);
    });
    return octokit;
}
/** When a create whose answer was lost is looked for: 1, 4 and 9 s after it, as a read's retries wait. */
const LOOKS_AFTER_A_LOST_ANSWER_MS = [1_000, 4_000, 9_000];
/** A create is sent at most this often: again only once every look said it is not there. */
const MAX_SENDS = 2;
/**
 * Sends a create; when its answer is lost (answerLost), looks for it with `find` 1, 4 and 9 s later
 * (GitHub may still be doing it) and takes it as soon as it is there. It is sent again only when no
 * look found it and at least one could read (a look that fails tells nothing), and at most once:
 * a second answer lost is looked for as the first was, and its failure stands after the last look.
 * Every wait ends when GitHub's calls are stopped, the failure standing.
 */
async function createdOnce(send, find, { clock, signal }) {
    let failure;
    for (let sends = 0; sends < MAX_SENDS; sends++) {
        try {
            return await send();
        }
        catch (error) {
            if (!(0,request_policy/* answerLost */.lM)(error) || signal?.aborted)
                throw error;
            failure = error;
        }
        let seenAbsent = false;
        for (const wait of LOOKS_AFTER_A_LOST_ANSWER_MS) {
            await clock.sleep(wait, signal).catch(() => Promise.reject(failure));
            const found = await find().then(id => ({ id }), () => undefined);
            if (found?.id !== undefined)
                return found.id;
            if (found)
                seenAbsent = true;
        }
        if (!seenAbsent)
            break;
    }
    throw failure;
}
/** How long one request to GitHub may take (a retry or a rate-limit wait starts a new one). */
const GITHUB_REQUEST_TIMEOUT_MS = 30_000;
/**
 * GitHub's side of the network, each call ending after GITHUB_REQUEST_TIMEOUT_MS on the clock or
 * when `stop` aborts. Stopped, it fails as an AbortError, which the request policy does not retry.
 */
function timedFetch(fetch, clock, stop) {
    return async (input, init) => {
        const limit = (0,src_clock/* timeLimit */.zc)(clock, GITHUB_REQUEST_TIMEOUT_MS, new Error('time limit'));
        const signals = [init?.signal, stop, limit.signal];
        try {
            // The whole answer within the limit: Octokit reads the body once fetch has resolved.
            const response = await fetch(input, {
                ...init,
                signal: AbortSignal.any(signals.filter(signal => !!signal))
            });
            const body = await response.arrayBuffer();
            const read = new Response(nullBodyStatus(response.status) ? null : body, response);
            return Object.defineProperty(read, 'url', { value: response.url });
        }
        catch (error) {
            // An AbortError: neither the request policy nor Octokit retries it.
            const lost = (message) => Object.assign(new Error(message), { name: 'AbortError' });
            if (stop?.aborted)
                throw lost(`GitHub did not answer in time (${(0,request_policy/* stopReason */.PJ)(stop)})`);
            if (limit.signal.aborted)
                throw lost(`GitHub did not answer within ${GITHUB_REQUEST_TIMEOUT_MS / 1000} s`);
            throw error;
        }
        finally {
            limit.clear();
        }
    };
}
/**
 * Reads an answer's body as a stream, keeping only its end (TailBuffer), within
 * GITHUB_REQUEST_TIMEOUT_MS on the clock or until `stop` aborts: a job's log of any size, in
 * bounded memory. Sends what `init` holds and nothing more (no token unless `init` has one).
 */
async function readTail(fetch, clock, stop, input, init) {
    const limit = (0,src_clock/* timeLimit */.zc)(clock, GITHUB_REQUEST_TIMEOUT_MS, new Error('time limit'));
    const signals = [init.signal ?? undefined, stop, limit.signal].filter((signal) => !!signal);
    try {
        const response = await fetch(input, { ...init, signal: AbortSignal.any(signals) });
        const tail = new TailBuffer();
        const reader = response.body?.getReader();
        for (let read = await reader?.read(); read && !read.done; read = await reader?.read())
            tail.push(read.value);
        return { status: response.status, headers: response.headers, tail };
    }
    catch (error) {
        const lost = (message) => Object.assign(new Error(message), { name: 'AbortError' });
        if (stop?.aborted)
            throw lost(`GitHub did not answer in time (${(0,request_policy/* stopReason */.PJ)(stop)})`);
        if (limit.signal.aborted)
            throw lost(`the log was not read within ${GITHUB_REQUEST_TIMEOUT_MS / 1000} s`);
        throw error;
    }
    finally {
        limit.clear();
    }
}
/** Statuses whose answer has no body (a Response built with one throws). */
function nullBodyStatus(status) {
    return status === 101 || status === 204 || status === 205 || status === 304;
}
/** An answer's headers without those of the body as it came (its length, its encoding): the body is its end now. */
function withoutLength(headers) {
    const kept = new Headers(headers);
    kept.delete('content-length');
    kept.delete('content-encoding');
    return kept;
}

;// CONCATENATED MODULE: ./src/github/check-runs.ts




/** Pages of a commit's check runs read at most when one is looked for: 1,000 check runs. */
const MAX_CHECK_RUN_PAGES = 10;
/**
 * The check run's writes (octokit-api.ts hands them here): a create sent once, updates and
 * annotations, each failure a warning, and none sent once GitHub refused the token's permission.
 */
class CheckRunWrites {
    octokit;
    repoParams;
    config;
    /** Set once GitHub refused a check run for the token's permissions: no more are sent. */
    checksRefused = false;
    checkWriteErrors = 0;
    /** The creates whose answer was lost and that no look found: the external_id of each, by name and commit. */
    lostCreates = new Map();
    constructor(octokit, repoParams, config) {
        this.octokit = octokit;
        this.repoParams = repoParams;
        this.config = config;
    }
    async createCheckRun(name, headSha, check) {
        if (this.checksRefused)
            return undefined;
        // Ours alone, whoever else writes check runs of that name on that commit (a re-run, another step).
        const externalId = `codegen-${(0,external_node_crypto_.randomBytes)(16).toString('hex')}`;
        const send = async () => (await this.octokit.rest.checks.create({
            ...this.repoParams,
            name,
            head_sha: headSha,
            ...checkFields({ ...check, externalId })
        })).data.id;
        try {
            return await createdOnce(send, () => this.findCheckRun(name, headSha, externalId), this.config);
        }
        catch (error) {
            if ((0,request_policy/* answerLost */.lM)(error))
                this.lostCreates.set(`${name}\n${headSha}`, externalId);
            this.checkWriteError('create', name, error);
            return undefined;
        }
    }
    async findLostCheckRun(name, headSha) {
        const key = `${name}\n${headSha}`;
        const externalId = this.lostCreates.get(key);
        if (externalId === undefined)
            return undefined;
        const found = await this.findCheckRun(name, headSha, externalId).catch(() => undefined);
        if (found !== undefined)
            this.lostCreates.delete(key);
        return found;
    }
    /** The id of the check run `name` on `headSha` whose external_id is `externalId`, if there is one. */
    async findCheckRun(name, headSha, externalId) {
        const pages = this.octokit.paginate.iterator(this.octokit.rest.checks.listForRef, {
            ...this.repoParams,
            ref: headSha,
            check_name: name,
            filter: 'all',
            per_page: 100
        });
        let read = 0;
        for await (const { data } of pages) {
            const found = data.find(run => run.external_id === externalId);
            if (found)
                return found.id;
            if (++read >= MAX_CHECK_RUN_PAGES)
                throw new Error('too many check runs to look through');
        }
        return undefined;
    }
    async updateCheckRun(id, check) {
        if (this.checksRefused)
            return false;
        try {
            await this.octokit.rest.checks.update({ ...this.repoParams, check_run_id: id, ...checkFields(check) });
            return true;
        }
        catch (error) {
            this.checkWriteError('update', `${id}`, error);
            return false;
        }
    }
    async annotateCheckRun(id, text, annotations) {
        if (this.checksRefused)
            return false;
        try {
            await this.octokit.rest.checks.update({
                ...this.repoParams,
                check_run_id: id,
                output: {
                    title: (0,github_shapes/* cutUtf8 */.Ok)(text.title, github_shapes/* CHECK_TITLE_MAX_BYTES */.jE),
                    summary: (0,github_shapes/* cutUtf8 */.Ok)(text.summary, github_shapes/* CHECK_SUMMARY_MAX_BYTES */.lO),
                    annotations
                }
            });
            return true;
        }
        catch (error) {
            this.checkWriteError('annotate', `${id}`, error);
            return false;
        }
    }
    /** One warning for a missing permission (and no more writes), a few for other failures. */
    checkWriteError(verb, which, error) {
        // Not created because the step stopped first: nothing failed.
        if (error instanceof request_policy/* NotSentError */.SD)
            return;
        const { status, message } = error;
        const text = message ?? String(error);
        // A rate limit left after its retries is no missing permission.
        if (status === 403 && !(0,request_policy/* isRateLimit */.a5)(error)) {
            this.checksRefused = true;
            this.config.warn(`Could not ${verb} the check run ${which}: GitHub answered 403 (${text}). The token needs the \`checks: write\` permission: add the line \`checks: write\` under the job's \`permissions:\` (or set \`check-run: false\`). The run goes on without a check.`);
        }
        else if (this.checkWriteErrors++ < 3) {
            this.config.warn(`Could not ${verb} the check run ${which}: ${text}`);
        }
    }
}
/** A check run's fields as the Checks API names them, within GitHub's bytes (the rendering keeps to them). */
function checkFields(check) {
    return {
        status: check.status,
        ...(check.conclusion ? { conclusion: check.conclusion } : {}),
        ...(check.detailsUrl ? { details_url: check.detailsUrl } : {}),
        ...(check.externalId ? { external_id: check.externalId } : {}),
        output: {
            title: (0,github_shapes/* cutUtf8 */.Ok)(check.title, github_shapes/* CHECK_TITLE_MAX_BYTES */.jE),
            summary: (0,github_shapes/* cutUtf8 */.Ok)(check.summary, github_shapes/* CHECK_SUMMARY_MAX_BYTES */.lO)
        }
    };
}

;// CONCATENATED MODULE: ./src/github/octokit-api.ts





/** The media type whose answers carry a text's HTML (`body_html`) beside its Markdown. */
const FULL_JSON = 'application/vnd.github.full+json';
/** Pages of a workflow run's jobs read at most: a run has at most 256 jobs of a matrix, and a few more. */
const MAX_JOB_PAGES = 5;
/** The conclusions of a job (and of a step) that failed: the ones a CI fix looks at. */
const FAILED = new Set(['failure', 'timed_out']);
/**
 * GitHubApi on @actions/github's client (octokit.ts: its requests spaced, waited and retried by the
 * request policy on the action's clock, each bounded by the step's GitHub deadline). The calls of
 * issues, pull requests, comments, reactions and a workflow run's failed jobs are here; the check
 * run's writes in check-runs.ts.
 */
class OctokitGitHubApi {
    octokit;
    repoParams;
    config;
    checks;
    /** The create marks of comments whose create's answer was lost and that were not found since. */
    lostMarks = new Set();
    constructor(config) {
        const [owner = '', repo = ''] = config.repository.split('/');
        this.repoParams = { owner, repo };
        this.config = config;
        this.octokit = policedOctokit(config);
        this.checks = new CheckRunWrites(this.octokit, this.repoParams, config);
    }
    async permission(login) {
        let data;
        try {
            ;
            ({ data } = await this.octokit.rest.repos.getCollaboratorPermissionLevel({
                ...this.repoParams,
                username: login
            }));
        }
        catch (error) {
            // GitHub answers 404 for a login that is no collaborator (and for one that does not exist).
            if (error.status === 404)
                return { role: 'none', permission: 'none' };
            throw error;
        }
        // role_name tells maintain and triage apart from write and read, or names a custom role.
        return {
            role: data.role_name || data.permission,
            permission: data.permission
        };
    }
    async pullRequestBranches(number) {
        const { head, base, headRepository, headSha } = await this.pullRequest(number);
        return { head, base, headRepository, headSha };
    }
    async pullRequest(number) {
        const { data } = await this.octokit.rest.pulls.get({ ...this.repoParams, pull_number: number });
        return {
            head: data.head.ref,
            base: data.base.ref,
            headRepository: data.head.repo?.full_name ?? '',
            headSha: data.head.sha,
            title: data.title,
            url: data.html_url
        };
    }
    async failedJobs(runId) {
        let pages = 0;
        const all = await this.octokit.paginate(this.octokit.rest.actions.listJobsForWorkflowRun, { ...this.repoParams, run_id: runId, filter: 'latest', per_page: 100 }, (response, done) => {
            if (++pages >= MAX_JOB_PAGES)
                done();
            return response.data;
        });
        const failed = all.filter(job => FAILED.has(job.conclusion ?? ''));
        const jobs = failed.map(job => ({
            id: job.id,
            name: job.name,
            conclusion: job.conclusion ?? '',
            failedSteps: (job.steps ?? [])
                .filter(step => FAILED.has(step.conclusion ?? ''))
                .map(step => ({ number: step.number, name: step.name, conclusion: step.conclusion ?? '' }))
        }));
        return { jobs, failedCount: failed.length };
    }
    async jobLogTail(jobId) {
        const { clock, signal, apiUrl } = this.config;
        const fetch = this.config.fetch ?? globalThis.fetch;
        // GitHub's answer itself (a redirect, or the log when a server serves it at once) read as a stream too.
        let direct;
        const answer = await this.octokit.request('GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs', {
            ...this.repoParams,
            job_id: jobId,
            request: {
                redirect: 'manual',
                fetch: async (input, init) => {
                    const read = await readTail(fetch, clock, signal, input, init);
                    direct = read.tail;
                    return new Response(nullBodyStatus(read.status) ? null : read.tail.bytes(), {
                        status: read.status,
                        headers: withoutLength(read.headers)
                    });
                }
            }
        });
        if (answer.status < 300 || answer.status >= 400) {
            const tail = direct ?? new TailBuffer();
            return logTail(tail.bytes(), tail.total);
        }
        // Said apart: an empty Location would resolve to the API's own address, which is no log.
        const location = answer.headers.location?.trim();
        if (!location)
            throw new Error(`GitHub answered ${answer.status} without a Location header: no log address to follow`);
        // The address itself is never shown: it is signed for this read.
        const storage = URL.canParse(location, apiUrl) ? new URL(location, apiUrl) : undefined;
        if (!storage || !/^https?:$/.test(storage.protocol))
            throw new Error(`GitHub answered ${answer.status} with a Location that is no http(s) address: no log address to follow`);
        // Another host, signed for this read: the token is not sent there (nothing but the address is).
        const read = await readTail(fetch, clock, signal, storage.href, { method: 'GET', redirect: 'follow' });
        if (read.status !== 200)
            throw new Error(`the log's storage answered ${read.status}`);
        return logTail(read.tail.bytes(), read.tail.total);
    }
    async listComments(issueNumber) {
        const comments = await this.octokit.paginate(this.octokit.rest.issues.listComments, {
            ...this.repoParams,
            issue_number: issueNumber,
            per_page: 100
        });
        return comments.map(commentSummary);
    }
    async listReviewComments(pullNumber) {
        const comments = await this.octokit.paginate(this.octokit.rest.pulls.listReviewComments, {
            ...this.repoParams,
            pull_number: pullNumber,
            per_page: 100
        });
        return comments.map(comment => ({
            ...commentSummary(comment),
            reviewThread: comment.in_reply_to_id ?? comment.id
        }));
    }
    async createReviewReply(pullNumber, threadId, body) {
        const send = async () => (await this.octokit.rest.pulls.createReplyForReviewComment({
            ...this.repoParams,
            pull_number: pullNumber,
            comment_id: threadId,
            body
        })).data.id;
        return this.commentCreatedOnce(send, body, async () => (await this.listReviewComments(pullNumber)).filter(comment => comment.reviewThread === threadId));
    }
    async updateReviewComment(commentId, body) {
        await this.octokit.rest.pulls.updateReviewComment({ ...this.repoParams, comment_id: commentId, body });
    }
    async createComment(issueNumber, body) {
        const send = async () => (await this.octokit.rest.issues.createComment({ ...this.repoParams, issue_number: issueNumber, body }))
            .data.id;
        return this.commentCreatedOnce(send, body, () => this.listComments(issueNumber));
    }
    /**
     * A comment sent once blind: its answer lost, it is looked for in `comments` (oldest first) by the
     * create mark of `body`; found, it is ours (nobody could know the mark before our comment showed
     * it), else it is sent again. Without a mark it is never sent again; with one whose create was
     * left unknown before (the step writes the comment again later), it is looked for before anything.
     */
    async commentCreatedOnce(send, body, comments) {
        const mark = (0,github_shapes/* createMarkOf */.ZC)(body);
        if (mark === undefined)
            return send();
        const find = async () => (await comments()).find(comment => (0,github_shapes/* createMarkOf */.ZC)(comment.body) === mark)?.id;
        // A create of this mark lost before, and not found since: looked for first, never sent blind.
        const lostBefore = this.lostMarks.has(mark) ? await find() : undefined;
        if (lostBefore !== undefined)
            return lostBefore;
        try {
            const id = await createdOnce(send, find, this.config);
            this.lostMarks.delete(mark);
            return id;
        }
        catch (error) {
            if ((0,request_policy/* answerLost */.lM)(error))
                this.lostMarks.add(mark);
            throw error;
        }
    }
    async updateComment(commentId, body) {
        await this.octokit.rest.issues.updateComment({ ...this.repoParams, comment_id: commentId, body });
    }
    async react(target, content) {
        if ('reviewCommentId' in target) {
            await this.octokit.rest.reactions.createForPullRequestReviewComment({
                ...this.repoParams,
                comment_id: target.reviewCommentId,
                content
            });
        }
        else if ('commentId' in target) {
            await this.octokit.rest.reactions.createForIssueComment({
                ...this.repoParams,
                comment_id: target.commentId,
                content
            });
        }
        else {
            await this.octokit.rest.reactions.createForIssue({
                ...this.repoParams,
                issue_number: target.issueNumber,
                content
            });
        }
    }
    async teamMember(org, slug, login) {
        try {
            const { data } = await this.octokit.rest.teams.getMembershipForUserInOrg({
                org,
                team_slug: slug,
                username: login
            });
            return data.state === 'active';
        }
        catch (error) {
            if (error.status === 404)
                return false;
            throw error;
        }
    }
    async identity() {
        try {
            return (await this.octokit.rest.users.getAuthenticated()).data.login;
        }
        catch {
            return undefined;
        }
    }
    createCheckRun(name, headSha, check) {
        return this.checks.createCheckRun(name, headSha, check);
    }
    findLostCheckRun(name, headSha) {
        return this.checks.findLostCheckRun(name, headSha);
    }
    updateCheckRun(id, check) {
        return this.checks.updateCheckRun(id, check);
    }
    annotateCheckRun(id, text, annotations) {
        return this.checks.annotateCheckRun(id, text, annotations);
    }
    async pullRequestFiles(pullNumber, each) {
        const pages = this.octokit.paginate.iterator(this.octokit.rest.pulls.listFiles, {
            ...this.repoParams,
            pull_number: pullNumber,
            per_page: 100
        });
        for await (const { data } of pages)
            for (const file of data)
                if (each({ filename: file.filename, ...(typeof file.patch === 'string' ? { patch: file.patch } : {}) }))
                    return;
    }
    async renderedText(source) {
        const params = { ...this.repoParams, headers: { accept: FULL_JSON } };
        const { data } = await ('issueNumber' in source
            ? this.octokit.rest.issues.get({ ...params, issue_number: source.issueNumber })
            : 'commentId' in source
                ? this.octokit.rest.issues.getComment({ ...params, comment_id: source.commentId })
                : 'reviewCommentId' in source
                    ? this.octokit.rest.pulls.getReviewComment({ ...params, comment_id: source.reviewCommentId })
                    : this.octokit.rest.pulls.getReview({
                        ...params,
                        pull_number: source.pullNumber,
                        review_id: source.reviewId
                    }));
        const text = data;
        return {
            body: typeof text.body === 'string' ? text.body : '',
            html: typeof text.body_html === 'string' ? text.body_html : '',
            author: { login: text.user?.login ?? '', type: text.user?.type ?? '' },
            createdAt: text.created_at ?? text.submitted_at ?? ''
        };
    }
    async listReviews(pullNumber) {
        const reviews = await this.octokit.paginate(this.octokit.rest.pulls.listReviews, {
            ...this.repoParams,
            pull_number: pullNumber,
            per_page: 100
        });
        return reviews.map(review => ({
            id: review.id,
            body: review.body ?? '',
            author: { login: review.user?.login ?? '', type: review.user?.type ?? '' },
            ...(review.submitted_at ? { submittedAt: review.submitted_at } : {})
        }));
    }
    async createReview(pullNumber, review, find) {
        const send = async () => (await this.octokit.rest.pulls.createReview({
            ...this.repoParams,
            pull_number: pullNumber,
            commit_id: review.commitId,
            body: review.body,
            // A bot comments, never approves.
            event: 'COMMENT',
            ...(review.comments.length > 0 ? { comments: review.comments } : {})
        })).data.id;
        return createdOnce(send, find, this.config);
    }
}
/** An issue comment or a review comment as the action reads it: its text, author and times. */
function commentSummary(comment) {
    return {
        id: comment.id,
        body: comment.body ?? '',
        author: { login: comment.user?.login ?? '', type: comment.user?.type ?? '' },
        createdAt: comment.created_at,
        updatedAt: comment.updated_at
    };
}


/***/ })

};

//# sourceMappingURL=174.index.js.map