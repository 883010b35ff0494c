export const id = 386;
export const ids = [386];
export const modules = {

/***/ 3005:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {


// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  OctokitGitHubApi: () => (/* binding */ OctokitGitHubApi)
});

// UNUSED EXPORTS: GITHUB_REQUEST_TIMEOUT_MS

// EXTERNAL MODULE: ../../main/node_modules/@actions/github/lib/github.js + 22 modules
var github = __webpack_require__(8587);
// EXTERNAL MODULE: ./src/clock.ts
var src_clock = __webpack_require__(386);
// EXTERNAL MODULE: ./src/report/check-run-text.ts
var check_run_text = __webpack_require__(3799);
;// CONCATENATED MODULE: ./src/github/request-policy.ts
/**
 * How the action treats GitHub's API, on the action's Clock (so that every wait can be tested to
 * the millisecond): writes spaced as GitHub asks of integrations, rate limits waited out when the
 * wait ends before the calls must, and server errors retried. It stands where Octokit's throttling
 * and retry plugins stood; those wait on timers of their own, which no clock or signal reaches.
 */
/** GitHub asks for at least a second between writes (POST, PATCH, PUT, DELETE). */
const WRITE_SPACING_MS = 1_000;
/** Writes that create content people are notified of (a comment, a reply, a review): three seconds. */
const CONTENT_SPACING_MS = 3_000;
/** A secondary rate limit answered without Retry-After: wait a minute, as GitHub advises. */
const SECONDARY_LIMIT_FALLBACK_S = 60;
/** Retries after a secondary rate limit, after the primary one, and after a server error. */
const MAX_SECONDARY_RETRIES = 3;
const MAX_PRIMARY_RETRIES = 2;
const MAX_SERVER_RETRIES = 3;
/** Answers a retry cannot change. */
const FINAL_STATUSES = new Set([400, 401, 403, 404, 410, 422, 451]);
/** A write that creates content: comments, replies in a review thread, reviews. */
function createsContent({ method, url }) {
    return method === 'POST' && /\/(comments|replies|reviews)$/.test(url);
}
class GitHubRequestPolicy {
    config;
    nextWrite = Number.NEGATIVE_INFINITY;
    nextContent = Number.NEGATIVE_INFINITY;
    constructor(config) {
        this.config = config;
    }
    /** Sends `options` through `request`, spaced and retried as the policy says. */
    async send(request, options) {
        const retries = { secondary: 0, primary: 0, server: 0 };
        const write = options.method !== 'GET' && options.method !== 'HEAD';
        for (;;) {
            if (write)
                await this.spaced(createsContent(options));
            try {
                return await request(options);
            }
            catch (error) {
                const waitMs = this.retryWait(error, options, retries);
                if (waitMs === undefined)
                    throw error;
                await this.config.clock.sleep(waitMs, this.config.signal);
            }
        }
    }
    /** Waits for the write's turn: each a second after the one before, content three seconds apart. */
    async spaced(content) {
        const now = this.config.clock.now();
        const at = Math.max(now, this.nextWrite, content ? this.nextContent : now);
        this.nextWrite = at + WRITE_SPACING_MS;
        if (content)
            this.nextContent = at + CONTENT_SPACING_MS;
        if (at > now)
            await this.config.clock.sleep(at - now, this.config.signal);
    }
    /** How long to wait before sending again, or undefined when the failure stands. */
    retryWait(failure, options, retries) {
        // Stopped (the deadline, the cancellation) or past one attempt's time limit: nothing to retry.
        if (failure.name === 'AbortError' || this.config.signal?.aborted)
            return undefined;
        const status = failure.status ?? 0;
        const headers = failure.response?.headers ?? {};
        if (status === 403 || status === 429) {
            if (/\bsecondary rate\b/i.test(failure.message ?? '') || headers['retry-after'] !== undefined) {
                const seconds = Number(headers['retry-after']) || SECONDARY_LIMIT_FALLBACK_S;
                if (retries.secondary++ >= MAX_SECONDARY_RETRIES)
                    return undefined;
                return this.rateLimitWait('secondary rate limit', seconds, options);
            }
            if (headers['x-ratelimit-remaining'] === '0') {
                const resetMs = Number(headers['x-ratelimit-reset']) * 1000;
                const seconds = Math.max(0, Math.ceil((resetMs - this.config.clock.now()) / 1000) + 1);
                if (retries.primary++ >= MAX_PRIMARY_RETRIES)
                    return undefined;
                return this.rateLimitWait('rate limit', seconds, options);
            }
        }
        // A server error or a lost connection (Octokit throws a RequestError of status 500 for both),
        // and a refusal a retry may change (409, say): retried after 1, 4 and 9 s.
        if (failure.request === undefined || status < 400 || FINAL_STATUSES.has(status))
            return undefined;
        if (retries.server >= MAX_SERVER_RETRIES)
            return undefined;
        retries.server++;
        return retries.server ** 2 * 1000;
    }
    /** A rate limit's wait, said in a warning; undefined when there is no time left for it. */
    rateLimitWait(kind, seconds, { method, url }) {
        const { clock, stopAt, warn } = this.config;
        if (clock.now() + seconds * 1000 >= (stopAt ?? Infinity)) {
            warn(`GitHub ${kind} on ${method} ${url}: no time left to wait ${seconds} s`);
            return undefined;
        }
        warn(`GitHub ${kind} on ${method} ${url}: retrying in ${seconds} s`);
        return seconds * 1000;
    }
}

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

