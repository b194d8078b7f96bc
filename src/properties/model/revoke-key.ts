import { revokeKey } from '../workspaces.js';
import { ModelCommand } from './command.js';
import { secretOf, type Model, type Real, type WsName } from './state.js';

/** Revokes one live key of a workspace, never its last. */
export class RevokeKey extends ModelCommand {
  constructor(readonly ws: WsName, readonly keyPick: number) {
    super();
  }
  protected describe(): string {
    return `revoke live key pick ${this.keyPick} of ${this.ws}`;
  }
  /** A workspace keeps one live key, so it stays observable (revoking a workspace's only key is auth-revoked-key-401's scenario). */
  check(m: Readonly<Model>): boolean {
    return m.ws[this.ws].keys.filter((k) => k.live).length >= 2;
  }
  async run(m: Model, r: Real): Promise<void> {
    const live = m.ws[this.ws].keys.filter((k) => k.live);
    const k = live[this.keyPick % live.length]!;
    this.begin(m, `revoke key ${k.label}`);
    await revokeKey(r.c, secretOf(r, k));
    k.live = false;
  }
}
