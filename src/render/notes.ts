// What the human views (terminal report, health, migrate, the demo, the HTML page) print in
// plain words: the spec's criterion codes ("AC-25") mean nothing to a reader without the
// spec, so they are taken out of every sentence these views print. The report's JSON and
// store.report() keep each caveat verbatim, criteria included, for reviewers; docs/report.md
// explains each note in words; the docs' criteria page maps features to the criteria.

const CRITERION = String.raw`AC-\d+[a-z]?(?: point \d+)?`;
/** " (AC-25)", " (AC-24c, AC-24a)", " (AC-24 point 5)": a parenthesis holding criteria only. */
const ONLY_CRITERIA = new RegExp(String.raw` ?\((?:${CRITERION})(?:, ${CRITERION})*\)`, 'g');
/** "(a partial key pair the next boot completes, AC-24d)": criteria closing a parenthesis. */
const TRAILING_CRITERIA = new RegExp(String.raw`(?:,? ${CRITERION})+\)`, 'g');
/** " — AC-24c)" or ", as AC-25 asks": a criterion named at the end of a clause. */
const CLAUSE_CRITERIA = new RegExp(String.raw`(?: —|,) (?:as )?${CRITERION}(?: asks)?(?=[).;:]|$)`, 'g');
/** "the AC-33 end state": a criterion used as an adjective. */
const ADJECTIVE_CRITERIA = new RegExp(String.raw`\b(the|not the) ${CRITERION} `, 'g');

/** Matches any criterion code left in a text: the tests' guard that none reaches a reader. */
export const SPEC_CODE = /\bAC-\d/;

/** `text` without the spec's criterion codes, in the same words otherwise. */
export function plainWords(text: string): string {
  return text.replace(ONLY_CRITERIA, '').replace(TRAILING_CRITERIA, ')').replace(CLAUSE_CRITERIA, '').replace(ADJECTIVE_CRITERIA, '$1 ');
}

/** Where the notes are explained, for a reader of the terminal or the page. */
export const NOTES_EXPLAINED = 'docs/report.md ("Reading the notes") explains each one';

/** "1. text" per caveat, or one line saying none applies. */
export function noteLines(caveats: readonly string[]): string[] {
  if (caveats.length === 0) return ['None of the reading rules limits these figures for this store and window.'];
  return caveats.map((c, i) => `${i + 1}. ${plainWords(c)}`);
}
