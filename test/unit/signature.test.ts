import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  checkTimestamp,
  type SignedParts,
  sign,
  signatureDiagnostics,
  signatureMatches,
  signatureVersionOf,
  signingString,
  signParts,
} from '../../shared/platform/signature';

// The worked example of docs/guides/authentication.md, checked independently with `openssl dgst -sha256 -hmac`.
const example = {
  secret: 'S3cr3tS3cr3tS3cr3tS3cr3tS3cr3tAB',
  timestamp: '1795251000',
  method: 'PATCH',
  path: '/v1/team/members/7c0e9c1e-2f57-4d0b-9a43-1f5b8f1f6a11/role',
  body: '{"role":"FINANCE"}',
  signature: '37f4004be0b5ed6b3bbc5a8dc8a3ef35fefff91d558fb6fbc896bdd450aa088b',
};

describe('request signatures', () => {
  it('matches the documented worked example', () => {
    expect(signingString(example.timestamp, example.method, example.path, example.body)).toBe(`${example.timestamp}\nPATCH\n${example.path}\n${example.body}`);
    expect(sign(example.secret, example.timestamp, example.method, example.path, example.body)).toBe(example.signature);
  });

  it('changes with any byte of the body, the path or the method', () => {
    const base = sign(example.secret, example.timestamp, 'PATCH', example.path, example.body);
    expect(sign(example.secret, example.timestamp, 'PATCH', example.path, '{"role": "FINANCE"}')).not.toBe(base);
    expect(sign(example.secret, example.timestamp, 'PATCH', `${example.path}?x=1`, example.body)).not.toBe(base);
    expect(sign(example.secret, example.timestamp, 'POST', example.path, example.body)).not.toBe(base);
  });

  it('compares only 64 lowercase hex characters', () => {
    expect(signatureMatches(example.signature, example.signature)).toBe(true);
    expect(signatureMatches(example.signature, example.signature.toUpperCase())).toBe(false);
    expect(signatureMatches(example.signature, example.signature.slice(1))).toBe(false);
    expect(signatureMatches(example.signature, undefined)).toBe(false);
  });

  it('accepts timestamps within plus or minus 300 s, inclusive', () => {
    expect(checkTimestamp('1000', 1300).ok).toBe(true);
    expect(checkTimestamp('1000', 700).ok).toBe(true);
    expect(checkTimestamp('1000', 1301).ok).toBe(false);
    expect(checkTimestamp('1000', 699).ok).toBe(false);
    expect(checkTimestamp('1e3', 1000).ok).toBe(false);
    expect(checkTimestamp(undefined, 1000).ok).toBe(false);
  });
});

describe('signature version 2 and diagnostics', () => {
  const parts = (over: Partial<SignedParts> = {}): SignedParts => ({
    version: '2',
    timestamp: example.timestamp,
    method: 'PATCH',
    pathWithQuery: example.path,
    idempotencyKey: '5f0c3a52-1c1e-4d8e-9a8e-8d3c2b1a0f00',
    ...over,
  });

  it('signs "v2" LF timestamp LF METHOD LF path LF Idempotency-Key LF body, apart from version 1', () => {
    const expected = createHmac('sha256', example.secret)
      .update(`v2\n${example.timestamp}\nPATCH\n${example.path}\n5f0c3a52-1c1e-4d8e-9a8e-8d3c2b1a0f00\n${example.body}`)
      .digest('hex');
    expect(signParts(example.secret, parts(), example.body)).toBe(expected);
    expect(signParts(example.secret, parts({ idempotencyKey: 'another' }), example.body)).not.toBe(expected);
    expect(signParts(example.secret, { ...parts(), version: '1' }, example.body)).toBe(example.signature);
  });

  it('reads X-Signature-Version: absent is 1, unknown values are undefined', () => {
    expect(signatureVersionOf(undefined)).toBe('1');
    expect(signatureVersionOf('2')).toBe('2');
    expect(signatureVersionOf('3')).toBeUndefined();
    expect(signatureVersionOf('v2')).toBeUndefined();
  });

  it('diagnoses with the body as its length and SHA-256, never the signature nor the secret', () => {
    const d = signatureDiagnostics(parts(), example.body);
    const sha = createHash('sha256').update(example.body).digest('hex');
    expect(d).toEqual({
      signature_version: 2,
      timestamp: example.timestamp,
      method: 'PATCH',
      path: example.path,
      idempotency_key: '5f0c3a52-1c1e-4d8e-9a8e-8d3c2b1a0f00',
      body_length: 18,
      body_sha256: sha,
      string_to_sign: `v2\n${example.timestamp}\nPATCH\n${example.path}\n5f0c3a52-1c1e-4d8e-9a8e-8d3c2b1a0f00\n${sha}`,
    });
    const text = JSON.stringify(signatureDiagnostics({ ...parts(), version: '1' }, example.body));
    expect(text).not.toContain(example.secret);
    expect(text).not.toContain(example.signature);
    expect(text).not.toContain('idempotency_key');
  });
});
