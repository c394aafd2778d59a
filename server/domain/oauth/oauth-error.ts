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
  | 'invalid_client_metadata';

/**
 * An OAuth refusal, answered in the RFC 6749 shape `{error, error_description}` and never as the
 * API's error envelope (SPEC 7 rule 5). The edge picks the HTTP status from the code.
 */
export class OAuthError extends Error {
  readonly error: OAuthErrorCode;

  constructor(error: OAuthErrorCode, description: string) {
    super(description);
    this.name = 'OAuthError';
    this.error = error;
  }

  /** The HTTP status of this refusal at the token, revocation and registration endpoints. */
  get status(): number {
    return this.error === 'invalid_client' ? 401 : 400;
  }

  toJSON(): { error: OAuthErrorCode; error_description: string } {
    return { error: this.error, error_description: this.message };
  }
}
