import { compactVerify, importJWK } from 'jose';
import { describe, expect, it } from 'vitest';
import { readArgs, UsageError, validate, webhookPlan } from '../../scripts/smoke/options';
import { derivedPaymentKey } from '../../scripts/smoke/payment-key';
import { redact } from '../../scripts/smoke/report';
import { signPaymentConfirmation } from '../../sdk/src/index';

const SANDBOX = `sk_test_abcdefghijkl_${'s'.repeat(32)}`;
const LIVE = `sk_live_abcdefghijkl_${'l'.repeat(32)}`;
const options = (argv: string[], env: NodeJS.ProcessEnv = {}) => {
  const { help: _, ...args } = readArgs(argv, env);
  return validate(args);
};

describe('npm run smoke: options', () => {
  it('takes the keys from the environment, the base URL with or without /v1, and knows a local stack', () => {
    const o = options(['--base-url', 'https://abc.execute-api.eu-west-1.amazonaws.com/'], { PTBS_SANDBOX_KEY: SANDBOX, PTBS_LIVE_KEY: LIVE });
    expect(o).toMatchObject({ baseUrl: 'https://abc.execute-api.eu-west-1.amazonaws.com/v1', sandboxKey: SANDBOX, liveKey: LIVE, local: false });
    expect(options(['--sandbox-key', SANDBOX], { PTBS_BASE_URL: 'http://127.0.0.1:3000/v1' })).toMatchObject({
      baseUrl: 'http://127.0.0.1:3000/v1',
      local: true,
    });
    expect(options(['--base-url', 'http://localhost:4000'], { PTBS_SANDBOX_KEY: SANDBOX }).local).toBe(true);
  });

  it('refuses a live key as the sandbox key (the journey books), an http receiver URL, and never echoes a key', () => {
    const refusal = (argv: string[], env: NodeJS.ProcessEnv) => {
      try {
        options(argv, env);
      } catch (e) {
        expect(e).toBeInstanceOf(UsageError);
        return (e as Error).message;
      }
      throw new Error('accepted');
    };
    const live = refusal(['--base-url', 'https://api.example.com/v1'], { PTBS_SANDBOX_KEY: LIVE });
    expect(live).toMatch(/sandbox key is an sk_test_ key/);
    expect(live).not.toContain(LIVE);
    expect(refusal(['--base-url', 'https://api.example.com/v1', '--receiver-url', 'http://tunnel.example.com/hook'], { PTBS_SANDBOX_KEY: SANDBOX })).toMatch(
      /must be an https URL/,
    );
    expect(refusal([], { PTBS_SANDBOX_KEY: SANDBOX })).toMatch(/--base-url/);
    expect(() => readArgs(['--nope'], {})).toThrow(UsageError);
  });

  it('receives webhooks locally or through a public URL; against a deployment without one, skips, or fails when required', () => {
    expect(webhookPlan({ local: true, requireWebhook: false })).toEqual({ kind: 'receive', port: 0 });
    expect(webhookPlan({ local: false, requireWebhook: true, receiverUrl: 'https://t.example.com/h' })).toEqual({
      kind: 'receive',
      url: 'https://t.example.com/h',
      port: 8787,
    });
    const skipped = webhookPlan({ local: false, requireWebhook: false, receiverPort: 9000 });
    expect(skipped).toEqual({ kind: 'skip', reason: expect.stringContaining('--receiver-url https://... (a tunnel to 127.0.0.1:9000)') });
    expect(webhookPlan({ local: false, requireWebhook: true })).toMatchObject({ kind: 'fail' });
  });

  it('redacts API keys and webhook secrets from every line', () => {
    expect(redact(`key ${SANDBOX} and ${LIVE}, secret whsec_abc+/=123 end`)).toBe('key sk_test_[redacted] and sk_live_[redacted], secret whsec_[redacted] end');
    expect(redact('the secret is hunter2', ['hunter2'])).toBe('the secret is [redacted]');
  });
});

describe('npm run smoke: its sandbox payment key', () => {
  it('is derived from the sandbox key: the same on every run (registered once), another for another key, and it signs', async () => {
    const a = await derivedPaymentKey(SANDBOX);
    expect(await derivedPaymentKey(SANDBOX)).toEqual(a);
    const b = await derivedPaymentKey(SANDBOX.replace('abcdefghijkl', 'bbcdefghijkl'));
    expect(b.kid).not.toBe(a.kid);
    expect(a).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', kid: expect.stringMatching(/^smoke-[A-Za-z0-9_-]{16}$/) });
    const jws = await signPaymentConfirmation(a, {
      quote_id: '7d7b0f0e-8d55-4a43-9d6c-2f5d0c1e7a11',
      amount: { amount: '10.00', currency: 'MAD' },
      payment_reference: 'P',
      paid_at: new Date().toISOString(),
    });
    const { d: _, ...publicJwk } = a;
    const verified = await compactVerify(jws, await importJWK(publicJwk, 'ES256'));
    expect(verified.protectedHeader.kid).toBe(a.kid);
  });
});
