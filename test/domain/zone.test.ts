import { describe, expect, it } from 'vitest';
import { UTC, fixedZone, formatOffset, fromWallClock, isoInZone, namedZone, wallClock, zoneFromEnv, zoneNameOfLink } from '../../src/domain/zone.js';

const at = (y: number, mo: number, d: number, h = 0, mi = 0) => Date.UTC(y, mo - 1, d, h, mi) / 1000;

describe('zones', () => {
  it('write offsets and ISO times with the offset in force', () => {
    expect(formatOffset(8 * 3600)).toBe('+08:00');
    expect(formatOffset(-(5 * 3600 + 1800))).toBe('-05:30');
    expect(isoInZone(at(2026, 11, 15, 16), fixedZone(8 * 3600))).toBe('2026-11-16T00:00:00+08:00');
    expect(isoInZone(at(2026, 11, 15), UTC)).toBe('2026-11-15T00:00:00+00:00');
    expect(fixedZone(-5 * 3600).label).toBe('UTC-05:00');
  });

  it('follow daylight saving in a named zone (America/New_York, 2026-11-01)', () => {
    const ny = namedZone('America/New_York');
    expect(ny.offsetAt(at(2026, 11, 1, 5))).toBe(-4 * 3600);
    expect(ny.offsetAt(at(2026, 11, 1, 6))).toBe(-5 * 3600);
    expect(isoInZone(at(2026, 11, 1, 5, 30), ny)).toBe('2026-11-01T01:30:00-04:00');
    expect(isoInZone(at(2026, 11, 1, 6, 30), ny)).toBe('2026-11-01T01:30:00-05:00');
    expect(wallClock(at(2026, 11, 1, 8), ny)).toMatchObject({ year: 2026, month: 11, day: 1, hour: 3, weekday: 0 });
  });

  it('turn a wall-clock time into the moment it shows, across changes', () => {
    const ny = namedZone('America/New_York');
    expect(fromWallClock(at(2026, 7, 1, 12), ny)).toBe(at(2026, 7, 1, 16));
    expect(fromWallClock(at(2026, 1, 1, 12), ny)).toBe(at(2026, 1, 1, 17));
    expect(fromWallClock(at(2026, 11, 1, 1, 30), ny)).toBe(at(2026, 11, 1, 5, 30));
    expect(fromWallClock(at(2026, 3, 8, 2, 30), ny)).toBe(at(2026, 3, 8, 7, 30));
    expect(fromWallClock(at(2026, 11, 1), fixedZone(8 * 3600))).toBe(at(2026, 10, 31, 16));
  });

  it('come from the environment handed in: its TZ, or UTC for a name that is no zone', () => {
    expect(zoneFromEnv({ TZ: 'Pacific/Kiritimati' }).offsetAt(at(2026, 11, 1))).toBe(14 * 3600);
    expect(zoneFromEnv({ TZ: 'Asia/Kolkata' }).label).toBe('Asia/Kolkata');
    expect(zoneFromEnv({ TZ: 'Nowhere/Atlantis' }).offsetAt(at(2026, 11, 1))).toBe(0);
  });

  it("names the machine's zone from where /etc/localtime links, without loading ICU's zone data", () => {
    expect(zoneNameOfLink('/usr/share/zoneinfo/Europe/Berlin')).toBe('Europe/Berlin');
    expect(zoneNameOfLink('/var/db/timezone/zoneinfo/America/Argentina/Buenos_Aires')).toBe('America/Argentina/Buenos_Aires');
    expect(zoneNameOfLink('../usr/share/zoneinfo/Etc/GMT+5')).toBe('Etc/GMT+5');
    expect(zoneNameOfLink('/usr/share/zoneinfo/Etc/UTC')).toBe('UTC');
    expect(zoneNameOfLink('/usr/share/zoneinfo/Zulu')).toBe('UTC');
    // Anything else is no name: Intl is asked instead.
    expect(zoneNameOfLink('/etc/zones/local')).toBeUndefined();
    expect(zoneNameOfLink('/usr/share/zoneinfo/')).toBeUndefined();
    expect(zoneNameOfLink('/usr/share/zoneinfo/Europe/Ber\u001b[31mlin')).toBeUndefined();
  });
});
