// The preload's channel names, on their own so the preload bundles nothing else (ipc.ts checks
// what arrives on them).
export const IPC = {
  /** () → the app's version. */
  version: 'app:version',
  /** (url) → opens an http(s) address in the system browser. */
  openExternal: 'app:open-external',
  /** (request id) → the native consent window's request was decided: the window may close. */
  consentDecided: 'consent:decided',
} as const;
