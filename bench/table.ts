/** The benchmark's table: its rows, the units of its cells, and printing it in its groups' order. */

export interface Row {
  group: string
  figure: string
  action: string
  beside: string
  target: string
  /** undefined: a figure without a target. */
  met?: boolean
  /** The raw numbers behind the cells, for comparing two commits. */
  values: { action?: number; beside?: number }
}

export const seconds = (ms: number): string => `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`
export const millis = (ms: number): string => `${Math.round(ms)} ms`
export const megabytes = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`

/** The groups in the order the table prints them (a group is found by how its title starts). */
export function sortRows(rows: Row[], jobs: number): void {
  const order = [
    'Start-up',
    'Detection lag',
    'Realistic',
    'poll-interval',
    'Catch-up',
    'Large run',
    `${jobs} jobs`,
    'Fan-out',
    'Hostile'
  ]
  rows.sort(
    (a, b) => order.findIndex(p => a.group.startsWith(p)) - order.findIndex(p => b.group.startsWith(p))
  )
}

export function printTable(rows: Row[]): void {
  const header = ['', 'this action', 'beside it', 'target', '']
  const lines = rows.map(row => [
    row.figure,
    row.action,
    row.beside,
    row.target,
    row.met === undefined ? '' : row.met ? 'met' : 'NOT MET'
  ])
  const widths = header.map((cell, i) =>
    Math.max(cell.length, ...lines.map(line => (line[i] as string).length))
  )
  const format = (cells: string[]): string =>
    cells
      .map((cell, i) => cell.padEnd(widths[i] as number))
      .join('  ')
      .trimEnd()
  let group = ''
  console.log(format(header))
  rows.forEach((row, i) => {
    if (row.group !== group) {
      group = row.group
      console.log(`\n${group}`)
    }
    console.log(format(lines[i] as string[]))
  })
}
