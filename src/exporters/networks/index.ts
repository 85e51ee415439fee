// Every network's exporter, by network id (the keys of ../rules.ts).
import type { Network } from '../rules.js';
import { adcolony } from './adcolony.js';
import { applovin } from './applovin.js';
import { chartboost } from './chartboost.js';
import { google } from './google.js';
import { inmobi } from './inmobi.js';
import { ironsource } from './ironsource.js';
import { liftoff } from './liftoff.js';
import { meta } from './meta.js';
import { mintegral } from './mintegral.js';
import { moloco } from './moloco.js';
import { snapchat } from './snapchat.js';
import { tapjoy } from './tapjoy.js';
import { tiktok } from './tiktok.js';
import type { NetworkExporter } from './types.js';
import { unity } from './unity.js';
import { vungle } from './vungle.js';
import { yandex } from './yandex.js';

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
  liftoff,
  chartboost,
  adcolony,
  inmobi,
  tapjoy,
  yandex,
};
