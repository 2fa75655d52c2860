// vitest globalSetup, after postgres-server.ts: builds the tests' starting states once per run
// (test/helpers/template-databases.ts) — a template database per state on the run's
// PostgreSQL, a template file per state in a temp folder — and hands their names to the
// workers, which copy one per openTestDb() call. Named after this process, so runs sharing an
// external server (SUBAGENT_CONTEXT_TEST_PG_URL) never share a template; dropped at the end.
import type { TestProject } from 'vitest/node';
import { buildTemplates, dropTemplates, removeTemplateFolder, templateFolder, type Templates } from '../helpers/template-databases.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The starting states' templates: a database name per state, a file path per state. */
    templates: Templates;
  }
}

export default async function setup(project: TestProject) {
  const { pgUrl } = project.getProvidedContext();
  const dir = templateFolder();
  const templates = await buildTemplates(pgUrl, `tpl_${process.pid}`, dir).catch((err: unknown) => {
    removeTemplateFolder(dir);
    throw err;
  });
  project.provide('templates', templates);
  return async () => {
    await dropTemplates(pgUrl, templates);
    removeTemplateFolder(dir);
  };
}
