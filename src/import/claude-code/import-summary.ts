// What one `import claude-code` run did, as the CLI prints it and `--json` returns it: each count
// says what happened to the transcripts the run saw, so a scheduled run that leaves something
// behind is noticed (src/cli/import-command.ts).
export interface ImportSummary {
  sessions: number;
  /** Transcripts this run wrote new lines of (committed). */
  transcripts: number;
  /** Bytes, lines and malformed lines committed this run: lines read but left for the next run are not counted. */
  bytes: number;
  lines: number;
  malformedLines: number;
  /** Subagent rows written (a launch and each later piece of news about it count once each). */
  frames: number;
  failedFrames: number;
  /**
   * Transcripts left for the next run: a subagent whose launch is not known yet, a transcript that
   * could not be read, or an entry of the tree left out (a symbolic link, a file or folder that
   * cannot be listed or stat'ed).
   */
  deferred: number;
  /**
   * Transcripts of Claude Code's own helper agents (compaction, prompt suggestions, side
   * questions) seen this run: never read (src/import/claude-code/discover.ts says why).
   */
  helperTranscripts: number;
  /**
   * Transcripts in folders below a session's subagents folder (Claude Code's Workflow runs,
   * `subagents/workflows/wf_<run>/`): never read, one WARN a run (src/import/claude-code/discover.ts
   * says why). Their usage is not in the ledger.
   */
  unreadTranscripts: number;
  /**
   * Subagent transcripts whose session's own transcript is gone and whose launch no import
   * wrote: not read (their rows and usage have no launch to hang on), read once it comes back.
   */
  orphanTranscripts: number;
  /** Transcripts whose lines the store refused, or whose lookups it failed (a database error): retried by the next run. */
  writeFailed: number;
  /**
   * Transcripts another import into the same store committed first while this one read them (two
   * runs at once): this run's lines from them were left to it, uncounted here; the next import
   * reads on from where the other stopped.
   */
  overtaken: number;
}

export function emptySummary(): ImportSummary {
  return {
    sessions: 0,
    transcripts: 0,
    bytes: 0,
    lines: 0,
    malformedLines: 0,
    frames: 0,
    failedFrames: 0,
    deferred: 0,
    helperTranscripts: 0,
    unreadTranscripts: 0,
    orphanTranscripts: 0,
    writeFailed: 0,
    overtaken: 0,
  };
}
