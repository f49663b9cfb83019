import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Annotations, App, AssetHashType, CfnResource, DockerImage, FileSystem, Stack } from 'aws-cdk-lib';
import { Asset } from 'aws-cdk-lib/aws-s3-assets';
import { afterAll, describe, expect, it } from 'vitest';
import { readAssembly, type Template } from '../../infra/rehearsal/assembly';
import { checkAssets, elfMachine } from '../../infra/rehearsal/assets';
import { checkControls } from '../../infra/rehearsal/controls';
import { ACCEPTED_CONTROL_FAILURES } from '../../infra/rehearsal/controls-accepted';
import type { CheckResult } from '../../infra/rehearsal/findings';
import { checkIam } from '../../infra/rehearsal/iam';
import { checkLambda } from '../../infra/rehearsal/lambda';
import { checkQuotas } from '../../infra/rehearsal/quotas';
import { REHEARSAL_REGIONS_VAR, synthOtherRegions } from '../../infra/rehearsal/regions';
import { checkSchemas } from '../../infra/rehearsal/schema';
import { commandLines, splitArguments } from '../../scripts/deploy';

/**
 * The deploy rehearsal's checks (infra/rehearsal), each against a small assembly written here with the defect it
 * must find: `npm run rehearse` (in `npm test`) runs them on the real one, where they find nothing.
 */
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

interface FakeAsset {
  hash: string;
  files: Record<string, string | Buffer | { sparse: number }>;
}

/** A cloud assembly as `cdk synth -o` writes it: one stack in eu-south-2 or another region, its assets staged. */
function assembly(template: Template, opts: { region?: string; assets?: FakeAsset[] } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'rehearsal-'));
  dirs.push(dir);
  const files: Record<string, unknown> = {};
  for (const a of opts.assets ?? []) {
    const staged = join(dir, `asset.${a.hash}`);
    for (const [name, content] of Object.entries(a.files)) {
      mkdirSync(join(staged, name, '..'), { recursive: true });
      if (typeof content === 'object' && 'sparse' in content) {
        const fd = openSync(join(staged, name), 'w');
        writeSync(fd, Buffer.from([0]), 0, 1, content.sparse - 1);
        closeSync(fd);
      } else writeFileSync(join(staged, name), content);
    }
    files[a.hash] = { source: { path: `asset.${a.hash}`, packaging: 'zip' }, destinations: { d: { bucketName: 'cdk-assets', objectKey: `${a.hash}.zip` } } };
  }
  writeFileSync(join(dir, 'S.template.json'), JSON.stringify(template));
  writeFileSync(join(dir, 'S.assets.json'), JSON.stringify({ version: '55.0.0', files }));
  writeFileSync(
    join(dir, 'manifest.json'),
    JSON.stringify({
      version: '55.0.0',
      artifacts: {
        'S.assets': { type: 'cdk:asset-manifest', properties: { file: 'S.assets.json' } },
        S: {
          type: 'aws:cloudformation:stack',
          environment: `aws://111122223333/${opts.region ?? 'eu-west-3'}`,
          properties: { templateFile: 'S.template.json' },
        },
      },
    }),
  );
  return readAssembly(dir);
}

const errors = (r: CheckResult) => r.findings.filter((f) => f.level === 'error').map((f) => `${f.where}: ${f.message}`);
const fn = (props: Record<string, unknown> = {}) => ({
  Type: 'AWS::Lambda::Function',
  Properties: { Role: { 'Fn::GetAtt': ['Role', 'Arn'] }, Runtime: 'nodejs22.x', Handler: 'index.handler', Code: { ZipFile: 'exports.handler=1' }, ...props },
});
const role = (statement: Record<string, unknown>) => ({
  Type: 'AWS::IAM::Role',
  Properties: { AssumeRolePolicyDocument: { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: 'sts:AssumeRole', ...statement }] } },
});

