/** The error codes of RFC 6749, RFC 7591 and RFC 8707 this server answers with. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'access_denied'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  | 'temporarily_unavailable'
  | 'server_error';

/**
 * An OAuth refusal, answered in the RFC 6749 shape `{error, error_description}` and never as the
 * API's error envelope (SPEC 7 rule 5). The HTTP status follows from the code unless given: 401
 * for `invalid_client`, 400 for the others.
 */
export class OAuthError extends Error {
  readonly error: OAuthErrorCode;
  /** The HTTP status of this refusal at the token, revocation and registration endpoints. */
  readonly status: number;
  /** For a refusal that passes with time (a rate, a cap): when to try again. */
  readonly retryAfterSeconds: number | undefined;

  constructor(error: OAuthErrorCode, description: string, options: { status?: number; retryAfterSeconds?: number } = {}) {
    super(description);
    this.name = 'OAuthError';
    this.error = error;
    this.status = options.status ?? (error === 'invalid_client' ? 401 : 400);
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  toJSON(): { error: OAuthErrorCode; error_description: string } {
    return { error: this.error, error_description: this.message };
  }
}

/**
 * A refusal no endpoint made (a body over the limit, an unknown path, a rate, a failure), in the
 * words of RFC 6749 for its HTTP status: `invalid_client` for 401, `access_denied` for 403,
 * `temporarily_unavailable` for what passes with time (429, 503, and 507: a full disk),
 * `server_error` for the other 5xx, and `invalid_request` for the rest.
 */
export function oauthErrorOfStatus(status: number, description: string, retryAfterSeconds?: number): OAuthError {
  const passes = status === 429 || status === 503 || status === 507;
  const code: OAuthErrorCode =
    status === 401
      ? 'invalid_client'
      : status === 403
        ? 'access_denied'
        : passes
          ? 'temporarily_unavailable'
          : status >= 500
            ? 'server_error'
            : 'invalid_request';
  return new OAuthError(code, description, { status, retryAfterSeconds });
}
