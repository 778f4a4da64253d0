import { describe, expect, it } from 'vitest';
import { InFlight } from '../../../src/registry/server/in-flight.js';

describe('InFlight', () => {
  it('idle() waits for every tracked handler, failed ones included', async () => {
    const inFlight = new InFlight();
    let release = (): void => undefined;
    const slow = inFlight.track(() => new Promise<string>((r) => (release = () => r('done'))));
    const failing = inFlight.track(() => Promise.reject(new Error('boom')));
    await expect(failing).rejects.toThrow('boom');
    let idle = false;
    const waiting = inFlight.idle(10_000).then(() => (idle = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(idle).toBe(false);
    release();
    expect(await slow).toBe('done');
    await waiting;
    expect(idle).toBe(true);
  });

  it('idle() resolves at once when nothing runs, and after the timeout otherwise', async () => {
    const inFlight = new InFlight();
    await inFlight.idle(0);
    void inFlight.track(() => new Promise(() => undefined));
    await expect(inFlight.idle(30)).resolves.toBeUndefined();
  });
});
