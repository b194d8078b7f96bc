import type { CheckDefinition, Suite } from '../src/engine/check.js';
import auth from './auth.suite.js';
import bootstrap from './bootstrap.suite.js';
import calls from './calls.suite.js';
import discovery from './discovery.suite.js';
import dnsRebinding from './dns-rebinding.suite.js';
import interopMatrix from './interop-matrix.suite.js';
import interop from './interop.suite.js';
import jsonrpc from './jsonrpc.suite.js';
import origin from './origin.suite.js';
import authProperties from './properties/auth.suite.js';
import bootstrapProperties from './properties/bootstrap.suite.js';
import jsonrpcProperties from './properties/jsonrpc.suite.js';
import model from './properties/model.suite.js';
import scheduleProperties from './properties/schedule.suite.js';
import toolArgumentProperties from './properties/tool-arguments.suite.js';
import rateLimit from './rate-limit.suite.js';
import session from './session.suite.js';
import stateless from './stateless.suite.js';
import stdio from './stdio.suite.js';
import streamingGeneric from './streaming-generic.suite.js';
import streaming from './streaming.suite.js';
import tools from './tools.suite.js';
import versioning from './versioning.suite.js';
import wire from './wire.suite.js';
import workspaceScoping from './workspace-scoping.suite.js';

/**
 * Every suite, in the order a run starts them: by name, the interop matrix last (its interop rows read what
 * the whole matrix found). A suite file not listed here declares nothing a run sees (test/harness/suite-index.test.ts).
 */
export const SUITES: readonly Suite[] = [
  auth, bootstrap, calls, discovery, dnsRebinding, interop, jsonrpc, origin,
  authProperties, bootstrapProperties, jsonrpcProperties, model, scheduleProperties, toolArgumentProperties,
  rateLimit, session, stateless, stdio, streamingGeneric, streaming, tools, versioning, wire, workspaceScoping,
  interopMatrix,
];

/** Every check of every suite, in run order: what a run plans from. */
export const CHECKS: readonly CheckDefinition[] = SUITES.flatMap((s) => s.checks);
