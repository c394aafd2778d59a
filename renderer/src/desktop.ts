// What the desktop app's preload offers its windows (main/src/preload.ts), when the dashboard runs
// there; in a browser there is nothing, and every use is optional.
interface DesktopBridge {
  version(): Promise<string>;
  openExternal(url: string): Promise<void>;
  consentDecided(requestId: string): Promise<void>;
}

export const desktop: DesktopBridge | undefined = (window as Window & { statusdesk?: DesktopBridge }).statusdesk;
