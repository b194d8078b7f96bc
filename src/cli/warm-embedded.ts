import { warmServerThread } from '../targets/embedded-thread.js';

/**
 * The conformance command's first import: when its command line names no other target than the embedded
 * one, the embedded server's thread starts loading now, before the harness's own modules load (a few tenths
 * of a second each, on two cores side by side). Only a head start: the run starts the server itself either
 * way, and a command line the options then refuse just exits.
 */
const args = process.argv.slice(2);
const named = (flag: string) => args.some((a) => a === flag || a.startsWith(`${flag}=`));
const target = args.find((a, i) => args[i - 1] === '--target') ?? args.find((a) => a.startsWith('--target='))?.slice('--target='.length);
if (!named('--base-url') && !named('--mcp-url') && (target === undefined || target === 'embedded' || target === 'stdio')) warmServerThread();
