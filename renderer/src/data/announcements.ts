// What the window says after a change succeeded ("Monitor saved."), for the toasts to show and a
// screen reader to announce (toasts.tsx). The mutation cache (query-client.ts) announces each
// change whose `meta.done` says what to say, so no screen announces by hand.

export interface Announcement {
  id: number;
  message: string;
}

let shown: readonly Announcement[] = [];
let next = 1;
const listeners = new Set<() => void>();

function publish(announcements: readonly Announcement[]): void {
  shown = announcements;
  for (const listener of listeners) listener();
}

/** Shows `message` (the same message again replaces the older one, so a double save says it once). */
export function announce(message: string): void {
  publish([...shown.filter((a) => a.message !== message), { id: next++, message }].slice(-3));
}

export function dismiss(id: number): void {
  publish(shown.filter((a) => a.id !== id));
}

export const announcements = {
  subscribe(listener: () => void): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
  current: (): readonly Announcement[] => shown,
};
