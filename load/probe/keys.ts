/**
 * Where the probe's keys come from. The embedded target mints them: a fresh idle key of a new workspace on
 * the plan under test for every measurement, a sibling key through the admin channel. A container target
 * bootstraps new workspaces (its bootstrap plan is the plan under test). A URL target has the keys it is
 * given: --api-key (or the bootstrap), --sibling-key, --other-key; without fresh keys a measurement reuses
 * the main key, which starts each measurement by emptying its bucket anyway.
 *
 * Keys are passwords: the ring remembers every key it handed out only to blank them out of any text the
 * probe writes (a second line of defence: no finding ever holds a key).
 */
import type { LoadTarget } from '../target.js';
import { newWorkspaceKey, siblingKey } from '../target.js';
import { bootstrapKey } from '../../src/targets/bootstrap-keys.js';

export interface KeyRingOptions {
  plan: string;
  siblingKey?: string;
  otherKey?: string;
}

export class KeyRing {
  private readonly handedOut = new Set<string>();
  private counter = 0;
  /** How keys are obtained, in words (for the report). */
  readonly source: string;

  constructor(private readonly target: LoadTarget, private readonly options: KeyRingOptions) {
    this.remember(target.apiKey);
    if (options.siblingKey) this.remember(options.siblingKey);
    if (options.otherKey) this.remember(options.otherKey);
    this.source = target.kind === 'embedded'
      ? `fresh keys of new workspaces on plan "${options.plan}" (admin channel), sibling keys minted per workspace`
      : target.kind === 'container'
        ? 'fresh keys of new workspaces from the bootstrap endpoint (no sibling keys)'
        : 'the given key (--api-key or the bootstrap) for every measurement; --sibling-key and --other-key for isolation';
  }

  private remember(key: string): string {
    this.handedOut.add(key);
    return key;
  }

  /** Can each measurement start from an idle key of its own? */
  get mintsFresh(): boolean {
    return this.target.kind !== 'url';
  }

  /** An idle key for one measurement (the main key on a URL target). */
  async fresh(label: string): Promise<string> {
    this.counter++;
    if (this.target.kind === 'embedded') return this.remember(await newWorkspaceKey(this.target, this.options.plan, `probe ${label} ${this.counter}`));
    if (this.target.kind === 'container') return this.remember((await bootstrapKey(this.target.baseUrl, `probe ${label} ${this.counter}`, 10_000)).apiKey);
    return this.target.apiKey;
  }

  /** A second key of `key`'s workspace, or undefined (with why) when the target cannot give one. */
  async sibling(key: string): Promise<{ key?: string; missing: string }> {
    if (this.target.kind === 'embedded') return { key: this.remember(await siblingKey(this.target, key)), missing: '' };
    if (this.target.kind === 'container') return { missing: 'not testable on the container target: no admin channel to mint a sibling key of a fresh workspace' };
    if (this.options.siblingKey) return { key: this.options.siblingKey, missing: '' };
    return { missing: 'not testable: no sibling key (give --sibling-key or MCP_SIBLING_KEY: another key of the same workspace as --api-key)' };
  }

  /** A key of another workspace. */
  async other(): Promise<{ key?: string; missing: string }> {
    if (this.target.kind !== 'url') return { key: await this.fresh('other workspace'), missing: '' };
    if (this.options.otherKey) return { key: this.options.otherKey, missing: '' };
    return { missing: 'not testable: no key of another workspace (give --other-key or MCP_OTHER_KEY)' };
  }

  /** Every key this ring handed out (the report door's secrets). */
  get keys(): string[] {
    return [...this.handedOut];
  }

  /** `text` with every key this ring handed out blanked. */
  redact(text: string): string {
    let out = text;
    for (const key of this.handedOut) if (key) out = out.split(key).join('[REDACTED KEY]');
    return out;
  }
}