describe('resource properties against the registry schemas and the service spec', () => {
  it('finds a wrong type, an unknown property, a value out of range and a missing required property, with both sources', () => {
    const a = assembly({
      Resources: {
        F: fn({ MemorySize: 'lots', Description: 'x'.repeat(300) }),
        Q: { Type: 'AWS::SQS::Queue', Properties: { VisibilityTimeout: 99_999, Bogus: 1 } },
        T: { Type: 'AWS::DynamoDB::GlobalTable', Properties: { AttributeDefinitions: [] } },
      },
    });
    const [registry, spec] = checkSchemas(a).map(errors) as [string[], string[]];
    expect(registry).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/S F: .*MemorySize: 'lots' is not of type 'integer'/),
        expect.stringMatching(/S F: .*Description: length 300 exceeds maximum 256/),
        expect.stringMatching(/S Q: .*VisibilityTimeout: 99999 is greater than the maximum of 43200/),
        expect.stringMatching(/S Q: .*'Bogus' was unexpected/),
        expect.stringMatching(/S T: .*Replicas/),
      ]),
    );
    expect(spec).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/S F: AWS::Lambda::Function Properties.MemorySize: must be integer/),
        expect.stringMatching(/S Q: AWS::SQS::Queue Properties: no property Bogus/),
        expect.stringMatching(/S T: AWS::DynamoDB::GlobalTable Properties: must have required property 'Replicas'/),
      ]),
    );
  });

  it('takes an intrinsic function wherever a value is computed, and passes a valid resource', () => {
    const a = assembly({ Resources: { F: fn({ MemorySize: { 'Fn::If': ['Big', 1024, 128] }, Timeout: { Ref: 'T' } }) } });
    expect(checkSchemas(a).flatMap(errors)).toEqual([]);
  });

  it("refuses a resource type the target region does not have (SES's identity in eu-south-2)", () => {
    const ses = { Resources: { I: { Type: 'AWS::SES::EmailIdentity', Properties: { EmailIdentity: 'travel.yourbank.ma' } } } };
    expect(errors(checkSchemas(assembly(ses, { region: 'eu-south-2' }))[0]!)).toEqual([expect.stringMatching(/does not exist in 'eu-south-2'/)]);
    expect(errors(checkSchemas(assembly(ses, { region: 'eu-west-3' }))[0]!)).toEqual([]);
  });
});

describe("CloudFormation's quotas", () => {
  it('refuses a template of more than 500 resources, and warns over 80 %', () => {
    const queues = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`Q${i}`, { Type: 'AWS::SQS::Queue' }]));
    expect(errors(checkQuotas(assembly({ Resources: queues(501) })))).toEqual(['S: 501 resources: CloudFormation takes at most 500']);
    const near = checkQuotas(assembly({ Resources: queues(450) }));
    expect(errors(near)).toEqual([]);
    expect(near.findings.map((f) => f.message)).toEqual(['450 resources, of at most 500: over 80 % of the quota']);
  });

  it('refuses more than 200 outputs and a description over 1 024 bytes', () => {
    const outputs = Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`O${i}`, { Value: 'x' }]));
    expect(errors(checkQuotas(assembly({ Description: 'é'.repeat(513), Outputs: outputs, Resources: { Q: { Type: 'AWS::SQS::Queue' } } })))).toEqual([
      'S: 201 outputs: CloudFormation takes at most 200',
      'S: 1026 bytes of description: CloudFormation takes at most 1024',
    ]);
  });
});

/** An ELF header of a shared object for `machine` (0xb7 arm64, 0x3e x86_64), little-endian, 64-bit. */
const elf = (machine: number) => {
  const h = Buffer.alloc(64);
  h.writeUInt32BE(0x7f454c46, 0);
  h[4] = 2;
  h[5] = 1;
  h.writeUInt16LE(machine, 18);
  return h;
};

