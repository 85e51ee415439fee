// Which adapters an export appends to the runtime (../runtime.ts): only those for the APIs the
// entry uses (../entry-api.ts), and for MRAID only where the network has no mraid.js of its own.
import type { EntryApiUsage } from '../entry-api.js';
import { EXPORTERS } from '../networks/index.js';
import { type Network, rulesOf } from '../rules.js';
import { LUNA_SHIM } from './luna.js';
import { MRAID_SHIM, mraidClickUrlAdapter } from './mraid.js';

export function shimsFor(network: Network, usage: EntryApiUsage): string[] {
  const shims: string[] = [];
  if (usage.mraid) {
    const clickUrl = EXPORTERS[network].clickUrl;
    if (rulesOf(network).mraid !== 'required') shims.push(MRAID_SHIM);
    else if (clickUrl) shims.push(mraidClickUrlAdapter(clickUrl));
  }
  if (usage.luna) shims.push(LUNA_SHIM);
  return shims;
}
