import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/**
 * `npm run test:quick`, the edit-test loop: the project's tests of its own logic (parsers, judges, the
 * catalog, options, the capacity search on simulated runners, the reference server's handlers in process).
 * No build, no containers, no packing, no conformance runs of mutants, variants or third-party servers, no
 * command lines: `npm test` runs those, and everything here again.
 */
export default defineConfig({
  test: {
    ...base.test,
    include: [
      'test/capacity/{after-search,capacity-options,search,slo,step-judge}.test.ts',
      'test/harness/{budget,endpoint-preflight,server-errors,catalog-coverage,catalog-levels,catalog,cli-options,code-points,day-one-numbers,harness-load,image-fingerprint,interop-stall,report-folder,interop-judge,interop-tools,key-form,key-spellings,layers,long-first-sequencer,pacer,property-budget,property-runner,readme-first-screen,recording-fetch,replay-invocation,results,revision-matrix,revision-wire,schema-arbitrary,schema-resolve,sse-reader,wire}.test.ts',
      'test/load/{load-reply-messages,load-thresholds,paired,probe-analysis,probe-headers,probe-stepper,rounds,svg-chart,wrk-output}.test.ts',
      'test/reference-server/{config,tools,auth,mcp-http,modern-wire,no-server-errors,schedules,streaming,fast-path}.test.ts',
    ],
    exclude: ['**/node_modules/**'],
    globalSetup: [],
  },
});
