/** What a client can learn about one background job it asked for (a merge now): the status resource. */
import type { WorkProgress } from './work-progress.ts';

/** `waiting` also covers a job queued behind a running one of the same target. */
export type WorkState = 'waiting' | 'delayed' | 'active' | 'completed' | 'failed';

export interface WorkStatus {
  id: string;
  table: string;
  state: WorkState;
  progress: WorkProgress | null;
  result: unknown;
  failedReason: string | null;
  createdAt: string | null;
  finishedAt: string | null;
}
