// The runtime checks of CONTRACT §9: each a pure function of what the harness gathered
// (./gather.ts), with its name and severity, as Lighthouse's audits are of its artifacts.
// Tested without a browser (test/exporters/browser-checks.test.ts).
import { PNG } from 'pngjs';
import { CONTAINERS, formatBridgeCall, matchesCall } from '../containers/index.js';
import type { CHECK_NAMES } from '../options.js';
import type { Network } from '../rules.js';
import type { Gathered } from './gather.js';

export type CheckName = (typeof CHECK_NAMES)[number];
export type Severity = 'error' | 'warning';

export interface CheckResult {
  name: CheckName;
  severity: Severity;
  passed: boolean;
  message: string;
}

interface Check {
  name: CheckName;
  severity(network: Network): Severity;
  run(gathered: Gathered): { passed: boolean; message: string };
}

/** Networks whose review rejects any console error (NETWORKS.md); elsewhere it is a warning. */
const CONSOLE_ERRORS_REJECTED = new Set<Network>(['vungle']);

const error = () => 'error' as const;
const warning = () => 'warning' as const;
const unique = <T>(values: T[]) => [...new Set(values)];

/** "Error: boom (portrait, landscape)" for a message seen in both orientations. */
function byOrientation(entries: Array<{ orientation: string; message: string }>): string[] {
  const seen = new Map<string, string[]>();
  for (const { orientation, message } of entries) seen.set(message, unique([...(seen.get(message) ?? []), orientation]));
  return [...seen].map(([message, orientations]) => `${message} (${orientations.join(', ')})`);
}

/** The colour of a PNG if every pixel has it ("#1d2b53"), else null. */
export function flatColour(png: Buffer): string | null {
  const { data } = PNG.sync.read(png);
  const first = data.readUInt32BE(0);
  for (let i = 4; i < data.length; i += 4) if (data.readUInt32BE(i) !== first) return null;
  return `#${data.subarray(0, 3).toString('hex')}`;
}

export const CHECKS: Check[] = [
  {
    name: 'loads',
    severity: error,
    run: ({ orientations }) => {
      const errors = orientations.flatMap((o) => [
        ...o.pageErrors.map((message) => ({ orientation: o.name, message: `uncaught ${message}` })),
        ...(o.screenshot === null && o.stopped ? [{ orientation: o.name, message: `the page did not come up: ${o.stopped}` }] : []),
      ]);
      return errors.length
        ? { passed: false, message: byOrientation(errors).join('; ') }
        : { passed: true, message: 'no uncaught exception or unhandled rejection in either orientation' };
    },
  },
  {
    name: 'renders',
    severity: error,
    run: ({ orientations }) => {
      const blank = orientations.flatMap((o) => {
        if (!o.screenshot) return [`no ${o.name} screenshot`];
        const colour = flatColour(o.screenshot);
        return colour ? [`the ${o.name} screenshot is one flat colour (${colour})`] : [];
      });
      if (blank.length) return { passed: false, message: blank.join('; ') };
      const paints = orientations.map((o) => `${o.name} first paint ${o.firstFrameMs === null ? 'not seen' : `at ${o.firstFrameMs} ms`}`);
      return { passed: true, message: `both orientations drew something (${paints.join(', ')})` };
    },
  },
  {
    name: 'no-external-requests',
    severity: error,
    run: ({ requests }) =>
      requests.length
        ? { passed: false, message: `requested ${requests.join(', ')}` }
        : { passed: true, message: "nothing was requested but the artifact's own files" },
  },
  {
    name: 'no-console-errors',
    severity: (network) => (CONSOLE_ERRORS_REJECTED.has(network) ? 'error' : 'warning'),
    run: ({ orientations }) => {
      const errors = orientations.flatMap((o) => o.consoleErrors.map((message) => ({ orientation: o.name, message })));
      return errors.length ? { passed: false, message: `console.error: ${byOrientation(errors).join('; ')}` } : { passed: true, message: 'no console.error' };
    },
  },
  {
    name: 'cta-reaches-bridge',
    severity: warning,
    run: ({ network, bridgeCalls }) => {
      const cta = CONTAINERS[network].cta;
      const reached = bridgeCalls.find((call) => call.afterInput && matchesCall(call, cta));
      if (reached) return { passed: true, message: `a tap reached ${formatBridgeCall(reached)}` };
      const early = bridgeCalls.find((call) => matchesCall(call, cta));
      const seen = early ? `; ${formatBridgeCall(early)} was called before any input` : '';
      return { passed: false, message: `a tap at the centre of the screen reached no ${cta.name}(…) call${seen}` };
    },
  },
  {
    name: 'muted-until-interaction',
    severity: warning,
    run: ({ orientations }) => {
      const sounds = orientations.flatMap((o) => o.soundsBeforeInput.map((message) => ({ orientation: o.name, message })));
      return sounds.length
        ? { passed: false, message: `sound started before the first input: ${byOrientation(sounds).join('; ')}` }
        : { passed: true, message: 'no sound before the first input' };
    },
  },
];

export function runChecks(gathered: Gathered): CheckResult[] {
  return CHECKS.map((check) => ({ name: check.name, severity: check.severity(gathered.network), ...check.run(gathered) }));
}
