// Prints one plain closing line, `tests: N passed, N failed, N skipped`, that any CI log
// reader can parse, after vitest's own summary. A filtered run (`npm run test:pg15` selects
// the PostgreSQL suites) sets SUBAGENT_CONTEXT_TEST_LABEL and reports the tests its filter
// left out as such, on a line of their own, rather than as skipped.
import type { Reporter, TestModule } from 'vitest/node';

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
      if (module.state() === 'failed' && module.children.size === 0) failed++; // a file that failed to load
    }
    const label = process.env.SUBAGENT_CONTEXT_TEST_LABEL;
    if (label) {
      process.stdout.write(`\n(${skipped} tests outside the ${label} filter were not run)\n${label}: ${passed} passed, ${failed} failed\n`);
    } else {
      process.stdout.write(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
    }
  }
}
