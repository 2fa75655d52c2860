// The one place a PostgreSQL connection string is made fit to print. node-postgres
// (pg-connection-string) copies EVERY query parameter into its config and lets `?password=`
// override the userinfo password, so a secret can sit in either; `sslkey` names the private
// key file (and a missing one comes back as an ENOENT error echoing the path). Every output
// that shows a URL shows maskConnectionString(url); every error line goes through a
// secretMasker(), which masks each URL whole and each secret it carries where it stands alone
// (maskBare).

const MASK = '***';

/** Query parameters whose value is masked: password, sslpassword, sslkey, passfile, and anything named like a credential. */
const SECRET_PARAM = /pass|key|secret|token|cred|auth/i;

/**
 * Parses a connection string the way pg-connection-string does (its encoding of spaces and
 * stray `%`, its dummy host for `user:pw@/db`), so what it takes as a secret, we do too.
 */
function parseLikePg(text: string): { url: URL; dummyHost: boolean } | null {
  const str = / |%[^a-f0-9]|%[a-f0-9][^a-f0-9]/i.test(text) ? encodeURI(text).replace(/%25(\d\d)/g, '%$1') : text;
  try {
    return { url: new URL(str, 'postgres://base'), dummyHost: false };
  } catch {
    try {
      return { url: new URL(str.replace('@/', '@___DUMMY___/'), 'postgres://base'), dummyHost: true };
    } catch {
      return null;
    }
  }
}

const decoded = (text: string) => {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
};

/** The URL with its userinfo password and every secret query parameter replaced by `***`. */
export function maskConnectionString(text: string): string {
  const parsed = parseLikePg(text);
  if (!parsed) return 'postgres URL (not shown: it does not parse)';
  const { url, dummyHost } = parsed;
  if (url.password) url.password = MASK;
  for (const name of new Set(url.searchParams.keys())) if (SECRET_PARAM.test(name)) url.searchParams.set(name, MASK);
  const shown = url.toString();
  return dummyHost ? shown.replace('@___DUMMY___/', '@/') : shown;
}

/** Every secret `text` carries, raw and percent-decoded (empty when it is not a URL). */
function connectionSecrets(text: string): string[] {
  const parsed = parseLikePg(text);
  if (!parsed) return [];
  const { url } = parsed;
  const values = [url.password, ...[...url.searchParams].filter(([name]) => SECRET_PARAM.test(name)).map(([, value]) => value)];
  return values.flatMap((v) => [v, decoded(v), encodeURIComponent(v)]).filter((v) => v !== '');
}

/**
 * A function that masks, in any text, every connection string among `args` (a `--postgres URL`,
 * `--name=URL` for any option, a bare URL argument, a variable's value) and then every secret
 * value each carries, raw and percent-decoded, where it stands alone (maskBare), longest first so a
 * secret inside another is never half-shown. Used on error lines, where a driver's message may echo what it was given (an
 * sslkey path in ENOENT). Any scheme, in any case, after any blank: a URL given to the wrong
 * option (`--sqlite=postgres://…`) or meant for another client is as secret as a right one.
 */
export function secretMasker(args: readonly string[]): (text: string) => string {
  // A value in quotes or angle brackets (Docker's --env-file keeps the quotes) is the URL inside them.
  const candidates = args.map((a) =>
    a
      .replace(/^--[^=]+=/, '')
      .trim()
      .replace(/^["'<]+|["'>]+$/g, ''),
  );
  const urls = [...new Set(candidates.filter((a) => /^[a-z][a-z0-9+.-]*:\/\//i.test(a)))];
  // A secret the masked URL shows anyway (a password equal to the user name, `postgres`) is
  // no secret there: masking it elsewhere would only garble messages (`--*** was given`).
  const shown = urls.map(maskConnectionString).join(' ');
  const secrets = [...new Set(urls.flatMap(connectionSecrets))].filter((s) => !shown.includes(s)).sort((a, b) => b.length - a.length);
  return (text) => {
    let masked = text;
    for (const url of urls) masked = masked.split(url).join(maskConnectionString(url));
    for (const secret of secrets) masked = maskBare(masked, secret);
    return masked;
  };
}

/** A secret this long is masked wherever it appears, as an echo glued to other text: long enough that a message holds one rarely by chance. */
const ANYWHERE = 12;
/**
 * Shorter, only where it stands alone, between characters that are not letters or digits (a
 * path in quotes, a value after `=`): a password `a` or `data` masked inside the package's own
 * words (`c***nnot re***ch the d***t***b***se`, `***base`) made the line unreadable, and which
 * letters were masked told the password. Shorter than BARE_MIN, never outside its connection
 * string (which is masked whole): a word of the package's own, `a`, would still be one. A secret
 * that is itself a word of the message (`password`, `database`) is still masked where that word
 * stands, which tells it to a reader who knows the message: docs/security.md says so.
 */
const BARE_MIN = 3;
const WORD_CHAR = /[\p{L}\p{N}]/u;

function maskBare(text: string, secret: string): string {
  if (secret.length >= ANYWHERE) return text.split(secret).join(MASK);
  if (secret.length < BARE_MIN) return text;
  let out = '';
  let from = 0;
  for (let at = text.indexOf(secret); at !== -1; at = text.indexOf(secret, at + 1)) {
    if (at < from) continue; // inside an occurrence already masked
    const end = at + secret.length;
    if (WORD_CHAR.test(text.charAt(at - 1)) || WORD_CHAR.test(text.charAt(end))) continue;
    out += text.slice(from, at) + MASK;
    from = end;
  }
  return out + text.slice(from);
}
