// What each ad network accepts, as data: one row per network of /shared/NETWORKS.md, so that a
// changed limit or file rule is a one-line edit. The rows are shown in the API docs (POST /export
// and GET /exports/networks). What needs code (the bridge script, extra files) lives in
// src/exporters/networks/<network>.ts.

/** Sizes are decimal megabytes: where sources disagree (MB vs MiB) the stricter value wins. */
const MB = 1_000_000;

export interface NetworkRules {
  /** What the network calls itself. */
  title: string;
  /** One self-contained HTML file, or a ZIP laid out as `entryPath` says. */
  output: 'html' | 'zip';
  /** The limit on the final artifact's bytes (a ZIP's compressed size). */
  sizeLimitBytes: number;
  /** Download name of the artifact; `{name}` is the variant's name as a file-name slug. */
  artifactName: string;
  /** Path of the playable's HTML inside a ZIP (the same as artifactName for one HTML file). */
  entryPath: string;
  /** The call-to-action bridge the export wires `window.playable.cta()` / `end()` to. */
  bridge: string;
  /** MRAID: the export links the container's `mraid.js` (required), or must not (forbidden). */
  mraid: 'required' | 'forbidden' | 'none';
  /** The only external URLs an artifact may load: the network's own bridge scripts. */
  networkScripts: string[];
  /** File-name extensions a ZIP may hold; other assets are inlined into the HTML as data URIs. */
  allowedExtensions?: string[];
  /** Media types (prefixes) the network refuses outright: an export with such an asset fails. */
  forbiddenContentTypes?: string[];
  maxFiles?: number;
  /** Further rules, for people reading the docs. */
  notes: string;
}

export const GOOGLE_EXIT_API_URL = 'https://tpc.googlesyndication.com/pagead/gadgets/html5/api/exitapi.js';