;// CONCATENATED MODULE: ./src/github/api.ts





/** How long one request to GitHub may take (a retry or a rate-limit wait starts a new one). */
const GITHUB_REQUEST_TIMEOUT_MS = 30_000;
/**
 * GitHub's side of the network, each call ending after GITHUB_REQUEST_TIMEOUT_MS on the clock or
 * when `stop` aborts. Stopped, it fails as an AbortError, which the request policy does not retry.
 */
function timedFetch(fetch, clock, stop) {
    return async (input, init) => {
        const limit = (0,src_clock/* timeLimit */.zc)(clock, GITHUB_REQUEST_TIMEOUT_MS, new Error('GitHub did not answer in time'));
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
            if (stop?.aborted)
                throw Object.assign(new Error(stopReason(stop)), { name: 'AbortError' });
            throw error;
        }
        finally {
            limit.clear();
        }
    };
}
/** Statuses whose answer has no body (a Response built with one throws). */
function nullBodyStatus(status) {
    return status === 101 || status === 204 || status === 205 || status === 304;
}
/** Why GitHub calls were stopped, from the signal's reason. */
function stopReason(signal) {
    const reason = signal.reason;
    return reason instanceof Error && reason.name !== 'AbortError' ? reason.message : 'the calls were stopped';
}
/**
 * @actions/github's client, its requests spaced, waited and retried by the request policy on the
 * action's clock (request-policy.ts), each bounded by the step's GitHub deadline.
 */
