// The only bridge between the dashboard's pages and the app: a few named calls, each a message on
// a channel main/ validates (ipc.ts), never ipcRenderer itself. The pages are the same in a
// browser, so they use it only when it is there (`window.statusdesk`).
import { contextBridge, ipcRenderer } from 'electron';
import { IPC } from './ipc-channels.ts';

const api = {
  /** The app's version, e.g. to show in the dashboard's footer. */
  version: (): Promise<string> => ipcRenderer.invoke(IPC.version),
  /** Opens an http(s) address in the system browser. */
  openExternal: (url: string): Promise<void> => ipcRenderer.invoke(IPC.openExternal, url),
  /** The native consent window's decision was made: the app may close that window. */
  consentDecided: (requestId: string): Promise<void> => ipcRenderer.invoke(IPC.consentDecided, requestId),
} as const;

export type DesktopApi = typeof api;

contextBridge.exposeInMainWorld('statusdesk', api);
