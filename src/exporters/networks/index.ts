// Every network's exporter, by network id (the keys of ../rules.ts).
import type { Network } from '../rules.js';
import { applovin } from './applovin.js';
import { google } from './google.js';
import { ironsource } from './ironsource.js';
import { meta } from './meta.js';
import { mintegral } from './mintegral.js';
import { moloco } from './moloco.js';
import { snapchat } from './snapchat.js';
import { tiktok } from './tiktok.js';
import type { NetworkExporter } from './types.js';
import { unity } from './unity.js';
import { vungle } from './vungle.js';

export const EXPORTERS: Record<Network, NetworkExporter> = {
  applovin,
  unity,
  ironsource,
  google,
  meta,
  mintegral,
  tiktok,
  vungle,
  moloco,
  snapchat,
};