class OctokitGitHubApi {
    octokit;
    owner;
    repo;
    signal;
    warn;
    /** Set once GitHub refused a check run for the token's permissions: no more are sent. */
    checksRefused = false;
    checkWriteErrors = 0;
    constructor(config) {
        const [owner = '', repo = ''] = config.repository.split('/');
        this.owner = owner;
        this.repo = repo;
        this.signal = config.signal;
        this.warn = config.warn;
        this.octokit = (0,github/* getOctokit */.Q)(config.token, {
            baseUrl: config.apiUrl,
            // Each attempt has its own time limit, and every one is aborted with the signal.
            request: { fetch: timedFetch(config.fetch ?? globalThis.fetch, config.clock, config.signal) }
        });
        const policy = new GitHubRequestPolicy(config);
        this.octokit.hook.wrap('request', (request, options) => policy.send(async (next) => request(next), options));
        // Every request's parameters (bodies included) well-formed, here at the boundary, whoever wrote them.
        this.octokit.hook.before('request', options => {
            const params = options;
            for (const key of Object.keys(params))
                if (key !== 'request' && key !== 'headers')
                    params[key] = wellFormed(params[key]);
        });
    }
    get repoParams() {
        return { owner: this.owner, repo: this.repo };
    }
    /** The call, or its end when the signal aborts, whatever the call waits on. */
    bounded(call) {
        const signal = this.signal;
        if (!signal)
            return call;
        call.catch(() => undefined);
        return new Promise((resolve, reject) => {
            const stop = () => reject(new Error(`GitHub did not answer in time (${stopReason(signal)})`));
            if (signal.aborted)
                return stop();
            signal.addEventListener('abort', stop, { once: true });
            call.then(resolve, reject).finally(() => signal.removeEventListener('abort', stop));
        });
    }
    async permission(login) {
        let data;
        try {
            ;
            ({ data } = await this.bounded(this.octokit.rest.repos.getCollaboratorPermissionLevel({ ...this.repoParams, username: login })));
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
        const { data } = await this.bounded(this.octokit.rest.pulls.get({ ...this.repoParams, pull_number: number }));
        return {
            head: data.head.ref,
            base: data.base.ref,
            headRepository: data.head.repo?.full_name ?? '',
            headSha: data.head.sha
        };
    }
    async listComments(issueNumber) {
        const comments = await this.bounded(this.octokit.paginate(this.octokit.rest.issues.listComments, {
            ...this.repoParams,
            issue_number: issueNumber,
            per_page: 100
        }));
        return comments.map(comment => ({
            id: comment.id,
            body: comment.body ?? '',
            author: { login: comment.user?.login ?? '', type: comment.user?.type ?? '' },
            createdAt: comment.created_at
        }));
    }
    async listReviewComments(pullNumber) {
        const comments = await this.bounded(this.octokit.paginate(this.octokit.rest.pulls.listReviewComments, {
            ...this.repoParams,
            pull_number: pullNumber,
            per_page: 100
        }));
        return comments.map(comment => ({
            id: comment.id,
            body: comment.body ?? '',
            author: { login: comment.user?.login ?? '', type: comment.user?.type ?? '' },
            createdAt: comment.created_at,
            reviewThread: comment.in_reply_to_id ?? comment.id
        }));
    }
    async createReviewReply(pullNumber, threadId, body) {
        const { data } = await this.bounded(this.octokit.rest.pulls.createReplyForReviewComment({
            ...this.repoParams,
            pull_number: pullNumber,
            comment_id: threadId,
            body
        }));
        return data.id;
    }
    async updateReviewComment(commentId, body) {
        await this.bounded(this.octokit.rest.pulls.updateReviewComment({ ...this.repoParams, comment_id: commentId, body }));
    }
    async createComment(issueNumber, body) {
        const { data } = await this.bounded(this.octokit.rest.issues.createComment({ ...this.repoParams, issue_number: issueNumber, body }));
        return data.id;
    }
    async updateComment(commentId, body) {
        await this.bounded(this.octokit.rest.issues.updateComment({ ...this.repoParams, comment_id: commentId, body }));
    }
    async react(target, content) {
        if ('reviewCommentId' in target) {
            await this.bounded(this.octokit.rest.reactions.createForPullRequestReviewComment({
                ...this.repoParams,
                comment_id: target.reviewCommentId,
                content
            }));
        }
        else if ('commentId' in target) {
            await this.bounded(this.octokit.rest.reactions.createForIssueComment({
                ...this.repoParams,
                comment_id: target.commentId,
                content
            }));
        }
        else {
            await this.bounded(this.octokit.rest.reactions.createForIssue({
                ...this.repoParams,
                issue_number: target.issueNumber,
                content
            }));
        }
    }
    async identity() {
        try {
            return (await this.bounded(this.octokit.rest.users.getAuthenticated())).data.login;
        }
        catch {
            return undefined;
        }
    }
    async createCheckRun(name, headSha, check) {
        if (this.checksRefused)
            return undefined;
        try {
            const { data } = await this.bounded(this.octokit.rest.checks.create({
                ...this.repoParams,
                name,
                head_sha: headSha,
                ...checkFields(check)
            }));
            return data.id;
        }
        catch (error) {
            this.checkWriteError('create', name, error);
            return undefined;
        }
    }
    async updateCheckRun(id, check) {
        if (this.checksRefused)
            return false;
        try {
            await this.bounded(this.octokit.rest.checks.update({ ...this.repoParams, check_run_id: id, ...checkFields(check) }));
            return true;
        }
        catch (error) {
            this.checkWriteError('update', `${id}`, error);
            return false;
        }
    }
    /** One warning for a missing permission (and no more writes), a few for other failures. */
    checkWriteError(verb, which, error) {
        const { status, message } = error;
        const text = message ?? String(error);
        if (status === 403 && !/rate limit/i.test(text)) {
            this.checksRefused = true;
            this.warn(`Could not ${verb} the check run ${which}: GitHub answered 403 (${text}). The token needs the \`checks: write\` permission: add the line \`checks: write\` under the job's \`permissions:\` (or set \`check-run: false\`). The run goes on without a check.`);
        }
        else if (this.checkWriteErrors++ < 3) {
            this.warn(`Could not ${verb} the check run ${which}: ${text}`);
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
            title: (0,check_run_text/* cutUtf8 */.Ok)(check.title, check_run_text/* CHECK_TITLE_LIMIT_BYTES */.sO),
            summary: (0,check_run_text/* cutUtf8 */.Ok)(check.summary, check_run_text/* CHECK_SUMMARY_LIMIT_BYTES */.I1)
        }
    };
}


/***/ })

};

//# sourceMappingURL=386.index.js.map