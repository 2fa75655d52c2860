// The caveats as numbered notes: the sentence in plain words, the spec criteria it applies
// moved out of the running text into a reference list ("[AC-25, AC-31]"). The report's JSON
// keeps each caveat verbatim; only the human views (terminal, demo, HTML page) read it this way.

const CRITERION = String.raw`AC-\d+[a-z]?(?: point \d+)?`;
const CRITERIA = new RegExp(CRITERION, 'g');
/** " (AC-25)", " (AC-24c, AC-24a)": a parenthesis holding criteria only. */
const ONLY_CRITERIA = new RegExp(String.raw` \((?:${CRITERION})(?:, ${CRITERION})*\)`, 'g');
/** "(a partial key pair the next boot completes, AC-24d)": criteria closing a parenthesis. */
const TRAILING_CRITERIA = new RegExp(String.raw`(?:, ${CRITERION})+\)`, 'g');

export interface Note {
  text: string;
  /** The criteria the caveat cites, in first-mention order, without repeats. */
  refs: string[];
}

export function caveatNote(caveat: string): Note {
  const refs = [...new Set(caveat.match(CRITERIA) ?? [])];
  const text = caveat.replace(ONLY_CRITERIA, '').replace(TRAILING_CRITERIA, ')');
  return { text, refs };
}

/** "1. text [AC-25]" per caveat, or one line saying none applies. */
export function noteLines(caveats: readonly string[]): string[] {
  if (caveats.length === 0) return ['None of the reading rules limits these figures for this store and window.'];
  return caveats.map((c, i) => {
    const { text, refs } = caveatNote(c);
    return `${i + 1}. ${text}${refs.length ? ` [${refs.join(', ')}]` : ''}`;
  });
}
