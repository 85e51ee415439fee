// The browser lane's own Chromium (Debian's package at /usr/bin/chromium), for tests that open
// pages themselves; exports find theirs through EXPORT_BROWSER / PATH instead. Started with the
// flags the export worker's browser gets.
import { type Browser, chromium } from 'playwright-core';
import { HEADLESS_ARGS } from '../../src/exporters/browser/manager.js';

export const launchChromium = (): Promise<Browser> => chromium.launch({ executablePath: '/usr/bin/chromium', args: HEADLESS_ARGS });
