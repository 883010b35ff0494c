import {
  ACTOR,
  ALICE,
  call,
  DOCS,
  fake,
  ISSUE,
  octokit,
  REPO,
  startFake,
  statusOf
} from '../../support/github-fake-world.js'

/**
 * Issue comments, reactions and review comments on the fake GitHub: stored, paged, edited and refused
 * as GitHub does.
 */

describe('issue comments', () => {
  test('a created comment is written by the actor, listed, and kept in creation order', async () => {
    await startFake({ permissions: { alice: 'write' } })
    fake.addComment(5, '/codegen fix the test', ALICE)
    const created = await octokit.rest.issues.createComment({ ...REPO, issue_number: 5, body: 'On it' })
    expect(created.status).toBe(201)
    expect(created.data).toMatchObject({ body: 'On it', user: ACTOR, author_association: 'NONE' })
    expect(created.data.html_url).toBe(
      `https://github.com/octo-org/octo-repo/issues/5#issuecomment-${created.data.id}`
    )

    const listed = await octokit.rest.issues.listComments({ ...REPO, issue_number: 5 })
    expect(
      listed.data.map(comment => [comment.body, comment.user?.login, comment.author_association])
    ).toEqual([
      ['/codegen fix the test', 'alice', 'COLLABORATOR'],
      ['On it', 'github-actions[bot]', 'NONE']
    ])
    expect(listed.data[0]).toMatchObject({ node_id: expect.any(String), user: { id: expect.any(Number) } })
    expect(fake.comments(5).map(comment => comment.body)).toEqual(['/codegen fix the test', 'On it'])
    expect(fake.comments(6)).toEqual([])
    expect(fake.requests[0]).toMatchObject({ method: 'POST', body: { body: 'On it' }, status: 201 })
  })

  test('105 comments: octokit.paginate follows the Link header through every page', async () => {
    await startFake()
    for (let i = 1; i <= 105; i++) fake.addComment(9, `comment ${i}`, ALICE)
    const all = await octokit.paginate(octokit.rest.issues.listComments, { ...REPO, issue_number: 9 })
    expect(all.map(comment => comment.body)).toEqual(
      Array.from({ length: 105 }, (_, i) => `comment ${i + 1}`)
    )
    expect(fake.requests.map(request => request.query.page ?? '1')).toEqual(['1', '2', '3', '4'])

    const big = await octokit.paginate(octokit.rest.issues.listComments, {
      ...REPO,
      issue_number: 9,
      per_page: 100
    })
    expect(big).toHaveLength(105)
    expect(fake.requests).toHaveLength(6)
  })

  test('the Link header is absolute and as GitHub writes it; per_page is capped at 100', async () => {
    await startFake()
    for (let i = 1; i <= 25; i++) fake.addComment(9, `comment ${i}`, ALICE)
    const url = `${fake.baseUrl}${ISSUE}/9/comments`
    const first = await call('GET', `${ISSUE}/9/comments?per_page=10`)
    expect(first.body).toHaveLength(10)
    expect(first.headers.get('link')).toBe(
      `<${url}?per_page=10&page=2>; rel="next", <${url}?per_page=10&page=3>; rel="last"`
    )
    const middle = await call('GET', `${ISSUE}/9/comments?per_page=10&page=2`)
    expect(middle.headers.get('link')).toBe(
      `<${url}?per_page=10&page=1>; rel="prev", <${url}?per_page=10&page=3>; rel="next", ` +
        `<${url}?per_page=10&page=3>; rel="last", <${url}?per_page=10&page=1>; rel="first"`
    )
    const last = await call('GET', `${ISSUE}/9/comments?per_page=10&page=3`)
    expect(last.body.map((comment: { body: string }) => comment.body)).toEqual([
      'comment 21',
      'comment 22',
      'comment 23',
      'comment 24',
      'comment 25'
    ])
    expect(last.headers.get('link')).not.toContain('rel="next"')
    const capped = await call('GET', `${ISSUE}/9/comments?per_page=500`)
    expect(capped.body).toHaveLength(25)
    expect(capped.headers.get('link')).toBeNull()
  })

  test('an update changes the body; only the actor may edit, unknown ids are 404', async () => {
    await startFake()
    const theirs = fake.addComment(5, 'mine, not yours', ALICE)
    const { data: ours } = await octokit.rest.issues.createComment({
      ...REPO,
      issue_number: 5,
      body: 'Working'
    })
    const updated = await octokit.rest.issues.updateComment({ ...REPO, comment_id: ours.id, body: 'Done' })
    expect(updated.status).toBe(200)
    expect(updated.data).toMatchObject({ id: ours.id, body: 'Done', created_at: ours.created_at })
    expect(fake.comments(5).map(comment => comment.body)).toEqual(['mine, not yours', 'Done'])

    expect(await call('PATCH', `${ISSUE}/comments/${theirs.id}`, { body: { body: 'x' } })).toMatchObject({
      status: 403,
      body: { message: 'Resource not accessible by integration' }
    })
    expect(await statusOf(octokit.rest.issues.updateComment({ ...REPO, comment_id: 12345, body: 'x' }))).toBe(
      404
    )
    expect(fake.comments(5)[0]?.body).toBe('mine, not yours')
  })

  test('a body of 65536 characters is fine, one more is 422 Validation Failed; so is a missing body', async () => {
    await startFake()
    const max = 'x'.repeat(65536)
    const created = await octokit.rest.issues.createComment({ ...REPO, issue_number: 5, body: max })
    expect(created.data.body).toHaveLength(65536)

    const tooLong = {
      status: 422,
      body: {
        message: 'Validation Failed',
        errors: [
          {
            resource: 'IssueComment',
            code: 'custom',
            field: 'body',
            message: 'body is too long (maximum is 65536 characters)'
          }
        ],
        documentation_url: `${DOCS}/issues/comments#create-an-issue-comment`
      }
    }
    expect(await call('POST', `${ISSUE}/5/comments`, { body: { body: `${max}x` } })).toEqual(
      expect.objectContaining(tooLong)
    )
    const update = await call('PATCH', `${ISSUE}/comments/${created.data.id}`, { body: { body: `${max}x` } })
    expect(update).toMatchObject({ status: 422, body: { message: 'Validation Failed' } })
    expect(update.body.errors).toEqual(tooLong.body.errors)

    const missing = await call('POST', `${ISSUE}/5/comments`, { body: {} })
    expect(missing).toMatchObject({
      status: 422,
      body: { message: expect.stringMatching(/^Invalid request/) }
    })
    expect((await call('POST', `${ISSUE}/5/comments`, { body: { body: 5 } })).status).toBe(422)
    expect(fake.comments(5)).toHaveLength(1)
  })
})

