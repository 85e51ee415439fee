// The preview page (CONTRACT §11): the playable in a phone-sized frame, sandboxed to scripts
// alone (no allow-same-origin: it runs in an opaque origin, with no access to the service's), the
// orientation switch, the bridge-call log and a QR code of the page's own address, drawn here as
// SVG. Its CSP allows exactly its one style sheet and one script, by hash, and frames from this
// origin; nothing else loads.
import { createHash } from 'node:crypto';
import escapeHtml from 'escape-html';
import { CONTAINERS } from '../../exporters/containers/index.js';
import { type Network, rulesOf } from '../../exporters/rules.js';
import { PAGE_SCRIPT } from './page-script.js';
import { PAGE_STYLE } from './page-style.js';

const hashOf = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

export const PREVIEW_PAGE_CSP = [
  "default-src 'none'",
  `script-src ${hashOf(PAGE_SCRIPT)}`,
  `style-src ${hashOf(PAGE_STYLE)}`,
  'img-src data:',
  "frame-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export interface PreviewPageInput {
  /** The page's own address (the QR code's content). */
  url: string;
  /** Where the frame loads the playable from. */
  playUrl: string;
  network: Network;
  variantName: string;
  fileName: string | null;
  size: number | null;
  expiresAt: Date;
}

export async function renderPreviewPage(input: PreviewPageInput): Promise<string> {
  const network = rulesOf(input.network).title;
  const container = CONTAINERS[input.network];
  // Imported on the first page shown (with pngjs, ~40 files): most API processes never show one.
  const { default: QRCode } = await import('qrcode');
  const qr = (await QRCode.toString(input.url, { type: 'svg', margin: 0, errorCorrectionLevel: 'M', color: { dark: '#101828', light: '#ffffff' } })).replace(
    '<svg ',
    '<svg role="img" aria-label="QR code of this page\'s address" ',
  );
  const e = escapeHtml;
  const expires = input.expiresAt.toISOString();
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${e(input.variantName)} · ${e(network)} preview</title>
<link rel="icon" href="data:,">
<style>${PAGE_STYLE}</style>
</head>
<body>
<header class="bar">
  <div class="brand"><span class="brand-mark" aria-hidden="true"></span>Playable preview</div>
  <div class="title"><h1>${e(input.variantName)}</h1><span class="chip">${e(network)}</span></div>
  <p class="expiry">Link expires <time datetime="${expires}">${expires.slice(0, 16).replace('T', ' ')} UTC</time></p>
</header>
<main data-preview data-network="${e(input.network)}" data-parent-messages="${e(JSON.stringify(container.parentMessages ?? []))}">
  <section class="stage" aria-label="Playable">
    <div class="toolbar">
      <div class="segmented" role="group" aria-label="Orientation">
        <button type="button" data-preview-orientation="portrait" aria-pressed="true">Portrait</button>
        <button type="button" data-preview-orientation="landscape" aria-pressed="false">Landscape</button>
      </div>
      <button type="button" class="ghost" data-preview-restart>Restart</button>
    </div>
    <div class="device-fit">
      <div class="device" data-preview-device>
        <iframe data-preview-frame sandbox="allow-scripts" src="${e(input.playUrl)}" width="360" height="640" title="${e(input.variantName)} on ${e(network)}"></iframe>
      </div>
    </div>
    <p class="status" data-preview-status data-ready="false">Waiting for the container…</p>
  </section>
  <aside class="side">
    <section class="panel">
      <div class="panel-head"><h2>Bridge calls</h2><button type="button" class="ghost" data-preview-clear>Clear</button></div>
      <ol class="log" data-preview-log aria-live="polite"></ol>
      <p class="empty">Play the ad: each call it makes to the ${e(network)} container appears here — its call to action is <code>${e(container.cta.name)}</code>.</p>
    </section>
    <section class="panel qr">
      <h2>Open on a phone</h2>
      <div class="qr-body">
        <figure data-preview-qr>${qr}</figure>
        <p>Scan with the phone's camera to play this preview there. Anyone with the link can open it until it expires.</p>
      </div>
      <code class="link">${e(input.url)}</code>
    </section>
    <section class="panel">
      <h2>Export</h2>
      <dl class="details">
        <dt>Network</dt><dd>${e(network)}</dd>
        <dt>File</dt><dd>${e(input.fileName ?? '—')}</dd>
        <dt>Size</dt><dd>${input.size === null ? '—' : `${(input.size / 1000).toFixed(1)} kB`}</dd>
      </dl>
    </section>
  </aside>
</main>
<script>${PAGE_SCRIPT}</script>
</body>
</html>
`;
}
