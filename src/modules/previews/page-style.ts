// The preview page's style sheet: one inline <style>, allowed by its hash in the page's CSP
// (./page.ts). Phone widths: one column, the device scaled to the width; from 900 px: the
// device beside a side panel. Light and dark follow the system.
export const PAGE_STYLE = `
:root {
  color-scheme: light dark;
  --bg: #f3f4f8; --panel: #ffffff; --text: #141824; --muted: #667085; --border: #e4e7ec;
  --accent: #5b5bd6; --accent-text: #ffffff; --ok: #12805c; --wait: #b54708; --stripe: #f6f7fa;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0d0f14; --panel: #161a22; --text: #e6e8ee; --muted: #98a2b3; --border: #272d38;
    --accent: #8b8cf6; --accent-text: #0d0f14; --ok: #47cd89; --wait: #fdb022; --stripe: #1b2029;
  }
}
* { box-sizing: border-box; }
html, body { margin: 0; }
body {
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", sans-serif;
  background: var(--bg); color: var(--text); min-height: 100vh;
}
button { font: inherit; color: inherit; cursor: pointer; }
.bar {
  display: flex; flex-wrap: wrap; align-items: center; gap: 6px 16px;
  padding: 12px 20px; background: var(--panel); border-bottom: 1px solid var(--border);
}
.brand { display: flex; align-items: center; gap: 8px; font-weight: 650; letter-spacing: -0.01em; }
.brand-mark {
  width: 22px; height: 22px; border-radius: 7px;
  background: linear-gradient(135deg, #7c7cf8, #5b5bd6 55%, #3e3ea8);
}
.title { display: flex; align-items: center; gap: 10px; min-width: 0; flex: 1 1 auto; }
.title h1 { margin: 0; font-size: 16px; font-weight: 600; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.chip {
  flex: none; padding: 2px 10px; border-radius: 999px; font-size: 12.5px; font-weight: 600;
  background: color-mix(in srgb, var(--accent) 14%, transparent); color: var(--accent);
}
.expiry { margin: 0; color: var(--muted); font-size: 13px; }
main {
  display: grid; grid-template-columns: minmax(0, 1fr); gap: 20px;
  max-width: 1180px; margin: 0 auto; padding: 20px 16px 32px;
}
@media (min-width: 900px) {
  main { grid-template-columns: minmax(0, 1fr) 360px; gap: 28px; padding: 28px 24px 40px; align-items: start; }
  .side { position: sticky; top: 20px; }
}
.stage { display: flex; flex-direction: column; align-items: center; gap: 14px; min-width: 0; }
.toolbar { display: flex; flex-wrap: wrap; justify-content: center; gap: 8px; }
.segmented {
  display: inline-flex; padding: 3px; border-radius: 999px;
  background: var(--panel); border: 1px solid var(--border);
}
.segmented button, .ghost {
  border: 0; background: transparent; padding: 6px 14px; border-radius: 999px; color: var(--muted); font-weight: 550;
}
.segmented button[aria-pressed="true"] { background: var(--accent); color: var(--accent-text); }
.ghost { border: 1px solid var(--border); background: var(--panel); }
.ghost:hover, .segmented button:hover { color: var(--text); }
.segmented button[aria-pressed="true"]:hover { color: var(--accent-text); }
button:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
.device-fit { position: relative; width: 388px; height: 668px; }
.device {
  position: absolute; top: 0; left: 0; transform-origin: 0 0;
  padding: 14px; border-radius: 46px; background: #0b0c10;
  box-shadow: 0 0 0 1px #2b303b, 0 0 0 5px #171a21, 0 24px 60px -12px rgba(16, 24, 40, 0.45);
}
.device iframe { display: block; width: 360px; height: 640px; border: 0; border-radius: 32px; background: #000; }
.device.landscape iframe { width: 640px; height: 360px; }
.status { margin: 0; font-size: 13px; color: var(--muted); display: flex; align-items: center; gap: 8px; }
.status::before { content: ""; width: 8px; height: 8px; border-radius: 50%; background: var(--wait); }
.status[data-ready="true"]::before { background: var(--ok); }
.side { display: flex; flex-direction: column; gap: 16px; min-width: 0; }
.panel { background: var(--panel); border: 1px solid var(--border); border-radius: 16px; padding: 16px; }
.panel h2 { margin: 0; font-size: 14px; font-weight: 650; }
.panel-head { display: flex; align-items: center; justify-content: space-between; gap: 8px; margin-bottom: 10px; }
.panel-head .ghost { padding: 3px 12px; font-size: 13px; }
.log {
  list-style: none; margin: 0; padding: 0; max-height: 260px; overflow: auto;
  font: 12.5px/1.5 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
}
.log li { display: grid; grid-template-columns: 4.2em minmax(0, 1fr); gap: 8px; padding: 6px 8px; border-radius: 8px; overflow-wrap: anywhere; }
.log li:nth-child(odd) { background: var(--stripe); }
.log li::before { content: attr(data-time); color: var(--muted); white-space: nowrap; }
.empty { margin: 0; color: var(--muted); font-size: 13px; }
.log:not(:empty) + .empty { display: none; }
.qr-body { display: flex; gap: 16px; align-items: center; margin-top: 10px; }
.qr figure { margin: 0; flex: none; width: 132px; height: 132px; padding: 6px; border-radius: 12px; background: #fff; border: 1px solid var(--border); }
.qr svg { display: block; width: 100%; height: 100%; }
.qr p { margin: 0; color: var(--muted); font-size: 13px; }
.link { display: block; margin-top: 8px; font: 11.5px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; color: var(--muted); overflow-wrap: anywhere; }
.details { display: grid; grid-template-columns: auto minmax(0, 1fr); gap: 6px 14px; margin: 10px 0 0; font-size: 13.5px; }
.details dt { color: var(--muted); }
.details dd { margin: 0; overflow-wrap: anywhere; }
`;
