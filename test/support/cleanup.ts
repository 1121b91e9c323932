// What an adversarial test starts (hostile gateways) and makes (temporary folders), closed and
// removed after each test.
import { afterEach } from 'vitest';
import type { HostileGateway } from '../adversarial/hostile-gateway.js';
import { tempDir } from '../helpers.js';

export function afterEachTest(): { gateways: HostileGateway[]; dir: () => string } {
  const gateways: HostileGateway[] = [];
  const dirs: { path: string; remove: () => void }[] = [];
  afterEach(async () => {
    await Promise.all(gateways.splice(0).map((g) => g.close()));
    dirs.splice(0).forEach((d) => d.remove());
  });
  const dir = () => {
    const d = tempDir();
    dirs.push(d);
    return d.path;
  };
  return { gateways, dir };
}
