// The live feed of a workspace: `events` of the dashboard API, a text/event-stream of
// LiveEvent, parsed by eventsource-parser (loaded with the first stream). Read with the session's
// fetch rather than EventSource because the session token goes in a header, never in the address.
// One connection per workspace, shared by every listener (the query cache's, live-queries.ts, and
// the browser notifications below), closed when the last one stops listening, and reopened after
// a drop with a bounded backoff.
import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from 'react';
import type { LiveEvent } from '../../contract/dashboard-api.ts';
import { LIVE_EVENT_TYPES, pathOf } from '../../contract/dashboard.ts';
import { sessionFetch } from './data/session-fetch.ts';

/** `connecting` until the stream answers, `open` while it does, `retrying` while waiting to reconnect. */
export type LiveStatus = 'connecting' | 'open' | 'retrying';

interface Listener {
  onEvent(event: LiveEvent): void;
  /** Called when the stream opens again after a drop: events may have been missed while it was down. */
  onOpen(): void;
}

const FIRST_RETRY_MS = 1_000;
const LAST_RETRY_MS = 30_000;

/** Event names the feed sends; others (future kinds) are skipped, as comments and keep-alives are by the parser. */
const EVENT_NAMES = new Set<string>(LIVE_EVENT_TYPES);

class Feed {
  readonly listeners = new Set<Listener>();
  status: LiveStatus = 'connecting';
  private readonly statusWatchers = new Set<() => void>();
  private abort: AbortController | undefined;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private failures = 0;
  private closed = false;

  constructor(private readonly workspaceId: string) {}

  start(): void {
    void this.connect();
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.retryTimer);
    this.abort?.abort();
  }

  watchStatus(onChange: () => void): () => void {
    this.statusWatchers.add(onChange);
    return () => this.statusWatchers.delete(onChange);
  }

  private setStatus(status: LiveStatus): void {
    if (this.status === status) return;
    this.status = status;
    this.statusWatchers.forEach((watch) => watch());
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const abort = new AbortController();
    this.abort = abort;
    try {
      const response = await sessionFetch(pathOf('events', { workspaceId: this.workspaceId }), {
        headers: { accept: 'text/event-stream' },
        signal: abort.signal,
      });
      // The session is gone (sessionFetch has signed the window out): nothing to reconnect to.
      if (response.status === 401) return;
      if (!response.ok || !response.body) throw new Error(`the live feed answered ${response.status}`);
      // After a drop, what changed meanwhile was never announced: listeners load it again.
      const missed = this.failures > 0;
      this.failures = 0;
      this.setStatus('open');
      if (missed) this.listeners.forEach((listener) => listener.onOpen());
      // The parser is loaded with the first stream, not with the first screen.
      const { createParser } = await import('eventsource-parser');
      const parser = createParser({ onEvent: ({ event, data }) => this.dispatch(event ?? 'message', data) });
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        parser.feed(value);
      }
    } catch {
      // A refused connection, a drop mid-stream or our own abort: the retry below decides.
    }
    if (this.closed) return;
    this.failures += 1;
    this.setStatus('retrying');
    // 1 s, 2 s, 4 s ... up to 30 s, with some jitter so that many windows do not reconnect at once.
    const delay = Math.min(LAST_RETRY_MS, FIRST_RETRY_MS * 2 ** (this.failures - 1)) * (0.75 + Math.random() * 0.5);
    this.retryTimer = setTimeout(() => void this.connect(), delay);
  }

  private dispatch(name: string, data: string): void {
    if (!EVENT_NAMES.has(name)) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch {
      return;
    }
    if (typeof parsed !== 'object' || parsed === null) return;
    const event = { ...parsed, type: name } as LiveEvent;
    this.listeners.forEach((listener) => listener.onEvent(event));
  }
}

const feeds = new Map<string, Feed>();
const closing = new Map<string, ReturnType<typeof setTimeout>>();