describe("the assets and Lambda's packages", () => {
  const bundled = (files: FakeAsset['files'], hash = 'a'.repeat(64)) => {
    const dir = mkdtempSync(join(tmpdir(), 'bundle-'));
    dirs.push(dir);
    for (const [name, content] of Object.entries(files)) {
      mkdirSync(join(dir, name, '..'), { recursive: true });
      if (typeof content === 'string' || Buffer.isBuffer(content)) writeFileSync(join(dir, name), content);
    }
    return { hash: hash === 'fingerprint' ? FileSystem.fingerprint(dir) : hash, files };
  };
  const functionOf = (hash: string, props: Record<string, unknown> = {}) =>
    fn({ Code: { S3Bucket: 'cdk-assets', S3Key: `${hash}.zip` }, Architectures: ['arm64'], ...props });

  it("reads an ELF header's architecture", () => {
    const a = assembly({ Resources: {} }, { assets: [{ hash: 'b'.repeat(64), files: { 'x.node': elf(0xb7), 'y.so.42': elf(0x3e), 'z.txt': 'not elf' } }] });
    const dir = join(a.dir, `asset.${'b'.repeat(64)}`);
    expect([elfMachine(join(dir, 'x.node')), elfMachine(join(dir, 'y.so.42')), elfMachine(join(dir, 'z.txt'))]).toEqual(['arm64', 'x86_64', undefined]);
  });

  it("refuses a native binary of another architecture than its function's, a missing handler, and an asset the assembly lacks", () => {
    const asset = bundled({ 'lib/index.js': 'exports.handler = 1', 'node_modules/sharp.node': elf(0x3e), 'libvips.so.42': elf(0xb7) }, 'fingerprint');
    const found = errors(
      checkAssets(
        assembly(
          {
            Resources: {
              F: { ...functionOf(asset.hash), Metadata: { 'aws:asset:is-bundled': true } },
              G: functionOf('c'.repeat(64)),
            },
          },
          { assets: [asset] },
        ),
      ),
    );
    expect(found).toEqual([
      `S: names the asset ${'c'.repeat(64)}.zip, which no assets manifest of the assembly lists`,
      'S F: its handler index.handler names index.js (or .mjs, .cjs), which the package does not have',
      'S F: node_modules/sharp.node is built for x86_64; the function runs on arm64',
    ]);
  });

  it('refuses a bundle whose content no longer has its hash, and a package over 250 MB unzipped', () => {
    const changed = bundled({ 'index.js': 'exports.handler = 1' }, 'd'.repeat(64));
    const big = { hash: 'e'.repeat(64), files: { 'index.js': 'exports.handler = 1', 'data.bin': { sparse: 251 * 1024 * 1024 } } };
    const found = errors(
      checkAssets(
        assembly(
          { Resources: { F: { ...functionOf(changed.hash), Metadata: { 'aws:asset:is-bundled': true } }, G: functionOf(big.hash) } },
          { assets: [changed, big] },
        ),
      ),
    );
    expect(found).toEqual([
      `S F: its bundle asset.${'d'.repeat(64)} no longer has the content its hash ${'d'.repeat(12)} says`,
      'S G: 251.0 MB unzipped with its layers: Lambda takes at most 250.0 MB',
    ]);
  });

  it('passes a package of the right architecture whose bundle has its hash', () => {
    const asset = bundled({ 'index.js': 'exports.handler = 1', 'sharp.node': elf(0xb7) }, 'fingerprint');
    const r = checkAssets(assembly({ Resources: { F: { ...functionOf(asset.hash), Metadata: { 'aws:asset:is-bundled': true } } } }, { assets: [asset] }));
    expect(errors(r)).toEqual([]);
    expect(r.figures).toMatchObject({ functions: 1, 'bundles verified': 1, 'native binaries': 1 });
  });
});

describe('IAM documents', () => {
  it('refuses a service principal without aws:SourceAccount or aws:SourceArn, in a trust policy, a resource policy and a Lambda permission', () => {
    const found = errors(
      checkIam(
        assembly({
          Resources: {
            Open: role({ Principal: { Service: 'scheduler.amazonaws.com' } }),
            Bound: role({ Principal: { Service: 'lambda.amazonaws.com' }, Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } } }),
            QP: {
              Type: 'AWS::SQS::QueuePolicy',
              Properties: {
                Queues: ['q'],
                PolicyDocument: { Statement: [{ Effect: 'Allow', Principal: { Service: 's3.amazonaws.com' }, Action: 'sqs:SendMessage', Resource: '*' }] },
              },
            },
            P: { Type: 'AWS::Lambda::Permission', Properties: { Action: 'lambda:InvokeFunction', FunctionName: 'f', Principal: 'events.amazonaws.com' } },
          },
        }),
      ),
    );
    expect(found).toEqual([
      'S Open: its trust policy lets scheduler.amazonaws.com act without aws:SourceAccount or aws:SourceArn (confused deputy)',
      'S QP: its resource policy lets s3.amazonaws.com act without aws:SourceAccount or aws:SourceArn (confused deputy)',
      'S P: lets events.amazonaws.com invoke the function without SourceArn or SourceAccount (confused deputy)',
    ]);
  });

  it("refuses a role's inline policies over 10 240 characters together, counting each reference at its deployed length", () => {
    // 60 statements on a table ARN of 11 parts: small as written, over the quota once the ARN is an ARN.
    const statement = { Effect: 'Allow', Action: 'dynamodb:GetItem', Resource: { 'Fn::GetAtt': ['Table', 'Arn'] } };
    const policy = (n: number) => ({
      Type: 'AWS::IAM::Policy',
      Properties: { PolicyName: 'p', Roles: [{ Ref: 'R' }], PolicyDocument: { Statement: Array(n).fill(statement) } },
    });
    const r = role({ Principal: { Service: 'lambda.amazonaws.com' }, Condition: { StringEquals: { 'aws:SourceAccount': '111122223333' } } });
    expect(errors(checkIam(assembly({ Resources: { R: r, P1: policy(30), P2: policy(60) } })))).toEqual([
      expect.stringMatching(/^S R: inline policies of \d+ characters in all \(a role takes at most 10240\)$/),
    ]);
    expect(errors(checkIam(assembly({ Resources: { R: r, P1: policy(30) } })))).toEqual([]);
  });
});

