// The MRAID bridge shared by the MRAID networks (applovin, unity, ironsource, snapchat, liftoff,
// chartboost, adcolony, inmobi):
// start once MRAID is ready (and, for MRAID 3.0 containers, viewable); CTA → mraid.open();
// not viewable pauses the game, viewable again resumes it.
// Outside an ad container (a browser preview) the game starts at once and the CTA does nothing.

export function mraidBridge(options: { waitViewable: boolean; clickUrl?: string }): string {
  const target = options.clickUrl ? JSON.stringify(options.clickUrl).replaceAll('"', "'") : 'url';
  return `{
    ready: function (start) {
      if (typeof mraid === 'undefined') { start(); return; }
      function whenViewable() {
        if (${options.waitViewable ? 'mraid.isViewable()' : 'true'}) { start(); return; }
        mraid.addEventListener('viewableChange', function onViewable(viewable) {
          if (viewable) { mraid.removeEventListener('viewableChange', onViewable); start(); }
        });
      }
      if (mraid.getState() !== 'loading') { whenViewable(); return; }
      mraid.addEventListener('ready', function onReady() { mraid.removeEventListener('ready', onReady); whenViewable(); });
    },
    cta: function (url) { if (typeof mraid !== 'undefined') mraid.open(${target}); },
    end: function () {},
    pause: function (pause, resume) {
      if (typeof mraid !== 'undefined') mraid.addEventListener('viewableChange', function (viewable) { if (viewable) resume(); else pause(); });
    }
  }`;
}
