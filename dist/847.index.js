export const id = 847;
export const ids = [847];
export const modules = {

/***/ 5847:
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
// EXTERNAL MODULE: ./src/github/request-policy.ts
var request_policy = __webpack_require__(9722);
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
/** Statuses whose answer has no body (a Response built with one throws). */
function nullBodyStatus(status) {
    return status === 101 || status === 204 || status === 205 || status === 304;
}
/**
 * @actions/github's client, its requests spaced, waited and retried by the request policy on the
 * action's clock (request-policy.ts), each bounded by the step's GitHub deadline.
 */
class OctokitGitHubApi {
    octokit;
    owner;
    repo;
    warn;
    /** Set once GitHub refused a check run for the token's permissions: no more are sent. */
    checksRefused = false;
    checkWriteErrors = 0;
    constructor(config) {
        const [owner = '', repo = ''] = config.repository.split('/');
        this.owner = owner;
        this.repo = repo;
        this.warn = config.warn;
        this.octokit = (0,github/* getOctokit */.Q)(config.token, {
            baseUrl: config.apiUrl,
            // Each attempt has its own time limit, and every one is aborted with the signal.
            request: { fetch: timedFetch(config.fetch ?? globalThis.fetch, config.clock, config.signal) }
        });
        const policy = new request_policy/* GitHubRequestPolicy */.P$(config);
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
        const { data } = await this.octokit.rest.pulls.get({ ...this.repoParams, pull_number: number });
        return {
            head: data.head.ref,
            base: data.base.ref,
            headRepository: data.head.repo?.full_name ?? '',
            headSha: data.head.sha
        };
    }
    async listComments(issueNumber) {
        const comments = await this.octokit.paginate(this.octokit.rest.issues.listComments, {
            ...this.repoParams,
            issue_number: issueNumber,
            per_page: 100
        });
        return comments.map(comment => ({
            id: comment.id,
            body: comment.body ?? '',
            author: { login: comment.user?.login ?? '', type: comment.user?.type ?? '' },
            createdAt: comment.created_at
        }));
    }
    async listReviewComments(pullNumber) {
        const comments = await this.octokit.paginate(this.octokit.rest.pulls.listReviewComments, {
            ...this.repoParams,
            pull_number: pullNumber,
            per_page: 100
        });
        return comments.map(comment => ({
            id: comment.id,
            body: comment.body ?? '',
            author: { login: comment.user?.login ?? '', type: comment.user?.type ?? '' },
            createdAt: comment.created_at,
            reviewThread: comment.in_reply_to_id ?? comment.id
        }));
    }
    async createReviewReply(pullNumber, threadId, body) {
        const { data } = await this.octokit.rest.pulls.createReplyForReviewComment({
            ...this.repoParams,
            pull_number: pullNumber,
            comment_id: threadId,
            body
        });
        return data.id;
    }
    async updateReviewComment(commentId, body) {
        await this.octokit.rest.pulls.updateReviewComment({ ...this.repoParams, comment_id: commentId, body });
    }
    async createComment(issueNumber, body) {
        const { data } = await this.octokit.rest.issues.createComment({
            ...this.repoParams,
            issue_number: issueNumber,
            body
        });
        return data.id;
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
    async identity() {
        try {
            return (await this.octokit.rest.users.getAuthenticated()).data.login;
        }
        catch {
            return undefined;
        }
    }
    async createCheckRun(name, headSha, check) {
        if (this.checksRefused)
            return undefined;
        try {
            const { data } = await this.octokit.rest.checks.create({
                ...this.repoParams,
                name,
                head_sha: headSha,
                ...checkFields(check)
            });
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
                    title: (0,check_run_text/* cutUtf8 */.Ok)(text.title, check_run_text/* CHECK_TITLE_LIMIT_BYTES */.sO),
                    summary: (0,check_run_text/* cutUtf8 */.Ok)(text.summary, check_run_text/* CHECK_SUMMARY_LIMIT_BYTES */.I1),
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
    async listReviews(pullNumber) {
        const reviews = await this.octokit.paginate(this.octokit.rest.pulls.listReviews, {
            ...this.repoParams,
            pull_number: pullNumber,
            per_page: 100
        });
        return reviews.map(review => ({
            id: review.id,
            body: review.body ?? '',
            commitId: review.commit_id ?? null,
            author: { login: review.user?.login ?? '', type: review.user?.type ?? '' }
        }));
    }
    async createReview(pullNumber, review) {
        const { data } = await this.octokit.rest.pulls.createReview({
            ...this.repoParams,
            pull_number: pullNumber,
            commit_id: review.commitId,
            body: review.body,
            // A bot comments, never approves.
            event: 'COMMENT',
            ...(review.comments.length > 0 ? { comments: review.comments } : {})
        });
        return data.id;
    }
    /** One warning for a missing permission (and no more writes), a few for other failures. */
    checkWriteError(verb, which, error) {
        // Not created because the step stopped first: nothing failed.
        if (error instanceof request_policy/* NotSentError */.SD)
            return;
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

//# sourceMappingURL=847.index.js.map