import type { HostMessage } from './host-protocol.ts';

/**
 * The way to the process that runs the service host: Electron's parent port in a utility process
 * (the desktop app), or the IPC channel of `child_process.fork` (tests, benchmarks). Electron's
 * port is typed here by the little that is used of it, so the host never imports Electron.
 */
export interface ParentChannel {
  /** Whether messages can still reach the parent. */
  connected(): boolean;
  /** Resolves once the message has been handed to the channel: true, or false when the parent is gone. */
  send(message: HostMessage): Promise<boolean>;
  onMessage(listener: (data: unknown) => void): void;
  /** The parent went away (a fork's channel closed). Electron ends a utility process with its app. */
  onClose(listener: () => void): void;
}

/** What this module uses of Electron's `process.parentPort`. */
interface ElectronParentPort {
  on(event: 'message', listener: (event: { data: unknown }) => void): void;
  postMessage(message: unknown): void;
}

/** The channel this process was started with, or undefined when it was started without one. */
export function parentChannel(): ParentChannel | undefined {
  const parentPort = (process as { parentPort?: ElectronParentPort }).parentPort;
  if (parentPort) return electronChannel(parentPort);
  if (process.send) return forkChannel();
  return undefined;
}

function electronChannel(port: ElectronParentPort): ParentChannel {
  return {
    connected: () => true,
    send(message) {
      port.postMessage(message);
      // The port hands messages on asynchronously: one turn of the event loop lets it, so a
      // message sent just before the host exits is not lost.
      return new Promise((resolve) => setImmediate(() => resolve(true)));
    },
    onMessage: (listener) => port.on('message', (event) => listener(event.data)),
    onClose: () => {},
  };
}

function forkChannel(): ParentChannel {
  return {
    connected: () => process.connected,
    send(message) {
      if (!process.connected) return Promise.resolve(false);
      return new Promise((resolve) => {
        try {
          process.send!(message, undefined, {}, (error: Error | null) => resolve(!error));
        } catch {
          resolve(false); // closed between the check and the send
        }
      });
    },
    onMessage: (listener) => process.on('message', listener),
    onClose: (listener) => process.once('disconnect', listener),
  };
}
