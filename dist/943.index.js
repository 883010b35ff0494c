export const id = 943;
export const ids = [943];
export const modules = {

/***/ 8943:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   OctokitGitHubApi: () => (/* binding */ OctokitGitHubApi)
/* harmony export */ });
/* harmony import */ var _actions_github__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(1758);
/* harmony import */ var _octokit_plugin_retry__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(9735);
/* harmony import */ var _octokit_plugin_throttling__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(6856);



/**
 * @actions/github's client with the retry plugin (5xx) and the throttling plugin (primary and
 * secondary rate limits): a well-kept answer to GitHub's rate limit rules we would not want to re-write.
 */
class OctokitGitHubApi {
    octokit;
    owner;
    repo;
    constructor(config) {
        const [owner = '', repo = ''] = config.repository.split('/');
        this.owner = owner;
        this.repo = repo;
        this.octokit = (0,_actions_github__WEBPACK_IMPORTED_MODULE_0__/* .getOctokit */ .Q)(config.token, {
            baseUrl: config.apiUrl,
            throttle: {
                onRateLimit: (retryAfter, options, _octokit, retryCount) => {
                    config.warn(`GitHub rate limit on ${options.method} ${options.url}: retrying in ${retryAfter} s`);
                    return retryCount < 2;
                },
                onSecondaryRateLimit: (retryAfter, options, _octokit, retryCount) => {
                    config.warn(`GitHub secondary rate limit on ${options.method} ${options.url}: retrying in ${retryAfter} s`);
                    return retryCount < 3;
                }
            }
        }, _octokit_plugin_retry__WEBPACK_IMPORTED_MODULE_1__/* .retry */ .L, _octokit_plugin_throttling__WEBPACK_IMPORTED_MODULE_2__/* .throttling */ .A);
    }
    get repoParams() {
        return { owner: this.owner, repo: this.repo };
    }
    async permission(login) {
        const { data } = await this.octokit.rest.repos.getCollaboratorPermissionLevel({
            ...this.repoParams,
            username: login
        });
        // role_name tells maintain and triage apart from write and read, or names a custom role.
        return {
            role: data.role_name || data.permission,
            permission: data.permission
        };
    }
    async pullRequestBranches(number) {
        const { data } = await this.octokit.rest.pulls.get({ ...this.repoParams, pull_number: number });
        return { head: data.head.ref, base: data.base.ref };
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
            author: { login: comment.user?.login ?? '', type: comment.user?.type ?? '' }
        }));
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
        if ('commentId' in target) {
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
}


/***/ })

};

//# sourceMappingURL=943.index.js.map