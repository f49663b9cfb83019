import { describe, expect, it } from 'vitest';
import { checkTimestamp, sign, signatureMatches, signingString } from '../../shared/platform/signature';

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
