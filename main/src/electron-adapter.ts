// Carries out, with Electron's API, what the plain modules of main/ decide: the service host in a
// utility process under the supervisor, the window and its guards, the tray, notifications, the
// native consent window, deep links, open at login, the command on the PATH and the sealing key.
// Nothing here decides anything a test would want to check: that lives in the modules it imports.
import { join } from 'node:path';
import {
  app,
  BrowserWindow,
  dialog,
  ipcMain,
  Menu,
  type MenuItemConstructorOptions,
  nativeImage,
  Notification,
  safeStorage,
  session,
  shell,
  Tray,
  utilityProcess,
  type WebContents,
} from 'electron';
import type { HealthSummary, HostMessage, ReadyMessage } from '../../server/desktop/host-protocol.ts';
import { SERVICE_NODE_FLAGS } from '../../server/heap-growth.ts';
import { canWriteInto, installCli, planCliInstall } from './cli-install.ts';
import { dashboardPath, deepLinkFromArgv, parseDeepLink } from './deep-links.ts';
import { consentDecidedPayload, IPC, isTrustedSender, openExternalPayload } from './ipc.ts';
import { loadSealingKey } from './key-store.ts';
import { DASHBOARD_CSP, navigationDecision, windowOpenDecision } from './navigation.ts';
import { alertNotification, consentNotification } from './notification-text.ts';
import { choosePorts, isPortFree } from './ports.ts';
import { readSettings, writeSettings, type Settings } from './settings.ts';
import { createSupervisor, type HostProcess, type SupervisorState } from './supervisor.ts';
import { type TrayItem, trayModel } from './tray.ts';

/** The service host as a utility process: Electron's own Node, no window, its own crash domain. */
function forkHost(script: string): HostProcess {
  const child = utilityProcess.fork(script, [], { serviceName: 'Statusdesk service', stdio: 'inherit', execArgv: [...SERVICE_NODE_FLAGS] });
  return {
    send: (message) => child.postMessage(message),
    onMessage: (listener) => child.on('message', listener),
    onExit: (listener) => child.on('exit', (code) => listener(code, null)),
    kill: () => child.kill(),
  };
}