export const NETWORK_RULES = {
  applovin: {
    title: 'AppLovin',
    output: 'html',
    sizeLimitBytes: 5 * MB,
    artifactName: '{name}-applovin.html',
    entryPath: '{name}-applovin.html',
    bridge: 'MRAID 2.0: waits for MRAID ready, CTA → mraid.open(storeUrl)',
    mraid: 'required',
    networkScripts: [],
    notes: 'Everything inlined; no external requests; window.playable.muted stays true until the first interaction.',
  },
  unity: {
    title: 'Unity Ads',
    output: 'html',
    sizeLimitBytes: 5 * MB,
    artifactName: 'index.html',
    entryPath: 'index.html',
    bridge: 'MRAID 3.0: waits for ready and viewable, CTA → mraid.open(storeUrl)',
    mraid: 'required',
    networkScripts: [],
    notes: 'One index.html, everything inlined; no XHR to outside.',
  },
  ironsource: {
    title: 'ironSource',
    output: 'html',
    sizeLimitBytes: 5 * MB,
    artifactName: '{name}-ironsource.html',
    entryPath: '{name}-ironsource.html',
    bridge: 'MRAID: waits for MRAID ready, CTA → mraid.open(storeUrl)',
    mraid: 'required',
    networkScripts: [],
    notes:
      'Everything inlined; MRAID only — any reference to the deprecated DAPI (`dapi`) fails the export. https only, no close button of its own, no automatic redirect, loads in under 10 s.',
  },
  google: {
    title: 'Google Ads',
    output: 'zip',
    sizeLimitBytes: 5 * MB,
    artifactName: '{name}-google.zip',
    entryPath: 'index.html',
    bridge: "ExitApi.exit() from Google's exitapi.js",
    mraid: 'none',
    networkScripts: [GOOGLE_EXIT_API_URL],
    allowedExtensions: ['html', 'css', 'js', 'gif', 'png', 'jpg', 'jpeg', 'svg'],
    forbiddenContentTypes: ['audio/', 'video/'],
    maxFiles: 512,
    notes:
      'ZIP of at most 512 files, no nested archives, no audio or video; <meta name="ad.orientation"> from config.orientation. Other file types (JSON, fonts) are inlined as data URIs.',
  },
  meta: {
    title: 'Meta (Facebook) Audience Network',
    output: 'html',
    sizeLimitBytes: 2 * MB,
    artifactName: '{name}-meta.html',
    entryPath: '{name}-meta.html',
    bridge: 'FbPlayableAd.onCTAClick()',
    mraid: 'none',
    networkScripts: [],
    notes: 'One HTML file of at most 2 MB; scripts are inlined as text, never as a base64 src (JavaScript data: URI srcs too).',
  },
  mintegral: {
    title: 'Mintegral',
    output: 'zip',
    sizeLimitBytes: 5 * MB,
    artifactName: '{name}.zip',
    entryPath: '{name}/{name}.html',
    bridge: 'CTA → window.install(), end → window.gameEnd(); defines gameReady/gameStart/gameClose',
    mraid: 'none',
    networkScripts: [],
    notes: 'name.zip holding name/name.html and its assets beside it.',
  },
  tiktok: {
    title: 'TikTok (Pangle)',
    output: 'zip',
    sizeLimitBytes: 5 * MB,
    artifactName: '{name}-tiktok.zip',
    entryPath: 'index.html',
    bridge: 'window.openAppStore() (Pangle playable SDK)',
    mraid: 'forbidden',
    networkScripts: [],
    notes: 'index.html at the top level and config.json {"playable_orientation": 0|1|2} from config.orientation; no HTTP requests, no mraid.js, no JS redirects.',
  },
  vungle: {
    title: 'Vungle (Liftoff)',
    output: 'zip',
    sizeLimitBytes: 5 * MB,
    artifactName: '{name}-vungle.zip',
    entryPath: 'ad.html',
    bridge: "CTA → parent.postMessage('download', '*'), end → parent.postMessage('complete', '*')",
    mraid: 'forbidden',
    networkScripts: [],
    notes: 'Flat ZIP with ad.html; no external loads, no mraid.js, no close button of its own, no viewport units (vw, vh…) in CSS, no location.reload.',
  },
  moloco: {
    title: 'Moloco',
    output: 'html',
    sizeLimitBytes: 5 * MB,
    artifactName: '{name}-moloco.html',
    entryPath: '{name}-moloco.html',
    bridge: 'FbPlayableAd.onCTAClick() with no arguments',
    mraid: 'forbidden',
    networkScripts: [],
    notes: 'One HTML file, no ZIP; no XHR, no external references, no mraid.js.',
  },
  snapchat: {
    title: 'Snapchat',
    output: 'zip',
    sizeLimitBytes: 5 * MB,
    artifactName: '{name}-snapchat.zip',
    entryPath: 'index.html',
    bridge: "MRAID 2.0: CTA → mraid.open('{{ .ClickTrackingUrl }}') (the network fills in the macro)",
    mraid: 'required',
    networkScripts: [],
    notes: 'ZIP with index.html and its assets.',
  },
  liftoff: {
    title: 'Liftoff Accelerate',
    output: 'zip',
    sizeLimitBytes: 5 * MB,
    artifactName: '{name}-liftoff.zip',
    entryPath: '{name}/index.html',
    bridge: 'MRAID 2.0: waits for MRAID ready, CTA → mraid.open(storeUrl)',
    mraid: 'required',
    networkScripts: [],
    notes: 'A ZIP holding one folder with index.html and its assets; relative, case-sensitive URLs; ASCII file names; sound only after the first interaction.',
  },
  chartboost: {
    title: 'Chartboost',
    output: 'html',
    sizeLimitBytes: 3 * MB,
    artifactName: '{name}-chartboost.html',
    entryPath: '{name}-chartboost.html',
    bridge: 'MRAID 2.0: checks getState() (the ad may start in the default state), CTA → mraid.open(storeUrl)',
    mraid: 'required',
    networkScripts: [],
    notes: 'One standalone HTML file of at most 3 MB; Chartboost adds the close button, so the ad never calls mraid.close().',
  },
  adcolony: {
    title: 'Digital Turbine (AdColony)',
    output: 'html',
    sizeLimitBytes: 2 * MB,
    artifactName: '{name}-adcolony.html',
    entryPath: '{name}-adcolony.html',
    bridge: 'MRAID 2.0 (3.0 is not supported): waits for MRAID ready, CTA → mraid.open(storeUrl)',
    mraid: 'required',
    networkScripts: [],
    notes: 'One HTML file of at most 2 MB, full-screen interstitial, portrait or landscape; any end card is part of the ad itself.',
  },
  inmobi: {
    title: 'InMobi',
    output: 'html',
    sizeLimitBytes: 5 * MB,
    artifactName: '{name}-inmobi.html',
    entryPath: '{name}-inmobi.html',
    bridge: 'MRAID: waits for MRAID ready, CTA → mraid.open(storeUrl)',
    mraid: 'required',
    networkScripts: [],
    notes: 'One HTML file, everything inlined; InMobi draws the close button, so the ad never calls useCustomClose(); no timers in the creative.',
  },
  tapjoy: {
    title: 'Tapjoy',
    output: 'html',
    sizeLimitBytes: 1_900_000,
    artifactName: '{name}-tapjoy.html',
    entryPath: '{name}-tapjoy.html',
    bridge: 'window.TJ_API: CTA → TJ_API.click(), end → TJ_API.gameplayFinished()',
    mraid: 'none',
    networkScripts: [],
    notes: 'One HTML file of at most 1.9 MB; Tapjoy gives the ad window.TJ_API.',
  },
  yandex: {
    title: 'Yandex Ads (interactive banner)',
    output: 'zip',
    sizeLimitBytes: 3 * MB,
    artifactName: '{name}-yandex.zip',
    entryPath: 'index.html',
    bridge: "CTA → window.open(yandexHTML5BannerApi.getClickURLNum(1), '_blank')",
    mraid: 'none',
    networkScripts: [],
    allowedExtensions: ['html', 'js', 'json', 'css', 'jpg', 'jpeg', 'gif', 'png', 'svg'],
    maxFiles: 20,
    notes:
      'ZIP of at most 20 files: one HTML file (at most 500 KB) and JS, JSON, CSS, JPEG, GIF, PNG, SVG; file names only of Latin letters, digits and -._~; relative links, no network requests; <meta name="ad.size"> from config.orientation. Other file types are inlined as data URIs.',
  },
} as const satisfies Record<string, NetworkRules>;