describe('reactions', () => {
  test('reactions on a comment and on an issue are 201, a repeat 200; bad content 422', async () => {
    await startFake()
    const comment = fake.addComment(5, '/codegen go', ALICE)
    const onComment = await octokit.rest.reactions.createForIssueComment({
      ...REPO,
      comment_id: comment.id,
      content: 'eyes'
    })
    expect(onComment).toMatchObject({ status: 201, data: { content: 'eyes', user: ACTOR } })
    expect(onComment.data.id).toEqual(expect.any(Number))
    const again = await octokit.rest.reactions.createForIssueComment({
      ...REPO,
      comment_id: comment.id,
      content: 'eyes'
    })
    expect(again).toMatchObject({ status: 200, data: { id: onComment.data.id } })
    const onIssue = await octokit.rest.reactions.createForIssue({
      ...REPO,
      issue_number: 5,
      content: 'rocket'
    })
    expect(onIssue.status).toBe(201)

    expect(
      (await call('POST', `${ISSUE}/comments/${comment.id}/reactions`, { body: { content: 'smile' } })).status
    ).toBe(422)
    expect((await call('POST', `${ISSUE}/5/reactions`, { body: {} })).status).toBe(422)
    expect(
      await statusOf(octokit.rest.reactions.createForIssueComment({ ...REPO, comment_id: 1, content: '+1' }))
    ).toBe(404)
    expect(fake.reactions).toEqual([
      { target: { commentId: comment.id }, content: 'eyes', user: ACTOR },
      { target: { issueNumber: 5 }, content: 'rocket', user: ACTOR }
    ])
  })
})