export function createDesktopApp() {
  const root = app.getAppPath();
  const hostScript = join(root, 'dist', 'desktop-host.js');
  const preload = join(root, 'dist', 'desktop', 'preload.cjs');
  const iconOf = (state: string) => nativeImage.createFromPath(join(root, 'build', `tray-${state}.png`));
  const settingsFile = join(app.getPath('userData'), 'settings.json');
  const dataDir = join(app.getPath('userData'), 'data');

  let settings: Settings = readSettings(settingsFile);
  let ready: ReadyMessage | undefined;
  let health: HealthSummary | undefined;
  let state: SupervisorState = 'starting';
  let window: BrowserWindow | undefined;
  let tray: Tray | undefined;
  let quitting = false;
  let pendingPath: string | undefined;

  const saveSettings = (change: Partial<Settings>) => {
    settings = { ...settings, ...change };
    writeSettings(settingsFile, settings);
  };

  const supervisor = createSupervisor({
    spawn: () => forkHost(hostScript),
    onEvent: (event: HostMessage) => {
      if (event.type === 'health') {
        health = event;
        updateTray();
      } else if (event.type === 'alert') {
        notify(alertNotification(event.alert));
      } else if (event.type === 'consent') {
        const text = consentNotification(event.request);
        notify(text, () => openConsentWindow(event.request.id));
      }
    },
    onStateChange: (next: SupervisorState, reason?: string) => {
      state = next;
      updateTray();
      if (next === 'restarting') notify({ title: 'Statusdesk stopped unexpectedly', body: 'It is starting again.', path: '/' });
      if (next === 'stopped' && reason && !quitting) {
        void dialog.showMessageBox({ type: 'error', message: 'Statusdesk has stopped', detail: reason });
      }
    },
  });

  /** Signs a window in with a fresh one-time link (over the host channel, never through a shared URL), then shows `path`. */
  async function signIn(target: BrowserWindow, path: string): Promise<void> {
    const link = await supervisor.requestSignIn();
    await target.loadURL(link);
    if (path !== '/' && ready) await target.loadURL(`${ready.dashboardUrl}${path}`);
  }

  function createWindow(): BrowserWindow {
    const created = new BrowserWindow({
      width: 1280,
      height: 800,
      minWidth: 420,
      minHeight: 500,
      show: false,
      title: 'Statusdesk',
      webPreferences: { preload, contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true, spellcheck: false },
    });
    created.once('ready-to-show', () => created.show());
    // Closing the window keeps the service (and the tray) running.
    created.on('close', (event) => {
      if (quitting) return;
      event.preventDefault();
      created.hide();
    });
    return created;
  }

  function showWindow(path = '/'): void {
    if (!ready) {
      pendingPath = path;
      return;
    }
    if (!window || window.isDestroyed()) {
      window = createWindow();
      void signIn(window, path);
    } else {
      if (path !== '/') void window.loadURL(`${ready.dashboardUrl}${path}`);
      window.show();
      window.focus();
    }
  }

  /** The native consent window: the dashboard's consent page for one request, signed in, in a window of its own. */
  function openConsentWindow(requestId: string): void {
    if (!ready) return;
    const consent = new BrowserWindow({
      width: 560,
      height: 720,
      title: 'Allow access to Statusdesk?',
      webPreferences: { preload, contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true, spellcheck: false },
    });
    void signIn(consent, dashboardPath({ kind: 'consent', requestId }));
  }

  function notify(text: { title: string; body: string; path: string }, onClick?: () => void): void {
    if (!Notification.isSupported()) return;
    const shown = new Notification({ title: text.title, body: text.body });
    shown.on('click', onClick ?? (() => showWindow(text.path)));
    shown.show();
  }

  function menuItem(item: TrayItem): MenuItemConstructorOptions {
    if (item.separator) return { type: 'separator' };
    const action = item.action;
    return {
      label: item.label,
      enabled: item.enabled,
      type: item.checked === undefined ? 'normal' : 'checkbox',
      checked: item.checked,
      click: () => {
        if (!action) return;
        if (action.type === 'open') showWindow(action.path);
        else if (action.type === 'quit') app.quit();
        else if (action.type === 'toggle-open-at-login') setOpenAtLogin(!settings.openAtLogin);
        else if (action.type === 'install-cli') void installCommand();
      },
    };
  }

  function updateTray(): void {
    if (!tray) return;
    const model = trayModel(health, state, { openAtLogin: settings.openAtLogin });
    tray.setImage(iconOf(model.icon));
    tray.setToolTip(model.tooltip);
    tray.setContextMenu(Menu.buildFromTemplate(model.items.map(menuItem)));
  }

  function setOpenAtLogin(openAtLogin: boolean): void {
    app.setLoginItemSettings({ openAtLogin });
    saveSettings({ openAtLogin });
    updateTray();
  }

  async function installCommand(): Promise<void> {
    const plan = planCliInstall({
      platform: process.platform,
      home: app.getPath('home'),
      env: process.env,
      appExecutable: process.execPath,
      cliScript: join(root, 'dist', 'statusdesk.js'),
      dataDir,
      isWritable: canWriteInto,
    });
    try {
      const done = await installCli(plan);
      saveSettings({ cliInstalledAt: new Date().toISOString() });
      await dialog.showMessageBox({ type: 'info', message: 'The statusdesk command is installed', detail: done.summary });
    } catch (error) {
      await dialog.showMessageBox({ type: 'error', message: 'The statusdesk command could not be installed', detail: (error as Error).message });
    }
  }

  /** Every web contents: no navigation away from the dashboard, no new windows, no webviews, no permissions. */
  function guard(contents: WebContents): void {
    const origin = () => (ready ? new URL(ready.dashboardUrl).origin : '');
    const decide = (url: string) => {
      const decision = navigationDecision(url, origin());
      if (decision === 'open-externally') void shell.openExternal(url);
      return decision;
    };
    contents.on('will-navigate', (event, url) => {
      if (decide(url) !== 'allow') event.preventDefault();
    });
    contents.on('will-redirect', (event, url) => {
      if (decide(url) !== 'allow') event.preventDefault();
    });
    contents.on('will-attach-webview', (event) => event.preventDefault());
    contents.setWindowOpenHandler(({ url }) => {
      if (windowOpenDecision(url, origin()) === 'open-externally') void shell.openExternal(url);
      return { action: 'deny' };
    });
  }

  function registerIpc(): void {
    const trusted = (event: Electron.IpcMainInvokeEvent) => {
      if (!ready || !isTrustedSender(event.senderFrame?.url ?? '', new URL(ready.dashboardUrl).origin)) throw new Error('refused: not a page of the dashboard');
    };
    ipcMain.handle(IPC.version, (event) => {
      trusted(event);
      return app.getVersion();
    });
    ipcMain.handle(IPC.openExternal, async (event, payload: unknown) => {
      trusted(event);
      const url = openExternalPayload(payload);
      if (windowOpenDecision(url, new URL(ready!.dashboardUrl).origin) === 'open-externally') await shell.openExternal(url);
    });
    ipcMain.handle(IPC.consentDecided, (event, payload: unknown) => {
      trusted(event);
      consentDecidedPayload(payload);
      BrowserWindow.fromWebContents(event.sender)?.close();
    });
  }

  return {
    async start(): Promise<void> {
      registerIpc();
      session.defaultSession.setPermissionRequestHandler((_contents, _permission, answer) => answer(false));
      tray = new Tray(iconOf('unknown'));
      updateTray();
      app.setLoginItemSettings({ openAtLogin: settings.openAtLogin });
      try {
        // The key that seals stored credentials, kept by the system keychain where there is one.
        const sealing = loadSealingKey(dataDir, safeStorage);
        if (sealing.protection === 'file') process.emitWarning(sealing.reason);
        const ports = await choosePorts(settings.ports, isPortFree);
        ready = await supervisor.start({ type: 'start', dataDir, ports, sealingKey: sealing.key?.toString('base64') });
      } catch (error) {
        await dialog.showMessageBox({ type: 'error', message: 'Statusdesk could not start', detail: (error as Error).message });
        app.quit();
        return;
      }
      saveSettings({ ports: ready.ports });
      // The dashboard's policy, also as the app's own header: a page that lost it still gets it.
      session.defaultSession.webRequest.onHeadersReceived({ urls: [`${ready.dashboardUrl}/*`] }, (details, callback) => {
        callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [DASHBOARD_CSP] } });
      });
      const link = deepLinkFromArgv(process.argv);
      showWindow(pendingPath ?? (link ? dashboardPath(link) : '/'));
    },
    showWindow: () => showWindow(),
    secondInstance(argv: string[]): void {
      const link = deepLinkFromArgv(argv);
      showWindow(link ? dashboardPath(link) : '/');
    },
    openDeepLink(url: string): void {
      const link = parseDeepLink(url);
      if (link) showWindow(dashboardPath(link));
    },
    guard,
    /** Quit stops the service cleanly first: writes in flight finish before the app exits. */
    beforeQuit(event: Electron.Event): void {
      if (quitting) return;
      quitting = true;
      event.preventDefault();
      void supervisor.stop().finally(() => app.quit());
    },
  };
}
