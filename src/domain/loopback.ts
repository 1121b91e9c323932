// Hosts on this machine: plain http:// is allowed to them, and no proxy stands in between.
const LOOPBACK = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

export function isLoopback(hostname: string): boolean {
  return LOOPBACK.test(hostname);
}
