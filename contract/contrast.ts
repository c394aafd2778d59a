// The text colour on a page's accent colour, as the public page draws it and the dashboard's form
// shows it before saving: WCAG 2.x relative luminance and contrast. Plain TypeScript that imports
// nothing.

/** `#rrggbb`, any case. */
export const ACCENT_COLOR = /^#[0-9a-f]{6}$/i;

/** WCAG 2.x relative luminance of `#rrggbb`. */
export function luminance(hex: string): number {
  const channel = (i: number) => {
    const c = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

/** The WCAG contrast ratio of two `#rrggbb` colours, 1 to 21. */
export function contrastRatio(a: string, b: string): number {
  const [la, lb] = [luminance(a), luminance(b)];
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
}

/**
 * The text colour on an accent colour: black or white, whichever contrasts more. One of the two
 * always reaches 4.58:1 (the worst case is a colour whose contrast with both is equal), so every
 * accent colour keeps WCAG AA's 4.5:1 for text, and none needs refusing.
 */
export function textColorOn(accent: string): '#000000' | '#ffffff' {
  return contrastRatio(accent, '#000000') >= contrastRatio(accent, '#ffffff') ? '#000000' : '#ffffff';
}