describe("Lambda's environment and triggers", () => {
  it('refuses an environment over 4 KB and a reserved variable', () => {
    const found = errors(checkLambda(assembly({ Resources: { F: fn({ Environment: { Variables: { BIG: 'x'.repeat(4100), AWS_REGION: 'eu-west-3' } } }) } })));
    expect(found).toEqual([
      expect.stringMatching(/^S F: an environment of 41\d\d bytes \(Lambda takes at most 4096\)$/),
      'S F: sets AWS_REGION, which Lambda reserves',
    ]);
  });

  it("refuses a timeout its trigger cannot wait for: an HTTP API's 30 s, an SQS queue's sixth of its visibility timeout", () => {
    const found = errors(
      checkLambda(
        assembly({
          Resources: {
            Slow: fn({ Timeout: 60 }),
            I: {
              Type: 'AWS::ApiGatewayV2::Integration',
              Properties: { ApiId: 'a', IntegrationType: 'AWS_PROXY', IntegrationUri: { 'Fn::GetAtt': ['Slow', 'Arn'] } },
            },
            Worker: fn({ Timeout: 30 }),
            Q: { Type: 'AWS::SQS::Queue', Properties: { VisibilityTimeout: 120 } },
            M: { Type: 'AWS::Lambda::EventSourceMapping', Properties: { FunctionName: { Ref: 'Worker' }, EventSourceArn: { 'Fn::GetAtt': ['Q', 'Arn'] } } },
          },
        }),
      ),
    );
    expect(found).toEqual([
      'S Slow: a timeout of 60 s behind an HTTP API integration that answers 503 after 30 s',
      'S Worker: a timeout of 30 s on queue Q, whose visibility timeout is 120 s (at least 6x: 180 s)',
    ]);
  });
});

describe("AWS Control Tower's proactive controls", () => {
  it('fails on a control the stack fails that is not accepted, and names the resources', () => {
    // CT.SQS.PR.1 is accepted (for dead-letter queues); CT.SQS.PR.2 (encryption) is not.
    const r = checkControls(assembly({ Resources: { Plain: { Type: 'AWS::SQS::Queue', Properties: { SqsManagedSseEnabled: false } } } }));
    expect(ACCEPTED_CONTROL_FAILURES['CT.SQS.PR.1']).toBeDefined();
    expect(r.results.find((c) => c.control.id === 'CT.SQS.PR.1')).toMatchObject({ status: 'fail', resources: ['S Plain'] });
    expect(errors(r)).toEqual(expect.arrayContaining([expect.stringMatching(/^S Plain: fails CT\.SQS\.PR\.2 /)]));
  });

  it('fails on an accepted control the stack no longer fails: the list would lie', () => {
    const r = checkControls(
      assembly({
        Resources: {
          Q: { Type: 'AWS::SQS::Queue', Properties: { RedrivePolicy: { deadLetterTargetArn: 'arn:aws:sqs:eu-west-3:111122223333:dlq', maxReceiveCount: 3 } } },
        },
      }),
    );
    expect(r.results.find((c) => c.control.id === 'CT.SQS.PR.1')?.status).toBe('pass');
    expect(errors(r)).toEqual(expect.arrayContaining(['CT.SQS.PR.1: is accepted as failing in infra/rehearsal/controls-accepted.ts but passes: take it out']));
    expect(r.figures.controls).toBe(237);
  });
});

