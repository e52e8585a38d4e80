// Scripts inside a MULTI are sent whole (EVAL), never by SHA (EVALSHA).
//
// ioredis remembers, per socket, which scripts it has sent, and sends EVALSHA
// on a socket that has seen the script; on a NOSCRIPT answer it forgets and
// sends EVAL. That fallback works for a command on its own and in a plain
// pipeline, where each command gets its own answer. Inside MULTI … EXEC it
// does not: Redis answers QUEUED, the NOSCRIPT comes later inside EXEC's reply,
// ioredis never forgets the script, and every later MULTI on that socket fails
// the same way. A socket keeps its memory while the server's script cache is
// emptied under it: SCRIPT FLUSH, or a cluster node whose EVAL was redirected
// (MOVED, TRYAGAIN) and which is later promoted — a promoted replica starts
// with no scripts, since Redis 7 replicates a script's effects, not its text.
// In the cluster chaos soak of 2026-11-29 that was BullMQ's add-job script in
// a flow (FlowProducer, one MULTI) answering NOSCRIPT after a master failover.
//
// Retrying the MULTI on NOSCRIPT is not safe (EXEC has already run the
// transaction's other commands), so a script queued in a transaction always
// goes as EVAL with its text: a few kilobytes more per flow, no state to lose.
import { Command } from 'ioredis';
import type { Redis } from './client.js';

/** The parts of an ioredis script command this module touches (ioredis's Script builds it; its type is internal). */
interface ScriptCommand {
  name: string;
  args: unknown[];
  toWritable(socket: object): string | Buffer;
}

/** What ioredis keeps of each defineCommand script on the client (Commander.scriptsSet: name → Script). */
interface DefinedScript {
  sha: string;
  lua: string;
}

type TransactionFactory = (...args: unknown[]) => { sendCommand?: (command: ScriptCommand) => unknown };

const patched = new WeakSet<object>();

/** The text of the script `sha` names among those defined on `redis`, or undefined. */
function scriptText(redis: Redis, sha: unknown): string | undefined {
  if (typeof sha !== 'string') return undefined;
  const defined = (redis as unknown as { scriptsSet: Record<string, DefinedScript> }).scriptsSet;
  for (const script of Object.values(defined)) if (script.sha === sha) return script.lua;
  return undefined;
}

/** Makes `command` go out as EVAL with `lua`, whatever its socket has seen. */
function pinToEval(command: ScriptCommand, lua: string): void {
  command.toWritable = function (this: ScriptCommand, socket: object) {
    this.name = 'eval';
    this.args[0] = lua;
    return (Command.prototype.toWritable as (this: ScriptCommand, socket: object) => string | Buffer).call(this, socket);
  };
}

/**
 * Every `redis.multi()` from now on sends its scripts as EVAL (see above).
 * createRedis calls it on each client; BullMQ's flows and our scripts' queue() use that client's multi().
 */
export function sendScriptsWholeInTransactions(redis: Redis): void {
  if (patched.has(redis)) return;
  patched.add(redis);
  const target = redis as unknown as { multi: TransactionFactory };
  const multi = target.multi.bind(redis);
  target.multi = (...args: unknown[]) => {
    const transaction = multi(...args);
    // multi({ pipeline: false }) answers a promise, not a transaction: nothing to pin.
    if (typeof transaction.sendCommand !== 'function') return transaction;
    const send = transaction.sendCommand.bind(transaction);
    transaction.sendCommand = (command: ScriptCommand) => {
      // A cluster's retry after MOVED or TRYAGAIN sends the same command again, already pinned (named eval).
      if (command.name === 'evalsha') {
        const lua = scriptText(redis, command.args[0]);
        if (lua !== undefined) pinToEval(command, lua);
      }
      return send(command);
    };
    return transaction;
  };
}
