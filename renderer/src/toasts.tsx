// The confirmations of changes ("Monitor saved."): one live region, in the page from its first
// render, that a screen reader announces politely. Each message goes after a few seconds, but
// not while the pointer is over the messages or the focus is in them.
import { useEffect, useState, useSyncExternalStore } from 'react';
import { type Announcement, announcements, dismiss } from './data/announcements.ts';
import { Icon } from './icons.tsx';
import './toasts.css';

/** How long a message stays once nothing holds it. */
export const TOAST_MS = 6000;

export function Toasts() {
  const shown = useSyncExternalStore(announcements.subscribe, announcements.current);
  const [hovered, setHovered] = useState(false);
  const [focused, setFocused] = useState(false);
  const held = hovered || focused;
  return (
    <section
      className="toasts"
      aria-label="Notifications"
      onMouseEnter={() => setHovered(true)}
      onMouseLeave={() => setHovered(false)}
      onFocus={() => setFocused(true)}
      onBlur={(event) => {
        if (!event.currentTarget.contains(event.relatedTarget)) setFocused(false);
      }}
    >
      <div className="toast-list" role="status" aria-live="polite">
        {shown.map((announcement) => (
          <Toast key={announcement.id} announcement={announcement} held={held} />
        ))}
      </div>
    </section>
  );
}

function Toast({ announcement, held }: { announcement: Announcement; held: boolean }) {
  // Counted again in full once released: whoever held it may have been reading it.
  useEffect(() => {
    if (held) return;
    const timer = setTimeout(() => dismiss(announcement.id), TOAST_MS);
    return () => clearTimeout(timer);
  }, [held, announcement.id]);
  return (
    <div className="toast">
      <Icon name="check" className="toast-icon" />
      <span className="toast-message">{announcement.message}</span>
      <button type="button" className="button button-ghost button-small toast-close" onClick={() => dismiss(announcement.id)}>
        Dismiss
      </button>
    </div>
  );
}