describe('the deploy pipeline (scripts/deploy.ts)', () => {
  it("synthesizes with the deploy's context checks and the user's context, then deploys that assembly and nothing else", () => {
    const lines = commandLines('deploy', ['-c', 'issuer=issuer.json', '--profile', 'prod', '--require-approval', 'never'], 'cdk.out');
    expect(lines.synth).toEqual([
      'synth',
      '--all',
      '--quiet',
      '--output',
      'cdk.out',
      ...['-c', 'requireIssuer=true', '-c', 'requireMail=true', '-c', 'requireOncall=true'],
      ...['-c', 'issuer=issuer.json', '--profile', 'prod'],
    ]);
    expect(lines.deploy).toEqual(['deploy', '--app', 'cdk.out', '--all', '--profile', 'prod', '--require-approval', 'never']);
    expect(commandLines('deploy:mail', [], 'out').deploy).toEqual(['deploy', '--app', 'out', '*Mail']);
    expect(splitArguments(['--context=a=b', '--profile=p', '--hotswap'])).toEqual({
      synth: ['--context=a=b', '--profile=p'],
      deploy: ['--profile=p', '--hotswap'],
    });
  });
});

describe('the regions of one rehearsal (infra/rehearsal/regions.ts)', () => {
  /** An app of one stack whose asset is bundled as the functions' are (output hash), counting its bundlings. */
  const specimenApp = (outdir: string, source: string, bundlings: string[], error?: string) => (env: { account: string; region: string }) => {
    const app = new App({ outdir });
    const stack = new Stack(app, 'S', { env });
    new Asset(stack, 'Code', {
      path: source,
      assetHashType: AssetHashType.OUTPUT,
      bundling: {
        image: DockerImage.fromRegistry('unused'),
        local: {
          tryBundle(out: string) {
            bundlings.push(env.region);
            writeFileSync(join(out, 'index.js'), 'exports.handler = 1');
            return true;
          },
        },
      },
    });
    new CfnResource(stack, 'Queue', { type: 'AWS::SQS::Queue' });
    if (error) Annotations.of(stack).addError(error);
    return app.synth();
  };
  const workspace = () => {
    const root = mkdtempSync(join(tmpdir(), 'regions-'));
    dirs.push(root);
    mkdirSync(join(root, 'src'));
    writeFileSync(join(root, 'src', 'handler.ts'), 'export const handler = 1;');
    return { root, out: join(root, 'eu-west-3'), other: join(root, 'eu-west-1'), source: join(root, 'src') };
  };

  it("bundles an asset once for every region, each region's assembly in its own directory, bound to it, with its assets", () => {
    const w = workspace();
    const bundlings: string[] = [];
    const synth = specimenApp(w.out, w.source, bundlings);
    const vars = { CDK_OUTDIR: w.out, CDK_DEFAULT_ACCOUNT: '111122223333', [REHEARSAL_REGIONS_VAR]: JSON.stringify({ 'eu-west-1': w.other }) };
    synthOtherRegions(vars, synth);
    synth({ account: '111122223333', region: 'eu-west-3' }); // the bound region, as infra/app.ts then synthesizes it
    expect(bundlings).toEqual(['eu-west-1']);
    const [other, bound] = [readAssembly(w.other), readAssembly(w.out)];
    expect([other.stacks[0]?.region, bound.stacks[0]?.region]).toEqual(['eu-west-1', 'eu-west-3']);
    expect([other.missingSources, bound.missingSources]).toEqual([[], []]);
    expect([...other.assets.values()].map((a) => a.hash)).toEqual([...bound.assets.values()].map((a) => a.hash));
    expect(checkAssets(other).findings).toEqual([]);
  });

  it('does nothing for a deploy (no other region), and refuses a region whose synth the CLI would refuse', () => {
    const w = workspace();
    const bundlings: string[] = [];
    synthOtherRegions({ CDK_OUTDIR: w.out, CDK_DEFAULT_ACCOUNT: '111122223333' }, specimenApp(w.out, w.source, bundlings));
    expect(bundlings).toEqual([]);
    const vars = { CDK_OUTDIR: w.out, CDK_DEFAULT_ACCOUNT: '111122223333', [REHEARSAL_REGIONS_VAR]: JSON.stringify({ 'eu-west-1': w.other }) };
    expect(() => synthOtherRegions(vars, specimenApp(w.out, w.source, bundlings, 'no oncall topic'))).toThrow(/^eu-west-1:\n\/S: no oncall topic/);
  });
});