/** How long a feed nobody listens to stays open: moving from one screen to the next keeps it. */
const LINGER_MS = 5_000;

function subscribe(workspaceId: string, listener: Listener): () => void {
  clearTimeout(closing.get(workspaceId));
  closing.delete(workspaceId);
  let feed = feeds.get(workspaceId);
  if (!feed) {
    feed = new Feed(workspaceId);
    feeds.set(workspaceId, feed);
    feed.start();
  }
  feed.listeners.add(listener);
  const subscribed = feed;
  return () => {
    subscribed.listeners.delete(listener);
    if (subscribed.listeners.size > 0) return;
    closing.set(
      workspaceId,
      setTimeout(() => {
        closing.delete(workspaceId);
        if (subscribed.listeners.size > 0) return;
        subscribed.close();
        if (feeds.get(workspaceId) === subscribed) feeds.delete(workspaceId);
      }, LINGER_MS),
    );
  };
}

/**
 * Calls `onEvent` for every event of the workspace's live feed, and `onOpen` when the feed
 * reconnects after a drop (what changed while it was down was not announced). Returns its status.
 */
export function useLiveEvents(workspaceId: string, onEvent: (event: LiveEvent) => void, onOpen?: () => void): LiveStatus {
  const handlers = useRef({ onEvent, onOpen });
  handlers.current = { onEvent, onOpen };
  const [feed, setFeed] = useState<Feed>();

  useEffect(() => {
    const unsubscribe = subscribe(workspaceId, {
      onEvent: (event) => handlers.current.onEvent(event),
      onOpen: () => handlers.current.onOpen?.(),
    });
    setFeed(feeds.get(workspaceId));
    return unsubscribe;
  }, [workspaceId]);

  const watch = useCallback((onChange: () => void) => feed?.watchStatus(onChange) ?? (() => undefined), [feed]);
  return useSyncExternalStore(watch, () => feed?.status ?? 'connecting');
}

const ignore = () => undefined;

/** The status of the workspace's live feed, for a screen that says whether it is live. */
export function useLiveStatus(workspaceId: string): LiveStatus {
  return useLiveEvents(workspaceId, ignore);
}

// Browser notifications for monitors that go down.

export type NotificationPermissionState = NotificationPermission | 'unsupported';

const permissionWatchers = new Set<() => void>();
const supported = () => typeof Notification !== 'undefined';
const permission = (): NotificationPermissionState => (supported() ? Notification.permission : 'unsupported');

/** Asks the browser for permission; only ever called from a click on the offer. */
export async function askNotificationPermission(): Promise<NotificationPermissionState> {
  if (!supported()) return 'unsupported';
  const answer = await Notification.requestPermission();
  permissionWatchers.forEach((watch) => watch());
  return answer;
}

/** The window's notification permission, re-read after asking. */
export function useNotificationPermission(): NotificationPermissionState {
  return useSyncExternalStore((onChange) => {
    permissionWatchers.add(onChange);
    return () => permissionWatchers.delete(onChange);
  }, permission);
}

/** Changes already announced, so that a change delivered again (after a reconnect) is announced once. */
const announced = new Set<string>();

/** A notification for a `state` event to `down`, when the window may show one. */
export function announceDown(event: LiveEvent): void {
  if (event.type !== 'state' || event.to !== 'down' || permission() !== 'granted') return;
  const key = `${event.monitorId} ${event.at}`;
  if (announced.has(key)) return;
  announced.add(key);
  // Only the latest few matter: an event is delivered to the listeners of that moment.
  if (announced.size > 200) announced.delete(announced.values().next().value!);
  // The tag makes a later notification of the same monitor replace this one instead of piling up.
  new Notification(`${event.monitorName} is down`, { body: event.message, tag: `monitor-${event.monitorId}` });
}

/** Announces monitors going down while the window shows any screen of the workspace (rendered by the frame). */
export function DownNotifications({ workspaceId }: { workspaceId: string }): null {
  useLiveEvents(workspaceId, announceDown);
  return null;
}
