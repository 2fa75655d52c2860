// Where the proxy keeps its default store: the user's data directory, as each platform names
// it — $XDG_DATA_HOME (else ~/.local/share) on Linux and the other Unixes, ~/Library/Application
// Support on macOS, %LOCALAPPDATA% (else ~/AppData/Local) on Windows.
import { homedir } from 'node:os';
import { join } from 'node:path';

export const DEFAULT_STORE_FILE = 'sessions.db';

export function defaultDataDir(platform: NodeJS.Platform = process.platform, env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'subagent-context');
  if (platform === 'win32') return join(env.LOCALAPPDATA || join(home, 'AppData', 'Local'), 'subagent-context');
  // XDG: a relative XDG_DATA_HOME is invalid and must be ignored.
  const xdg = env.XDG_DATA_HOME;
  return join(xdg && xdg.startsWith('/') ? xdg : join(home, '.local', 'share'), 'subagent-context');
}

export function defaultStoreFile(): string {
  return join(defaultDataDir(), DEFAULT_STORE_FILE);
}
