/** How a raw status string reads to the action. Compared case-insensitively: published examples disagree on case. */
export type StatusClass = 'success' | 'failure' | 'paused' | 'working'

const CLASSES: Record<string, StatusClass> = {
  COMPLETE: 'success',
  COMPLETED: 'success',
  ERROR: 'failure',
  FAILED: 'failure',
  CANCELLED: 'failure',
  STOPPED: 'failure',
  TIMEOUT: 'failure',
  MAX_ITERATIONS_REACHED: 'failure',
  OUT_OF_TOKENS: 'failure',
  PAUSED: 'paused',
  ACTIVE: 'working',
  PENDING: 'working',
  RUNNING: 'working',
  EVALUATION: 'working'
}

export function classifyStatus(status: string | null | undefined): StatusClass {
  return (status && CLASSES[status.trim().toUpperCase()]) || 'working'
}

/** False for a status this action has never heard of (it is treated as still working, and said once). */
export function isKnownStatus(status: string | null | undefined): boolean {
  return status === null || status === undefined || status.trim().toUpperCase() in CLASSES
}
