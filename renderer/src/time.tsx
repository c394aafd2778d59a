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

/** "just now", "3 min ago", "in 2 h", "5 days ago". */
export function relative(iso: string, now = Date.now()): string {
  const seconds = Math.round((new Date(iso).getTime() - now) / 1000);
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

/** A relative time, with the exact one for hover and for assistive technology. */
export function When({ iso, never = 'Never' }: { iso: string | null | undefined; never?: string }) {
  const now = useNow();
  if (!iso) return <span className="muted">{never}</span>;
  const exact = new Date(iso);
  return (
    <time dateTime={iso} title={exact.toLocaleString()}>
      {relative(iso, now)}
    </time>
  );
}
