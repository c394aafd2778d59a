import { defineChannel } from './channel.ts';

/** Shown by the desktop app as a native notification; throws when no app took it. */
export const desktop = defineChannel({
  kind: 'desktop',
  title: 'desktop',
  ui: { label: 'Desktop', hint: 'A notification of this app' },
  fields: () => ({}),
  request:
    'handed to the desktop app, which shows it as a native notification (see [The desktop channel](#the-desktop-channel)). When no app is running, nothing is shown and the delivery fails.',
  send(_config, event, deps) {
    deps.desktop(event);
  },
  example: {},
});
