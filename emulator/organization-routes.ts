import { json, pageOf, serviceError, type Answer } from './answers.js'
import { MEMBERS_ADMIN_ONLY, type ModeName } from './modes.js'
import { pathIds, type Admission, type Call } from './routes.js'
import type {
  EmulatedOrganization,
  IntegrationStatus,
  Organization,
  OrganizationIntegrations,
  Repo,
  User
} from './types.js'
import { Validator } from './validation.js'

/** What the organization's routes read of the emulator: its tokens, organizations, repositories, modes. */
export interface OrganizationState {
  tokens: ReadonlyMap<string, { orgIds: number[]; userId: number }>
  organizations: ReadonlyMap<number, EmulatedOrganization>
  repos: readonly Repo[]
  modes: ReadonlySet<ModeName>
  /** Auth, rate limits and organization access (the server's). */
  admit: (call: Call, orgId: number | undefined) => Admission
}

/** The service's organization routes: repositories, organizations, users, integrations. */
export class OrganizationRoutes {
  constructor(private readonly deps: OrganizationState) {}

  /** A page of an organization's listing asked for: validated, then admitted; or the answer refusing it. */
  private pageRead(
    call: Call
  ): { orgId: number; skip: number; limit: number; admission: { userId: number } } | { refused: Answer } {
    const v = new Validator()
    const { orgId } = pathIds(v, call)
    const skip = v.queryInteger(call.query, 'skip', 0, { ge: 0 })
    const limit = v.queryInteger(call.query, 'limit', 100, { ge: 1, le: 100 })
    if (v.failed) return { refused: json(v.body, 422) }

    const admission = this.deps.admit(call, orgId)
    if (!admission.admitted) return { refused: admission.answer }
    return { orgId, skip, limit, admission }
  }

  listRepos(call: Call): Answer {
    const read = this.pageRead(call)
    if ('refused' in read) return read.refused
    const { orgId, skip, limit } = read
    return json(
      pageOf(
        this.deps.repos.filter(repo => repo.organization_id === orgId),
        skip,
        limit
      )
    )
  }

  /** The user a token stands for: user 1 is octocat, the others member-N. */
  private user(userId: number, orgId?: number): User {
    const login = userId === 1 ? 'octocat' : `member-${userId}`
    const admin = userId === 1
    return {
      id: userId,
      email: `${login}@example.com`,
      github_user_id: String(583_230 + userId),
      github_username: login,
      avatar_url: `https://avatars.githubusercontent.com/u/${583_230 + userId}`,
      full_name: userId === 1 ? 'The Octocat' : `Member ${userId}`,
      role: orgId === undefined ? null : admin ? 'ADMIN' : 'MEMBER',
      is_admin: orgId === undefined ? null : admin
    }
  }

  /** `members-admin-only`: the refusal of a member read to a token that is not an admin. */
  private membersRefused(userId: number, orgId: number): Answer | undefined {
    if (!this.deps.modes.has('members-admin-only') || this.user(userId, orgId).is_admin) return undefined
    return serviceError(403, MEMBERS_ADMIN_ONLY)
  }

  /** Ids of the users (one per token) that belong to the organization. */
  private members(orgId: number): number[] {
    return [...this.deps.tokens.values()]
      .filter(holder => holder.orgIds.includes(orgId))
      .map(holder => holder.userId)
  }

  private organizationResponse(id: number): Organization {
    const org = this.deps.organizations.get(id)
    return {
      id,
      name: org?.name ?? `Organization ${id}`,
      settings: { enable_pr_creation: true, enable_rules_detection: true }
    }
  }

  listOrganizations(call: Call): Answer {
    const v = new Validator()
    const skip = v.queryInteger(call.query, 'skip', 0, { ge: 0 })
    const limit = v.queryInteger(call.query, 'limit', 100, { ge: 1, le: 100 })
    if (v.failed) return json(v.body, 422)

    const admission = this.deps.admit(call, undefined)
    if (!admission.admitted) return admission.answer
    const holder = [...this.deps.tokens.values()].find(entry => entry.userId === admission.userId)
    const ids = [...(holder?.orgIds ?? [])].sort((a, b) => a - b)
    return json(
      pageOf(
        ids.map(id => this.organizationResponse(id)),
        skip,
        limit
      )
    )
  }

  currentUser(call: Call): Answer {
    const admission = this.deps.admit(call, undefined)
    if (!admission.admitted) return admission.answer
    return json(this.user(admission.userId))
  }

  listUsers(call: Call): Answer {
    const read = this.pageRead(call)
    if ('refused' in read) return read.refused
    const { orgId, skip, limit, admission } = read
    const refused = this.membersRefused(admission.userId, orgId)
    if (refused) return refused
    return json(
      pageOf(
        this.members(orgId).map(id => this.user(id, orgId)),
        skip,
        limit
      )
    )
  }

  getUser(call: Call): Answer {
    const v = new Validator()
    const { orgId } = pathIds(v, call)
    if (v.failed) return json(v.body, 422)
    // Validated with the other path ids, in the route's order.
    const userId = Number(call.params.user_id)

    const admission = this.deps.admit(call, orgId)
    if (!admission.admitted) return admission.answer
    const refused = this.membersRefused(admission.userId, orgId)
    if (refused) return refused
    return this.members(orgId).includes(userId)
      ? json(this.user(userId, orgId))
      : serviceError(404, 'User not found.')
  }

  integrations(call: Call): Answer {
    const v = new Validator()
    const { orgId } = pathIds(v, call)
    if (v.failed) return json(v.body, 422)

    const admission = this.deps.admit(call, orgId)
    if (!admission.admitted) return admission.answer
    const github = this.deps.organizations.get(orgId)?.githubIntegration !== false
    const integrations: IntegrationStatus[] = [
      {
        integration_type: 'github',
        active: github,
        token_id: null,
        installation_id: github ? 40_000_000 + orgId : null,
        metadata: github ? { account: 'octo-org' } : null
      },
      { integration_type: 'slack', active: false, token_id: null, installation_id: null, metadata: null }
    ]
    return json({
      organization_id: orgId,
      organization_name: this.organizationResponse(orgId).name,
      integrations,
      total_active_integrations: integrations.filter(item => item.active).length
    } satisfies OrganizationIntegrations)
  }
}
