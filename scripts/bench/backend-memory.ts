// The PostgreSQL server backends' own memory while a measurement runs. A backend's VmHWM
// counts every shared-buffer page it touched (shared memory is mapped into each backend), so a
// backfill that writes more rows reads as a bigger backend even when its private memory is flat.
// This sampler reads RssAnon (/proc/<pid>/status: the backend's private anonymous memory —
// palloc'd contexts, sort and hash space, the parsed documents — without shared buffers or
// mapped files) of every client backend connected to the store's database, every few milliseconds,
// and keeps the largest. Linux only; elsewhere it reports nothing.
import { readFileSync } from 'node:fs';
import type pg from 'pg';

const INTERVAL_MS = 20;

export interface BackendMemory {
  /** Largest RssAnon seen in any of the database's backends (KiB), or undefined where /proc is unavailable. */
  peakAnonKb: number | undefined;
  samples: number;
}

function statusKb(pid: number, field: string): number | null {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : null;
  } catch {
    return null; // the backend exited, or not Linux
  }
}

/** Samples until stop(); `client` is a connection of its own (its backend is left out). */
export async function sampleBackendMemory(client: pg.Client): Promise<{ stop(): Promise<BackendMemory> }> {
  const own = (await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
  let pids: number[] = [];
  let peak: number | undefined;
  let samples = 0;
  let stopped = false;
  const read = () => {
    for (const pid of pids) {
      const kb = statusKb(pid, 'RssAnon');
      if (kb !== null) peak = Math.max(peak ?? 0, kb);
    }
    samples++;
  };
  // The pid list is refreshed in the background (a pooled store may open new connections);
  // /proc is read on every tick in between.
  const refresh = async () => {
    while (!stopped) {
      // Client backends only: an autovacuum worker connected to the database (the resets' catalog
      // churn triggers one on pg_class and pg_attribute) is the server's maintenance, under
      // maintenance_work_mem, not the package's statement (a run that counted them read 20.6 MB on
      // dense-1m, while autovacuum processed that database's catalog).
      const rows = await client.query("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> $1 AND backend_type = 'client backend'", [
        own,
      ]);
      pids = rows.rows.map((r: { pid: number }) => r.pid);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };
  const refreshing = refresh();
  const timer = setInterval(read, INTERVAL_MS);
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      read();
      await refreshing;
      return { peakAnonKb: peak, samples };
    },
  };
}