describe('review comments, labels and assignees', () => {
  const PR = { number: 7, title: 'Parser', body: '', head: 'feature/parser', base: 'main' }

  test('review comments list with their thread; a reply joins the thread of the comment it answers', async () => {
    await startFake()
    fake.addPullRequest(PR)
    const root = fake.addReviewComment(7, {
      body: '/codegen use a Map',
      user: ALICE,
      path: 'src/a.ts',
      line: 4
    })
    const reply = await octokit.rest.pulls.createReplyForReviewComment({
      ...REPO,
      pull_number: 7,
      comment_id: root.id,
      body: 'On it'
    })
    expect(reply).toMatchObject({
      status: 201,
      data: { in_reply_to_id: root.id, path: 'src/a.ts', line: 4, side: 'RIGHT', user: ACTOR, body: 'On it' }
    })
    // A reply to the reply still lands in the root's thread.
    const second = await octokit.rest.pulls.createReplyForReviewComment({
      ...REPO,
      pull_number: 7,
      comment_id: reply.data.id,
      body: 'Again'
    })
    expect(second.data.in_reply_to_id).toBe(root.id)
    for (let i = 0; i < 30; i++) fake.addReviewComment(7, { body: `c${i}`, user: ALICE })
    const all = await octokit.paginate(octokit.rest.pulls.listReviewComments, { ...REPO, pull_number: 7 })
    expect(all).toHaveLength(33)
    expect(all[0]).toMatchObject({ id: root.id, body: '/codegen use a Map', subject_type: 'line' })
    expect(all[0]!.html_url).toBe(`https://github.com/octo-org/octo-repo/pull/7#discussion_r${root.id}`)
    expect(await statusOf(octokit.rest.pulls.listReviewComments({ ...REPO, pull_number: 8 }))).toBe(404)
    expect(
      await statusOf(
        octokit.rest.pulls.createReplyForReviewComment({
          ...REPO,
          pull_number: 8,
          comment_id: root.id,
          body: 'x'
        })
      )
    ).toBe(404)
  })

  test('review comments are edited by their author only; empty bodies are 422', async () => {
    await startFake()
    fake.addPullRequest(PR)
    const root = fake.addReviewComment(7, { body: 'mine', user: ALICE })
    const reply = await octokit.rest.pulls.createReplyForReviewComment({
      ...REPO,
      pull_number: 7,
      comment_id: root.id,
      body: 'first'
    })
    const edited = await octokit.rest.pulls.updateReviewComment({
      ...REPO,
      comment_id: reply.data.id,
      body: 'second'
    })
    expect(edited).toMatchObject({ status: 200, data: { body: 'second' } })
    expect(fake.reviewComments(7).map(c => c.body)).toEqual(['mine', 'second'])
    expect(
      await statusOf(octokit.rest.pulls.updateReviewComment({ ...REPO, comment_id: root.id, body: 'x' }))
    ).toBe(403)
    expect(
      (
        await call('PATCH', `/repos/octo-org/octo-repo/pulls/comments/${reply.data.id}`, {
          body: { body: ' ' }
        })
      ).status
    ).toBe(422)
    expect(
      await statusOf(octokit.rest.pulls.updateReviewComment({ ...REPO, comment_id: 1, body: 'x' }))
    ).toBe(404)
  })

  test('reactions on review comments', async () => {
    await startFake()
    fake.addPullRequest(PR)
    const root = fake.addReviewComment(7, { body: 'x', user: ALICE })
    const reaction = await octokit.rest.reactions.createForPullRequestReviewComment({
      ...REPO,
      comment_id: root.id,
      content: 'eyes'
    })
    expect(reaction.status).toBe(201)
    expect(
      await statusOf(
        octokit.rest.reactions.createForPullRequestReviewComment({ ...REPO, comment_id: 1, content: 'eyes' })
      )
    ).toBe(404)
    expect(fake.reactions).toEqual([{ target: { reviewCommentId: root.id }, content: 'eyes', user: ACTOR }])
  })

  test('labels and assignees show on the pull request', async () => {
    await startFake()
    fake.addPullRequest(PR)
    fake.addLabel(7, 'codegen')
    fake.addLabel(7, 'Codegen')
    fake.assign(7, 'alice')
    const { data } = await octokit.rest.pulls.get({ ...REPO, pull_number: 7 })
    expect(data.labels.map(label => label.name)).toEqual(['codegen'])
    expect(data.assignees?.map(user => user.login)).toEqual(['alice'])
    expect(fake.labels(7)).toEqual(['codegen'])
    expect(fake.assignees(7)).toEqual(['alice'])
  })
})
