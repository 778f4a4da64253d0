import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  canonicalPem,
  fingerprintOf,
  generateKeyPair,
  parsePrivateKey,
  parsePublicKey,
  publicPemOf,
  signBytes,
  verifyBytes,
  verifyBytesAsync,
} from '../../src/integrity/index.js';

interface RfcVector {
  name: string;
  secret: string;
  public: string;
  message: string;
  signature: string;
}

const RFC8032: RfcVector[] = JSON.parse(
  readFileSync(new URL('../vectors/integrity/rfc8032-ed25519.json', import.meta.url), 'utf8'),
) as RfcVector[];

const PKCS8_PREFIX = '302e020100300506032b657004220420';
const SPKI_PREFIX = '302a300506032b6570032100';

describe('Ed25519 through the integrity layer (RFC 8032 §7.1)', () => {
  for (const v of RFC8032) {
    it(`signBytes() reproduces ${v.name} and verifyBytes() accepts it`, () => {
      const privatePem = createPrivateKey({
        key: Buffer.from(PKCS8_PREFIX + v.secret, 'hex'),
        format: 'der',
        type: 'pkcs8',
      })
        .export({ format: 'pem', type: 'pkcs8' })
        .toString();
      const publicPem = createPublicKey({
        key: Buffer.from(SPKI_PREFIX + v.public, 'hex'),
        format: 'der',
        type: 'spki',
      })
        .export({ format: 'pem', type: 'spki' })
        .toString();
      const privateKey = parsePrivateKey(privatePem);
      expect(publicPemOf(privateKey)).toBe(canonicalPem(publicPem));
      const message = Buffer.from(v.message, 'hex');
      const signature = signBytes(privateKey, message);
      expect(signature.toString('hex')).toBe(v.signature);
      const { key } = parsePublicKey(publicPem);
      expect(verifyBytes(key, message, signature)).toBe(true);
    });

    it(`verifyBytes() rejects ${v.name} after any single bit flip in the signature`, () => {
      const { key } = parsePublicKey(
        createPublicKey({
          key: Buffer.from(SPKI_PREFIX + v.public, 'hex'),
          format: 'der',
          type: 'spki',
        })
          .export({ format: 'pem', type: 'spki' })
          .toString(),
      );
      const message = Buffer.from(v.message, 'hex');
      const good = Buffer.from(v.signature, 'hex');
      for (let bit = 0; bit < good.length * 8; bit += 37) {
        const bad = Buffer.from(good);
        bad[bit >> 3] = (bad[bit >> 3] ?? 0) ^ (1 << (bit & 7));
        expect(verifyBytes(key, message, bad)).toBe(false);
      }
      expect(verifyBytes(key, Buffer.concat([message, Buffer.from([0])]), good)).toBe(false);
      expect(verifyBytes(key, message, good.subarray(0, 63))).toBe(false);
    });
  }
});

describe('fingerprintOf()', () => {
  it('is the first 16 hex of SHA-256 over the PEM text with its final newline', () => {
    const { publicKeyPem } = generateKeyPair();
    const expected = createHash('sha256').update(publicKeyPem).digest('hex').slice(0, 16);
    expect(publicKeyPem.endsWith('\n')).toBe(true);
    expect(fingerprintOf(publicKeyPem)).toBe(expected);
  });

  it('gives the same fingerprint for a PEM pasted with CRLF or without its final newline', () => {
    const { publicKeyPem } = generateKeyPair();
    const fp = fingerprintOf(publicKeyPem);
    expect(fingerprintOf(publicKeyPem.replace(/\n/g, '\r\n'))).toBe(fp);
    expect(fingerprintOf(publicKeyPem.trimEnd())).toBe(fp);
  });

  it('matches the fingerprint of the Python implementation key in the vectors', () => {
    const pem =
      '-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAY24FNlBttfGlH91xaEe4Ms0Meu5kvHL8L8W6w9lVyLU=\n-----END PUBLIC KEY-----\n';
    expect(fingerprintOf(pem)).toBe('9fbfabe975fa5a7f');
  });
});

