import type { SyncProgressDto, SyncStepDto } from '@switchboard/contracts';

/** The stored form of a sync's progress (the `sync` column): the API shape itself. */
export function emptyProgress(): SyncProgressDto {
  return { state: 'idle', progress: 0, steps: [], retryAt: null, error: null, startedAt: null, finishedAt: null };
}

export function readProgress(v: unknown): SyncProgressDto {
  const p = v as Partial<SyncProgressDto> | null;
  if (!p || typeof p !== 'object' || !p.state) return emptyProgress();
  return { ...emptyProgress(), ...p, steps: Array.isArray(p.steps) ? p.steps : [] };
}

export function stepProgress(done: number, total: number | null, state: SyncStepDto['state']): number {
  if (state === 'done') return 100;
  if (!total || total <= 0) return 0;
  return Math.min(99, Math.floor((done / total) * 100));
}

/** The whole bar: the mean of the steps' bars. */
export function overall(steps: SyncStepDto[]): number {
  if (steps.length === 0) return 0;
  return Math.floor(steps.reduce((n, s) => n + s.progress, 0) / steps.length);
}

export function withStep(p: SyncProgressDto, name: SyncStepDto['name'], patch: Partial<Omit<SyncStepDto, 'name'>>): SyncProgressDto {
  const steps = p.steps.map((s) => ({ ...s }));
  let step = steps.find((s) => s.name === name);
  if (!step) {
    step = { name, state: 'waiting', done: 0, total: null, progress: 0 };
    steps.push(step);
  }
  Object.assign(step, patch);
  step.progress = stepProgress(step.done, step.total, step.state);
  return { ...p, steps, progress: overall(steps) };
}
