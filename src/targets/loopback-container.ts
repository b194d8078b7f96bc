import type { GenericContainer } from 'testcontainers';
import { loadTestcontainers } from './testcontainers.js';

/**
 * A testcontainers container of `image` whose published ports bind 127.0.0.1 only, never every interface
 * of the machine. testcontainers is imported on demand: it reads DOCKER_HOST when it loads (loadTestcontainers).
 */
export async function loopbackContainer(image: string, ports: Parameters<GenericContainer['withExposedPorts']>): Promise<GenericContainer> {
  const { GenericContainer } = await loadTestcontainers();
  class LoopbackContainer extends GenericContainer {
    loopbackOnly(): this {
      for (const bindings of Object.values(this.hostConfig.PortBindings ?? {}) as { HostIp?: string }[][]) {
        for (const binding of bindings) binding.HostIp = '127.0.0.1';
      }
      return this;
    }
  }
  return new LoopbackContainer(image).withExposedPorts(...ports).loopbackOnly();
}
