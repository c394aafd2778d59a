/**
 * Turns what a person (or a model) typed into an FTS5 query that cannot be a syntax error.
 * Nothing typed is ever FTS5 syntax here: operators, column filters, NEAR groups, quotes and stars
 * are all plain text, and only words reach the query, each inside a quoted string.
 */

/** Letters, digits and combining marks: the characters the unicode61 tokenizer keeps in tokens. */
const WORD = /[\p{L}\p{N}\p{M}]+/gu;
/**
 * Words joined by these stay one term, matched as a phrase: `x-service-key`, `api.example.com`,
 * `STATUSDESK_DOCS_URL`, `don't` find the words next to each other, not anywhere on the page.
 */
const TERM = /[\p{L}\p{N}\p{M}]+(?:[-_.'’/@:][\p{L}\p{N}\p{M}]+)*/gu;
/** A long pasted text is not a better query: the first terms are enough, and bound the work. */
const MAX_TERMS = 24;
const MAX_QUERY_CHARS = 1_000;
const MAX_TOKENS_PER_TERM = 8;

export interface SearchExpression {
  /** Every term must match, words joined in the query as a phrase. */
  all: string;
  /** Any word may match: the fallback when no page has them all, and what snippets mark. */
  any: string;
}

/**
 * The FTS5 expressions for `text`, or undefined when it holds no word at all (only punctuation,
 * symbols or emoji): such a query matches nothing rather than everything. The last term is a
 * prefix, so a query typed as far as `moni` already finds monitors.
 */
export function searchExpression(text: string): SearchExpression | undefined {
  const terms = (text.slice(0, MAX_QUERY_CHARS).match(TERM) ?? []).slice(0, MAX_TERMS);
  const groups = terms.map((term) => (term.match(WORD) ?? []).slice(0, MAX_TOKENS_PER_TERM)).filter((tokens) => tokens.length > 0);
  if (groups.length === 0) return undefined;
  // Only letters, digits, marks and spaces are between the quotes: nothing there can close them.
  const quote = (tokens: string[], last: boolean) => `"${tokens.join(' ')}"${last ? ' *' : ''}`;
  const words = groups.flat();
  return {
    all: groups.map((tokens, i) => quote(tokens, i === groups.length - 1)).join(' AND '),
    any: words.map((word, i) => quote([word], i === words.length - 1)).join(' OR '),
  };
}
