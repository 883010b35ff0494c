/** The wire shapes the fake GitHub answers with: fields as GitHub names them, the ones clients read. */

/** The simple user object GitHub embeds in comments, pull requests and reactions. */
export interface GitHubUser {
  login: string
  id: number
  node_id: string
  avatar_url: string
  gravatar_id: string
  url: string
  html_url: string
  type: 'User' | 'Bot'
  site_admin: boolean
}

export type AuthorAssociation = 'OWNER' | 'MEMBER' | 'COLLABORATOR' | 'CONTRIBUTOR' | 'NONE'

export interface GitHubIssueComment {
  id: number
  node_id: string
  url: string
  html_url: string
  issue_url: string
  body: string
  user: GitHubUser
  created_at: string
  updated_at: string
  author_association: AuthorAssociation
}

export interface GitHubReviewComment {
  id: number
  node_id: string
  url: string
  html_url: string
  pull_request_url: string
  pull_request_review_id: number
  diff_hunk: string
  path: string
  commit_id: string
  original_commit_id: string
  line: number | null
  original_line: number | null
  start_line: number | null
  original_start_line: number | null
  side: 'LEFT' | 'RIGHT'
  start_side: 'LEFT' | 'RIGHT' | null
  subject_type: 'line' | 'file'
  in_reply_to_id?: number
  body: string
  user: GitHubUser
  created_at: string
  updated_at: string
  author_association: AuthorAssociation
}

export interface GitHubLabel {
  id: number
  node_id: string
  url: string
  name: string
  color: string
  default: boolean
  description: string | null
}

export interface GitHubReaction {
  id: number
  node_id: string
  user: GitHubUser
  content: string
  created_at: string
}

export interface GitHubRepositoryRef {
  id: number
  node_id: string
  name: string
  full_name: string
  private: boolean
  owner: GitHubUser
  html_url: string
  url: string
  fork: boolean
}

export interface GitHubBranchRef {
  label: string
  ref: string
  sha: string
  user: GitHubUser
  repo: GitHubRepositoryRef
}

export interface GitHubPullRequest {
  url: string
  id: number
  node_id: string
  html_url: string
  issue_url: string
  number: number
  state: 'open'
  locked: boolean
  title: string
  user: GitHubUser
  body: string
  created_at: string
  updated_at: string
  draft: boolean
  merged: boolean
  head: GitHubBranchRef
  base: GitHubBranchRef
  labels: GitHubLabel[]
  assignees: GitHubUser[]
  author_association: AuthorAssociation
}

/** Answer of GET /repos/{owner}/{repo}/collaborators/{username}/permission. */
export interface GitHubPermissionAnswer {
  permission: 'admin' | 'write' | 'read' | 'none'
  /** A base role, or a custom role's name. */
  role_name: string
  user: GitHubUser & {
    permissions: { admin: boolean; maintain: boolean; push: boolean; triage: boolean; pull: boolean }
    role_name: string
  }
}

/** GitHub's error body. */
export interface GitHubErrorBody {
  message: string
  documentation_url: string
  /** The status as a string: newer endpoints (the Checks API among them) add it. */
  status?: string
  /** GitHub's validation errors: objects, or plain messages on some endpoints (reviews'). */
  errors?: Array<{ resource: string; code: string; field: string; message?: string } | string>
}
