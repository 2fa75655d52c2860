// The processes of this machine whose environment holds a marker: a proxy's writer is told its
// store and log file in its environment, so a test finds the writer it started, alive or gone.
import { readdirSync, readFileSync } from 'node:fs';

function processesNaming(marker: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/environ`, 'utf8').includes(marker);
      } catch {
        return false; // gone meanwhile, or not ours to read
      }
    })
    .map(Number);
}

/** Waits up to `ms` for no process to name `marker`; returns those still naming it. */
export async function goneWithin(marker: string, ms: number): Promise<number[]> {
  const deadline = Date.now() + ms;
  while (processesNaming(marker).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  return processesNaming(marker);
}
