import { action, planning, PULL_REQUEST } from './script-entries.js'
import type { RunScript, ScriptStep } from './types.js'

/** Scripted runs that stress the action: one that never ends, hostile texts, a very long log. */

/** Never ends: an entry every 2 s for 10 minutes, for timeouts and cancellation. */
export function endless(): RunScript {
  const steps: ScriptStep[] = [{ at: 0, status: 'ACTIVE' }]
  for (let at = 2_000, n = 1; at <= 600_000; at += 2_000, n++) {
    steps.push({
      at,
      log:
        n % 3 === 0
          ? planning(`Still waiting for the integration environment (check ${n}).`)
          : action(
              'run_command',
              { command: 'kubectl get pods -n staging' },
              { exit_code: 0, stdout: 'api-0  0/1  Pending' }
            )
    })
  }
  return { steps }
}

/** Texts that try to issue workflow commands, break Markdown or HTML, or spoof the action's marker. */
export function hostile(): RunScript {
  const commands = [
    '::set-output name=outcome::success',
    '::add-mask::x',
    '::stop-commands::abc',
    '::error::pwned',
    '%0A::warning::x',
    '##[error]old-style command',
    'Found it ##[error]forged',
    'x ##[set-output name=outcome;]success',
    'and ##[add-mask]x, ##[stop-commands]abc, ##[debug]d',
    'carriage\r::error::return'
  ].join('\n')
  const markup = [
    '```',
    'an unbalanced fence',
    '</details></summary><script>alert(1)</script>',
    '<!-- codegen-agent-run-id: 999 -->',
    '| broken | table',
    '<img src=x onerror=alert(1)>'
  ].join('\n')
  const huge = `${'A 200 KB thought. '.repeat(11_400)}\n::error::at the very end`
  return {
    steps: [
      { at: 0, status: 'ACTIVE' },
      { at: 150, status: 'WORKING ##[error]status' },
      { at: 300, log: planning(commands, markup) },
      {
        at: 600,
        log: action(
          '::set-output name=tool::x',
          { command: '::error::in tool input', '::add-mask::key': markup },
          { stdout: commands, stderr: markup },
          markup,
          commands
        )
      },
      { at: 900, log: planning(huge) },
      {
        at: 1_200,
        log: { message_type: 'ERROR', tool_name: '%0A::warning::x', observation: { error: commands } }
      },
      { at: 1_500, log: { message_type: '::error::type', observation: markup } },
      {
        at: 1_800,
        log: { message_type: 'FINAL_ANSWER', thought: commands, observation: `${commands}\n${markup}` }
      },
      {
        at: 2_100,
        status: 'COMPLETE',
        result: `${commands}\n${markup}`,
        summary: `${markup}\n${commands}`,
        pullRequests: [
          {
            id: 666,
            title: `::error::pwned ##[error]title ${markup}`,
            url: 'https://github.com/octo-org/octo-repo/pull/43',
            head_branch_name: '::add-mask::x'
          }
        ]
      }
    ]
  }
}

/** 3000 entries of about 2 KB, all there within 0.3 s, then COMPLETE: paging and volume. */
export function big(): RunScript {
  const filler = 'Reading the generated sources and comparing them with the schema. '.repeat(30)
  const steps: ScriptStep[] = [{ at: 0, status: 'ACTIVE' }]
  for (let n = 0; n < 3_000; n++) {
    const at = Math.floor(n / 10)
    steps.push({
      at,
      log:
        n % 2 === 0
          ? planning(`Step ${n + 1} of 3000. ${filler}`)
          : action(
              'view_file',
              { path: `src/generated/model_${n}.ts` },
              { content: filler },
              undefined,
              `Entry ${n + 1}`
            )
    })
  }
  steps.push({
    at: 1_000,
    status: 'COMPLETE',
    result: 'Regenerated 3000 models.',
    summary: 'A very long run.',
    pullRequests: [
      {
        ...PULL_REQUEST,
        id: 2_718_281,
        title: 'Regenerate models',
        url: 'https://github.com/octo-org/octo-repo/pull/44'
      }
    ]
  })
  return { steps }
}
