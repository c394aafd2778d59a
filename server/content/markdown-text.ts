/**
 * What the index needs from a markdown page: its title, its section headings, a one-line
 * description, and its words without markup (snippets are cut from that text, and `**` or `|`
 * in the middle of a snippet would only be noise).
 */

export interface MarkdownParts {
  /** The first level-1 heading; undefined when the page has none. */
  title: string | undefined;
  /** The text of the other headings, in order. */
  headings: string[];
  /** The first sentence of the first paragraph of prose, or undefined. */
  description: string | undefined;
  /** The text without markup, code included (commands and field names are worth finding). */
  text: string;
  /**
   * The same text cut at every heading, each part starting with its heading. Snippets are cut
   * from the part that matches best: cutting one from a whole long page costs far more.
   */
  sections: string[];
}

const FENCE = /^\s{0,3}(```|~~~)/;
const HEADING = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const TABLE_RULE = /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/;
const DESCRIPTION_LIMIT = 200;

/** Inline markup of one line removed: links keep their text, emphasis and code marks go. */
function inlineText(line: string): string {
  return line
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<(https?:[^>\s]+)>/g, '$1')
    .replace(/\*\*|`/g, '')
    .replace(/(^|[\s(])[*_]([^*_\s][^*_]*?)[*_](?=[\s).,;:!?]|$)/g, '$1$2')
    .replace(/\\([\\`*_{}[\]()#+\-.!|>])/g, '$1');
}

export function parseMarkdown(markdown: string): MarkdownParts {
  let title: string | undefined;
  const headings: string[] = [];
  const sections: string[][] = [[]];
  let lines = sections[0]!;
  let paragraph: string[] = [];
  let description: string | undefined;
  let inFence = false;

  const endParagraph = () => {
    if (description === undefined && paragraph.length > 0) description = firstSentence(paragraph.join(' '));
    paragraph = [];
  };

  for (const line of markdown.split(/\r?\n/)) {
    if (FENCE.test(line)) {
      inFence = !inFence;
      endParagraph();
      continue;
    }
    if (inFence) {
      lines.push(line);
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      endParagraph();
      const words = inlineText(heading[2]!);
      if (heading[1] === '#' && title === undefined) {
        title = words;
      } else {
        headings.push(words);
        if (lines.length > 0) sections.push((lines = []));
      }
      lines.push(words);
      continue;
    }
    if (TABLE_RULE.test(line) && line.includes('-')) continue;
    const trimmed = line.trim();
    if (trimmed === '') {
      endParagraph();
      continue;
    }
    // Lists, tables and quotes are not the sentence that says what a page is about.
    const prose = !/^([-*+]\s|\d+[.)]\s|\||>)/.test(trimmed);
    const words = inlineText(trimmed.replace(/^>\s?/, '').replace(/^([-*+]|\d+[.)])\s+/, ''))
      .replace(/\s*\|\s*/g, ' ')
      .trim();
    if (prose && description === undefined) paragraph.push(words);
    else endParagraph();
    lines.push(words);
  }
  endParagraph();
  const joined = sections
    .map((part) =>
      part
        .join('\n')
        .replace(/\n{3,}/g, '\n\n')
        .trim(),
    )
    .filter((t) => t !== '');
  return { title, headings, description, text: joined.join('\n\n'), sections: joined };
}

/** The first sentence, whitespace collapsed, cut at a word when it is long. */
function firstSentence(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const end = /[.!?](?=\s+[A-Z`*_[(]|$)/.exec(flat);
  // A sentence that leads into a list ends with a colon; on its own line it reads as a statement.
  const sentence = (end ? flat.slice(0, end.index + 1) : flat).replace(/:$/, '.');
  return clip(sentence, DESCRIPTION_LIMIT);
}

/** `text` on one line, at most `limit` characters, cut at a word with an ellipsis. */
export function clip(text: string, limit: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= limit) return flat;
  const cut = flat.slice(0, limit - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > limit / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.]+$/, '')}…`;
}

/** Text safe inside the brackets of a markdown link. */
export function linkText(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/([\\[\]])/g, '\\$1');
}
