// Runs the Procfile's web and worker processes as a supervisor would: a
// process the harness kills is started again at once; one that exits on its
// own is recorded (and started again, so the soak can go on). Whether such an
// exit is a violation is the soak's to judge (see excusedExits in soak.ts):
// only an exit with a code during an outage, whose slot was ready again
// afterwards, with nothing lost, is a supervisor's ordinary restart.
import { ServiceProcess, type ServiceKind } from '../lib/service-process.js';

export interface Slot {
  name: string;
  kind: ServiceKind;
  env: Record<string, string>;
  process: ServiceProcess;
  /** Set while the harness itself is stopping this process. */
  expectingExit: boolean;
  restarts: number;
  /** When each of the slot's processes said it was ready (ms since the epoch). */
  readyAt: number[];
}

export interface UnexpectedExit {
  process: string;
  code: number | null;
  signal: string | null;
  tail: string[];
  /** When it exited (ms since the epoch). */
  at: number;
  /** Whether it had said it was ready (a running process), or exited while starting. */
  afterReady: boolean;
  /** Whether a later process of the same slot said it was ready: the supervisor's restart recovered it. */
  recovered(): boolean;
}

export class Supervisor {
  readonly slots: Slot[] = [];
  readonly unexpectedExits: UnexpectedExit[] = [];
  private stopping = false;
  /** Processes that have said they are ready. */
  private readonly booted = new WeakSet<ServiceProcess>();

  constructor(private readonly onLine?: (slot: string, line: string) => void) {}

  async start(name: string, kind: ServiceKind, env: Record<string, string>): Promise<Slot> {
    const slot: Slot = { name, kind, env, process: this.spawn(name, kind, env), expectingExit: false, restarts: 0, readyAt: [] };
    this.slots.push(slot);
    this.noteReady(slot);
    this.watch(slot);
    await slot.process.ready;
    return slot;
  }

  private spawn(name: string, kind: ServiceKind, env: Record<string, string>): ServiceProcess {
    // 5 minutes to say ready, not the default 2: on a 2-core machine under a load of 25 (other work), a
    // worker restarted beside three others took over 2 minutes, and one never marked ready was never asked to stop.
    const p = new ServiceProcess(kind, env, {
      readyTimeoutMs: 300_000,
      onLine: this.onLine ? (line) => this.onLine!(name, line) : undefined,
    });
    p.ready.then(() => this.booted.add(p)).catch(() => {});
    return p;
  }

  /** Whether the slot's current process is up and has said it is ready (not still starting). */
  isReady(slot: Slot): boolean {
    return slot.process.running && this.booted.has(slot.process);
  }

  private noteReady(slot: Slot): void {
    slot.process.ready.then(() => void slot.readyAt.push(Date.now())).catch(() => {});
  }

  private watch(slot: Slot): void {
    const current = slot.process;
    void current.exited.then((exit) => {
      if (slot.process !== current || slot.expectingExit || this.stopping) return;
      const at = Date.now();
      this.unexpectedExits.push({
        process: slot.name,
        code: exit.code,
        signal: exit.signal,
        tail: current.tail.slice(-20),
        at,
        afterReady: this.booted.has(current),
        recovered: () => slot.readyAt.some((t) => t > at),
      });
      // Keep the soak going: a supervisor restarts what died.
      void this.replace(slot).catch(() => {});
    });
  }

  private async replace(slot: Slot): Promise<void> {
    slot.process = this.spawn(slot.name, slot.kind, slot.env);
    slot.restarts += 1;
    this.noteReady(slot);
    this.watch(slot);
    await slot.process.ready;
  }

  /** Sends `signal`, waits for the exit, starts the process again and waits until it is ready. */
  async kill(slot: Slot, signal: NodeJS.Signals): Promise<{ code: number | null; signal: string | null }> {
    const { exit, ready } = await this.killAndRestart(slot, signal);
    await ready;
    return exit;
  }

  /**
   * Sends `signal`, waits for the exit and starts the process again; `ready`
   * resolves once it is (never rejects: a process that dies while starting is
   * reported by the watch, or was killed again on purpose).
   */
  async killAndRestart(
    slot: Slot,
    signal: NodeJS.Signals,
  ): Promise<{ exit: { code: number | null; signal: string | null }; ready: Promise<void> }> {
    slot.expectingExit = true;
    let exit;
    try {
      exit = await slot.process.kill(signal);
    } finally {
      slot.expectingExit = false;
    }
    const ready = this.replace(slot);
    return { exit, ready: ready.catch(() => {}) };
  }

  /** SIGTERM to every process; each must exit 0 within `timeoutMs` (else SIGKILL, and reported). */
  async stopAll(timeoutMs = 60_000): Promise<Array<{ process: string; code: number | null; signal: string | null }>> {
    this.stopping = true;
    return Promise.all(
      this.slots.map(async (slot) => {
        const p = slot.process;
        if (!p.running) return { process: slot.name, code: null, signal: 'already exited' };
        const timer = setTimeout(() => p.child.kill('SIGKILL'), timeoutMs);
        const exit = await p.kill('SIGTERM');
        clearTimeout(timer);
        return { process: slot.name, code: exit.code, signal: exit.signal };
      }),
    );
  }

  killAllNow(): void {
    this.stopping = true;
    for (const slot of this.slots) if (slot.process.running) slot.process.child.kill('SIGKILL');
  }
}

/** A window in which Postgres or Redis was away (a fault and its aftermath), ms since the epoch. */
export interface Outage {
  from: number;
  to: number;
}

/**
 * Which exits a supervisor's restart made whole, and which are crashes. An exit
 * is excused only if all hold: it exited with a non-zero code (a refusal the
 * process chose, as `exitWithError` does when Postgres or Redis is not
 * reachable; never a signal such as SIGSEGV or SIGABRT, nor 0), during an
 * outage, the next process of its slot said it was ready, and nothing was lost
 * (`nothingLost`: every other invariant of the soak holds). Anything else is a crash.
 */
export function judgeExits(
  exits: readonly UnexpectedExit[],
  outages: readonly Outage[],
  nothingLost: boolean,
): { excused: string[]; crashes: string[] } {
  const excused: string[] = [];
  const crashes: string[] = [];
  for (const exit of exits) {
    const inOutage = outages.some((o) => exit.at >= o.from && exit.at <= o.to);
    const refusal = exit.signal === null && exit.code !== null && exit.code !== 0;
    const recovered = exit.recovered();
    const what = `${exit.process} exited on its own (${exit.signal ?? exit.code}, ${exit.afterReady ? 'while running' : 'while starting'})`;
    if (refusal && inOutage && recovered && nothingLost) {
      excused.push(`${what} during an outage; restarted and ready again`);
      continue;
    }
    const because = [
      refusal ? '' : 'not a refusal with an exit code',
      inOutage ? '' : 'no Postgres or Redis fault was under way',
      recovered ? '' : 'its slot was never ready again',
      nothingLost ? '' : 'work was lost or left undone',
    ].filter(Boolean);
    crashes.push(`${what}, a crash (${because.join('; ')}): ${exit.tail.slice(-5).join(' | ')}`);
  }
  return { excused, crashes };
}