describe('key parsing', () => {
  it('parsePublicKey() refuses a non-Ed25519 key with KEY_INVALID naming its type', () => {
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const pem = publicKey.export({ format: 'pem', type: 'spki' }).toString();
    expect(() => parsePublicKey(pem)).toThrow(
      expect.objectContaining({ code: 'KEY_INVALID', details: { keyType: 'ec' } }),
    );
  });

  it('parsePublicKey() reads a PEM as OpenSSL does, whether or not it takes the one-line Ed25519 shortcut', () => {
    // What parsePublicKey gave before the shortcut: OpenSSL's decoder, then its
    // encoder; an input it could not read was KEY_INVALID.
    const reference = (pem: string) => {
      try {
        const key = createPublicKey({ key: pem, format: 'pem' });
        const canonical = canonicalPem(key.export({ format: 'pem', type: 'spki' }).toString());
        return { der: key.export({ format: 'der', type: 'spki' }).toString('hex'), canonical };
      } catch {
        return 'KEY_INVALID';
      }
    };
    const outcome = (pem: string) => {
      try {
        const got = parsePublicKey(pem);
        expect(got.fingerprint).toBe(fingerprintOf(got.publicKeyPem));
        expect(got.key.asymmetricKeyType).toBe('ed25519');
        const der = got.key.export({ format: 'der', type: 'spki' }).toString('hex');
        return { der, canonical: got.publicKeyPem };
      } catch (error) {
        return (error as { code?: string }).code;
      }
    };
    const variants = (pem: string): string[] => {
      const [begin, body, end] = pem.trim().split('\n') as [string, string, string];
      // The base64's last digit before '=' carries 2 unused bits: set them, same bytes.
      const last = body.at(-2) ?? 'A';
      const sloppy = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
      const loose = sloppy[(sloppy.indexOf(last) & ~3) | 1] ?? last;
      return [
        pem,
        pem.replaceAll('\n', '\r\n'),
        pem.trimEnd(),
        ` ${pem}`,
        `${pem}\n`,
        [begin, `${body.slice(0, -2)}${loose}=`, end, ''].join('\n'),
        [begin, body.slice(0, 40), body.slice(40), end, ''].join('\n'),
      ];
    };
    for (let i = 0; i < 40; i += 1) {
      const { publicKey } = generateKeyPairSync('ed25519');
      for (const pem of variants(publicKey.export({ format: 'pem', type: 'spki' }).toString()))
        expect(outcome(pem), JSON.stringify(pem)).toEqual(reference(pem));
    }
    // 32 bytes that are no point on the curve: both ways take them alike (verification fails later).
    const noPoint = Buffer.concat([
      Buffer.from('302a300506032b6570032100', 'hex'),
      Buffer.alloc(32, 0xff),
    ]);
    const noPointPem = `-----BEGIN PUBLIC KEY-----\n${noPoint.toString('base64')}\n-----END PUBLIC KEY-----\n`;
    expect(outcome(noPointPem)).toEqual(reference(noPointPem));
    // An X25519 key has the same one-line shape and another algorithm: refused as before.
    const x = generateKeyPairSync('x25519').publicKey.export({ format: 'pem', type: 'spki' });
    expect(() => parsePublicKey(x.toString())).toThrow(
      expect.objectContaining({ code: 'KEY_INVALID', details: { keyType: 'x25519' } }),
    );
  });

  it('parsePrivateKey() refuses garbage with KEY_INVALID', () => {
    expect(() => parsePrivateKey('not a key')).toThrow(
      expect.objectContaining({ code: 'KEY_INVALID' }),
    );
  });

  it('parsePrivateKey() refuses a private key of another type, naming it', () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    expect(() => parsePrivateKey(pem)).toThrow(
      expect.objectContaining({
        code: 'KEY_INVALID',
        message: 'Cannot use private key: expected Ed25519, got ec',
        details: { keyType: 'ec' },
      }),
    );
  });

  it('parsePublicKey() keeps a bounded cache: a key parsed 4,096 keys ago is parsed afresh', () => {
    const pem = (): string =>
      generateKeyPairSync('ed25519').publicKey.export({ format: 'pem', type: 'spki' }).toString();
    const firstPem = pem();
    const first = parsePublicKey(firstPem);
    expect(parsePublicKey(firstPem)).toBe(first);
    let last = first;
    for (let i = 0; i < 4096; i += 1) last = parsePublicKey(pem());
    expect(parsePublicKey(last.publicKeyPem)).toBe(last);
    const again = parsePublicKey(firstPem);
    expect(again).not.toBe(first);
    expect(again.fingerprint).toBe(first.fingerprint);
  });
});

describe('verifyBytesAsync()', () => {
  it('resolves true for a good signature and false for a wrong length, a wrong message or a bad key', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const message = Buffer.from('hello');
    const signature = signBytes(privateKey, message);
    expect(await verifyBytesAsync(publicKey, message, signature)).toBe(true);
    expect(await verifyBytesAsync(publicKey, Buffer.from('other'), signature)).toBe(false);
    expect(await verifyBytesAsync(publicKey, message, signature.subarray(1))).toBe(false);
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey;
    expect(await verifyBytesAsync(rsa, message, signature)).toBe(false);
    expect(verifyBytes(rsa, message, signature)).toBe(false);
  });
});
