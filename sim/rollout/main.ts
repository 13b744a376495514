import { text } from 'node:stream/consumers';
import type { RolloutInput } from '../../cli/diff-rollout';
import { playRollout } from './play';

/**
 * The rollout player as a process: a RolloutInput as JSON on standard input, the RolloutReport
 * as JSON on standard output. `podlift diff` runs it beside itself (sim/cli/podlift.ts), so the
 * CLI's bundle carries neither the simulator nor what it loads.
 */
// Its SDK clients talk to local fakes: the SDK's Node 22 notice says nothing about them.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const input = JSON.parse(await text(process.stdin)) as RolloutInput;
process.stdout.write(`${JSON.stringify(await playRollout(input))}\n`);
