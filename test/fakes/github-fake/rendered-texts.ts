import { responseProblems } from '../../../scripts/github-openapi.js'
import { ALICE, fake, octokit, REPO, startFake } from '../../support/github-fake-world.js'

describe('texts read alone, with their HTML', () => {
  /**
   * An issue, an issue comment, a review comment and a review read one at a time: with
   * `Accept: application/vnd.github.full+json` their answer also holds body_text and body_html, whose
   * attachments are signed addresses on the image host carrying the fake's jwt.
   */
  const FULL = { headers: { accept: 'application/vnd.github.full+json' } }
  const ID = '0f6e1c52-3b1a-4c39-9d2e-7a1b2c3d4e5f'
  const SHOT = `![shot](https://github.com/user-attachments/assets/${ID})`

  test('each answer is held to the REST description; full+json adds the HTML with signed image addresses', async () => {
    await startFake()
    fake.texts.setIssue({ number: 7, title: 'Overlap', body: `It overlaps:\n\n${SHOT}`, user: ALICE })
    fake.addPullRequests(8)
    const comment = fake.addComment(
      7,
      `/codegen fix\n\n<img src="https://github.com/user-attachments/assets/${ID}">`,
      ALICE
    )
    const code = fake.addReviewComment(8, { body: `/codegen here ${SHOT}`, user: ALICE })
    const review = fake.texts.addReview(8, { body: `/codegen ${SHOT}`, user: ALICE })

    const issue = await octokit.rest.issues.get({ ...REPO, issue_number: 7, ...FULL })
    const read = await octokit.rest.issues.getComment({ ...REPO, comment_id: comment.id, ...FULL })
    const onCode = await octokit.rest.pulls.getReviewComment({ ...REPO, comment_id: code.id, ...FULL })
    const reviewed = await octokit.rest.pulls.getReview({
      ...REPO,
      pull_number: 8,
      review_id: review.id,
      ...FULL
    })
    expect(responseProblems('GET', '/repos/{owner}/{repo}/issues/{issue_number}', 200, issue.data)).toEqual(
      []
    )
    expect(
      responseProblems('GET', '/repos/{owner}/{repo}/issues/comments/{comment_id}', 200, read.data)
    ).toEqual([])
    expect(
      responseProblems('GET', '/repos/{owner}/{repo}/pulls/comments/{comment_id}', 200, onCode.data)
    ).toEqual([])
    expect(
      responseProblems(
        'GET',
        '/repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}',
        200,
        reviewed.data
      )
    ).toEqual([])
    const signed = `https://private-user-images.githubusercontent.com/4242/398000001-${ID}.png?jwt=${fake.texts.imageToken}`
    for (const data of [issue.data, read.data, onCode.data, reviewed.data]) {
      expect(data.body_html).toContain(`src="${signed}"`)
      expect(data.body_html).not.toContain(` src="https://github.com/user-attachments`)
    }
    expect(issue.data).toMatchObject({ number: 7, title: 'Overlap', user: { login: 'alice' } })
    expect(fake.requests.map(request => request.accept)).toEqual(Array(4).fill(FULL.headers.accept))
  })

  test('without full+json the body alone; an unknown text is 404', async () => {
    await startFake()
    fake.addPullRequests(8)
    const pull = await octokit.rest.issues.get({ ...REPO, issue_number: 8 })
    expect(pull.data).toMatchObject({ title: 'Change 8', pull_request: { url: expect.any(String) } })
    expect(pull.data.body_html).toBeUndefined()
    await expect(octokit.rest.issues.get({ ...REPO, issue_number: 9 })).rejects.toMatchObject({ status: 404 })
    await expect(octokit.rest.issues.getComment({ ...REPO, comment_id: 1 })).rejects.toMatchObject({
      status: 404
    })
  })
})
