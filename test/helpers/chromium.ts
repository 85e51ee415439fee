// The browser lane's own Chromium (Debian's package at /usr/bin/chromium), for tests that open
// pages themselves; exports find theirs through EXPORT_BROWSER / PATH instead.
import { type Browser, chromium } from 'playwright-core';

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export const launchChromium = (): Promise<Browser> => chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
