// The logger tests hand to a store to read back what it warned (AC-20, AC-27).

export interface LoggedLine {
  fields: Record<string, unknown>;
  msg: string;
}

/** A logger that records every WARN line, in order. */
export function recordingLogger(): { warn(fields: object, msg: string): void; lines: LoggedLine[] } {
  const lines: LoggedLine[] = [];
  return { lines, warn: (fields, msg) => void lines.push({ fields: fields as Record<string, unknown>, msg }) };
}
