import type { NetworkExporter } from './types.js';

/**
 * Mintegral's SDK calls window.gameStart / window.gameClose, which must exist, and expects
 * window.gameReady() once the game has loaded. All three are defined (NETWORKS.md), each only
 * where the container has not: its own gameReady, present before the ad runs, is kept and called.
 */
export const mintegral: NetworkExporter = {
  network: 'mintegral',
  bridge: `(function () {
    window.gameReady = window.gameReady || function () {};
    window.gameStart = window.gameStart || function () {};
    window.gameClose = window.gameClose || function () {};
    return {
      ready: function (start) { start(); if (typeof window.gameReady === 'function') window.gameReady(); },
      cta: function () { if (typeof window.install === 'function') window.install(); },
      end: function () { if (typeof window.gameEnd === 'function') window.gameEnd(); }
    };
  })()`,
  bridgeCalls: ['window.install()', 'window.gameEnd()', 'window.gameReady()', 'window.gameStart', 'window.gameClose'],
};