export type Network = keyof typeof NETWORK_RULES;
export const NETWORKS = Object.keys(NETWORK_RULES) as [Network, ...Network[]];

export function rulesOf(network: Network): NetworkRules {
  return NETWORK_RULES[network];
}

/** The table as Markdown, for the OpenAPI description of POST /export. */
export function networkRulesMarkdown(): string {
  const rows = NETWORKS.map((id) => {
    const r: NetworkRules = NETWORK_RULES[id];
    const limits = [`${r.sizeLimitBytes / MB} MB`, r.maxFiles ? `≤ ${r.maxFiles} files` : ''].filter(Boolean).join(', ');
    const output = r.output === 'html' ? `one HTML (${r.artifactName})` : `ZIP (${r.artifactName} → ${r.entryPath})`;
    return `| \`${id}\` | ${output} | ${limits} | ${r.bridge} | ${r.notes} |`;
  });
  return ['| network | output | limit | bridge | rules |', '|---|---|---|---|---|', ...rows].join('\n');
}

/** The entry HTML's path; `{name}/{name}.html` matches any folder holding an HTML file of its own name. */
export function findEntry(template: string, paths: string[]): string | undefined {
  if (!template.includes('{name}')) return paths.includes(template) ? template : undefined;
  return paths.find((path) => {
    const [folder, file, ...rest] = path.split('/');
    return rest.length === 0 && file !== undefined && template.replaceAll('{name}', folder!) === path;
  });
}
