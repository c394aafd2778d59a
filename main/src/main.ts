// The desktop app's main process: a list of registrations. What each does is decided in plain
// modules (tested in Node); electron-adapter.ts carries those decisions out with Electron's API.
import { app } from 'electron';
import { createDesktopApp } from './electron-adapter.ts';

// A second launch hands its arguments (a statusdesk:// link, on Windows and Linux) to the first.
if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  const desktop = createDesktopApp();
  app.setAsDefaultProtocolClient('statusdesk');
  app.on('second-instance', (_event, argv) => desktop.secondInstance(argv));
  app.on('open-url', (event, url) => {
    event.preventDefault();
    desktop.openDeepLink(url);
  });
  // Closing the window keeps the service running in the tray; Quit stops it.
  app.on('window-all-closed', () => undefined);
  app.on('activate', () => desktop.showWindow());
  app.on('before-quit', (event) => desktop.beforeQuit(event));
  app.on('web-contents-created', (_event, contents) => desktop.guard(contents));
  void app.whenReady().then(() => desktop.start());
}
