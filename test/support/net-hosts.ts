/**
 * Separate test hosts on this machine: one network namespace per host, joined to the
 * host's own namespace through a veth pair on a bridge of its own, so processes run in
 * them reach each other (and a Redis bound to the bridge) only over a network interface,
 * never over a shared loopback. Needs root (CAP_NET_ADMIN); `netHostsUnavailable()` says
 * why not where it is missing. Names carry a random tag, so runs beside each other never
 * clash; `remove()` deletes every namespace, veth and the bridge.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';

export interface NetHost {
  readonly namespace: string;
  readonly ip: string;
  /** `ip netns exec <namespace>`: put it before a command to run the command on this host. */
  readonly prefix: string[];
}

export interface NetHosts {
  /** The address of the machine itself on the bridge, where the hosts reach its servers. */
  readonly bridgeIp: string;
  readonly hosts: readonly NetHost[];
  remove(): void;
}

const SUBNET = '10.213.0';

function ip(...args: string[]): void {
  execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

/** Null when network namespaces can be made here, else the reason they cannot. */
export function netHostsUnavailable(): string | null {
  const probe = `sluice-probe-${randomBytes(3).toString('hex')}`;
  try {
    ip('netns', 'add', probe);
    ip('netns', 'del', probe);
    return null;
  } catch (err) {
    const stderr = (err as { stderr?: Buffer }).stderr?.toString().trim();
    return `cannot create a network namespace (${stderr || (err as Error).message})`;
  }
}

export function createNetHosts(count: number): NetHosts {
  const tag = randomBytes(2).toString('hex');
  const bridge = `slbr${tag}`;
  const created: string[] = [];
  const remove = () => {
    process.off('exit', remove);
    for (const namespace of created.splice(0)) {
      try {
        ip('netns', 'del', namespace);
      } catch {}
    }
    try {
      ip('link', 'del', bridge);
    } catch {}
  };
  // Namespaces outlive the process that made them: an exit without `remove()` still removes them.
  process.on('exit', remove);
  try {
    ip('link', 'add', bridge, 'type', 'bridge');
    ip('addr', 'add', `${SUBNET}.1/24`, 'dev', bridge);
    ip('link', 'set', bridge, 'up');
    const hosts = Array.from({ length: count }, (_, i): NetHost => {
      const namespace = `sluice-${tag}-${i}`;
      const outside = `sl${tag}h${i}`;
      const inside = `sl${tag}n${i}`;
      const address = `${SUBNET}.${10 + i}`;
      ip('netns', 'add', namespace);
      created.push(namespace);
      ip('link', 'add', outside, 'type', 'veth', 'peer', 'name', inside, 'netns', namespace);
      ip('link', 'set', outside, 'master', bridge, 'up');
      ip('-n', namespace, 'addr', 'add', `${address}/24`, 'dev', inside);
      ip('-n', namespace, 'link', 'set', inside, 'up');
      ip('-n', namespace, 'link', 'set', 'lo', 'up');
      return { namespace, ip: address, prefix: ['ip', 'netns', 'exec', namespace] };
    });
    return { bridgeIp: `${SUBNET}.1`, hosts, remove };
  } catch (err) {
    remove();
    throw err;
  }
}
