import type { Organization } from '../../../src/api/types.js'
import {
  chooseOrganization,
  nameText,
  organizationList,
  pickOrganization
} from '../../../src/org/organizations.js'

const org = (id: number, name = `Org ${id}`): Organization => ({ id, name })

describe('organizations', () => {
  test('the only one is chosen; several or none is a problem listing up to ten', () => {
    expect(chooseOrganization([org(4)])).toEqual({ organization: org(4) })
    expect(chooseOrganization([])).toEqual({
      problem: expect.stringMatching(/belongs to no Codegen organization/)
    })
    const many = Array.from({ length: 12 }, (_, index) => org(index + 1))
    expect(organizationList(many).split('\n')).toEqual([
      ...many.slice(0, 10).map(item => `  ${item.id} ${item.name}`),
      '  ... and 2 more'
    ])
    expect(pickOrganization(many, 3)).toEqual({ organization: org(3) })
    expect(pickOrganization(many, 99)).toEqual({
      problem: expect.stringMatching(
        /^org-id 99 is not among the token's organizations; set org-id to one of them:\n {2}1 Org 1/
      )
    })
  })

  test("service names stay on one line, bounded, without the runner's command prefixes", () => {
    expect(nameText('Evil\r\n::error::x ##[warning]y\u0085z')).toBe('Evil ::error::x #[warning]y z')
    expect(nameText('x'.repeat(500))).toHaveLength(100)
  })
})
