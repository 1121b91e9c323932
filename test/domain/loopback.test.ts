// Which hosts are this machine's: every spelling of a loopback address, whatever path answers it
// (the quick one for the usual spellings, the address list for the rest), and nothing else.
import { BlockList } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isLoopback } from '../../src/domain/loopback.js';

describe('isLoopback', () => {
  it('answers every IPv4 address as the 127.0.0.0/8 block does, however it is written (property)', () => {
    const block = new BlockList();
    block.addSubnet('127.0.0.0', 8, 'ipv4');
    fc.assert(
      fc.property(fc.oneof(fc.ipV4(), fc.tuple(fc.constant(127), fc.nat(255), fc.nat(255), fc.nat(255)).map((p) => p.join('.'))), (address) => {
        expect(isLoopback(address)).toBe(block.check(address, 'ipv4'));
        expect(isLoopback(`[::ffff:${address}]`)).toBe(block.check(address, 'ipv4'));
      }),
    );
  });

  it('knows the other spellings, and nothing that only looks like one', () => {
    for (const host of ['localhost', 'LOCALHOST.', '[::1]', '::1', '0:0:0:0:0:0:0:1', '127.0.0.1', '127.255.255.255']) expect(isLoopback(host), host).toBe(true);
    for (const host of ['127.0.0.256', '127.0.0', '0127.0.0.1', '127.0.0.1.example.com', 'localhost.example', '::2', 'fe80::1%lo', '128.0.0.1', '']) expect(isLoopback(host), host).toBe(false);
  });
});
