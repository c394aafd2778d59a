import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { SESSION_TOKEN_HEADER } from '../../contract/dashboard.ts';
import { SESSION_TTL_MS } from '../domain/sessions/sessions.ts';
import type { AppEnv } from '../http/hono-app.ts';

/** The cookie holding the browser's half of a dashboard session (the page keeps the other). */
export const SESSION_COOKIE = 'statusdesk_session';

/** Gives the browser its half of a new session: HttpOnly, SameSite=Strict, as long as the session lasts. */
export function setSessionCookie(c: Context<AppEnv>, secret: string): void {
  setCookie(c, SESSION_COOKIE, secret, { httpOnly: true, sameSite: 'Strict', path: '/', maxAge: Math.floor(SESSION_TTL_MS / 1000) });
}

export function clearSessionCookie(c: Context<AppEnv>): void {
  deleteCookie(c, SESSION_COOKIE, { path: '/' });
}

/** Both halves of the session a request carries (empty when absent). */
export function sessionHalves(c: Context<AppEnv>): { secret: string; token: string } {
  return { secret: getCookie(c, SESSION_COOKIE) ?? '', token: c.req.header(SESSION_TOKEN_HEADER) ?? '' };
}
