// Hosts on this machine: plain http:// is allowed to them, no proxy stands in between, and a
// server bound to one checks that requests were meant for it. One rule for every spelling a host
// comes in: a URL's hostname (`[::1]`), a socket's address (`::1`), a Host header's name, a
// fully qualified `localhost.`, an IPv6 address written out (`0:0:0:0:0:0:0:1`) or an IPv4 one
// mapped into IPv6 (`::ffff:127.0.0.1`).
import { BlockList, isIPv4, isIPv6 } from 'node:net';

let loopbackAddresses: BlockList | undefined;

function addresses(): BlockList {
  if (loopbackAddresses) return loopbackAddresses;
  const list = new BlockList();
  list.addSubnet('127.0.0.0', 8, 'ipv4');
  list.addAddress('::1', 'ipv6');
  list.addSubnet('::ffff:127.0.0.0', 104, 'ipv6');
  loopbackAddresses = list;
  return list;
}

export function isLoopback(host: string): boolean {
  const name = host.trim().replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '').toLowerCase();
  if (name === 'localhost') return true;
  // The spellings nearly every run meets, answered without building the address list (a millisecond of each start).
  if (/^127\.(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){2}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/.test(name) || name === '::1') return true;
  if (isIPv4(name)) return addresses().check(name, 'ipv4');
  // A zone index (fe80::1%eth0) names an interface, never loopback's address.
  if (isIPv6(name)) return addresses().check(name, 'ipv6');
  return false;
}
