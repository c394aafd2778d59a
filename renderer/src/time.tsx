import { useEffect, useState } from 'react';

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['week', 7 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
];
const SHORT: Partial<Record<Intl.RelativeTimeFormatUnit, string>> = { minute: 'min', hour: 'h' };

/**
 * "just now", "3 min ago", "in 2 h", "5 days ago". `past`: the time is of something that happened
 * (a check, a change), so a time a little ahead of this window's clock (the service's clock, or a
 * clock read a moment ago) is "just now", never "in a moment".
 */
export function relative(iso: string, now = Date.now(), { past = false }: { past?: boolean } = {}): string {
  const ahead = Math.round((new Date(iso).getTime() - now) / 1000);
  const seconds = past ? Math.min(0, ahead) : ahead;
  const size = Math.abs(seconds);
  if (size < 45) return seconds > 0 ? 'in a moment' : 'just now';
  for (const [unit, length] of UNITS) {
    if (size >= length * 0.95 || unit === 'minute') {
      const count = Math.max(1, Math.round(size / length));
      const name = SHORT[unit] ?? (count === 1 ? unit : `${unit}s`);
      return seconds > 0 ? `in ${count} ${name}` : `${count} ${name} ago`;
    }
  }
  return iso;
}

/** Re-renders every `ms` so relative times stay true while a screen is open. */
export function useNow(ms = 30_000): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}

/**
 * A relative time, with the exact one for hover and for assistive technology. It reads the clock
 * as it draws: `useNow` only draws it again as time passes, and its time is up to a tick old, which
 * put a change made since the last tick in the future ("in a moment").
 */
export function When({ iso, never = 'Never', past = false }: { iso: string | null | undefined; never?: string; past?: boolean }) {
  const now = useNow();
  if (!iso) return <span className="muted">{never}</span>;
  const exact = new Date(iso);
  return (
    <time dateTime={iso} title={exact.toLocaleString()}>
      {relative(iso, Math.max(now, Date.now()), { past })}
    </time>
  );
}

/** "3 min", "5 h", "2 days": how long something has lasted, from `iso` until `now`. */
export function durationSince(iso: string, now = Date.now()): string {
  const minutes = Math.max(0, Math.floor((now - new Date(iso).getTime()) / 60_000));
  if (minutes < 1) return 'under a minute';
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h${minutes % 60 ? ` ${minutes % 60} min` : ''}`;
  return `${Math.floor(hours / 24)} days`;
}
