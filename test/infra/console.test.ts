import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { AttributeType, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_CORS } from '../../infra/console-policy';
import { CONSOLE_DIST_MISSING, CONSOLE_PATH_FUNCTION, ConsoleConstruct, INVITATION_MESSAGE_TRIGGER } from '../../infra/constructs/console';
import { MailConstruct } from '../../infra/constructs/mail';
import { mailOf } from '../../infra/mail';
import { INVITATION_LEADING_KEYS } from '../../shared/access/keys';
import { JOBS, QUEUES } from '../../shared/queues';
import { ROUTE_LIST } from '../../shared/routes';
import { actionsOf, isServiceFunction, type Resource, render, type Statement, synthService } from './synth';

let s: ReturnType<typeof synthService>;
/** The service stack's resources of a type. */
const rootOf = (type: string) => Object.entries(s.root.findResources(type)) as [string, Resource][];
const one = (type: string) => {
  const all = rootOf(type);
  expect(all, type).toHaveLength(1);
  return all[0]!;
};
const consoleDistribution = () => rootOf('AWS::CloudFront::Distribution').find(([id]) => id.startsWith('ConsoleCdn'))!;
const accessTableId = () => rootOf('AWS::DynamoDB::GlobalTable').find(([id]) => id.startsWith('DataAccessTable'))![0];
const documentsBucketId = () => rootOf('AWS::S3::Bucket').find(([id]) => id.startsWith('UploadssettlementDocumentsBucket'))![0];

beforeAll(() => {
  s = synthService();
  if (s.synthError) throw s.synthError;
});

describe('console user pool', () => {
  it('is invite-only, signs in by e-mail, requires TOTP (no SMS) and a strong password', () => {
    const [, pool] = one('AWS::Cognito::UserPool');
    expect(pool.Properties).toMatchObject({
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
      UsernameAttributes: ['email'],
      AutoVerifiedAttributes: ['email'],
      MfaConfiguration: 'ON',
      EnabledMfas: ['SOFTWARE_TOKEN_MFA'],
      Policies: {
        PasswordPolicy: {
          MinimumLength: 12,
          RequireLowercase: true,
          RequireUppercase: true,
          RequireNumbers: true,
          RequireSymbols: true,
          TemporaryPasswordValidityDays: 7,
        },
      },
    });
    expect(pool.Properties.SmsConfiguration).toBeUndefined();
  });

  it('has threat protection on (Plus plan, enforced), recovery by e-mail only, and survives a stack deletion', () => {
    const [, pool] = one('AWS::Cognito::UserPool');
    expect(pool.Properties).toMatchObject({
      UserPoolTier: 'PLUS',
      UserPoolAddOns: { AdvancedSecurityMode: 'ENFORCED' },
      AccountRecoverySetting: { RecoveryMechanisms: [{ Name: 'verified_email', Priority: 1 }] },
      DeletionProtection: 'ACTIVE',
    });
    expect(pool.DeletionPolicy).toBe('RetainExceptOnCreate');
  });

  it("has one app client, the console's: no secret, password and SRP sign-in with refresh, no OAuth, short-lived revocable tokens", () => {
    const [, client] = one('AWS::Cognito::UserPoolClient');
    expect(client.Properties.GenerateSecret).toBe(false);
    expect([...client.Properties.ExplicitAuthFlows].sort()).toEqual(['ALLOW_REFRESH_TOKEN_AUTH', 'ALLOW_USER_PASSWORD_AUTH', 'ALLOW_USER_SRP_AUTH']);
    expect(client.Properties).toMatchObject({
      PreventUserExistenceErrors: 'ENABLED',
      AccessTokenValidity: 60,
      IdTokenValidity: 60,
      RefreshTokenValidity: 720,
      TokenValidityUnits: { AccessToken: 'minutes', IdToken: 'minutes', RefreshToken: 'minutes' },
      EnableTokenRevocation: true,
      AllowedOAuthFlowsUserPoolClient: false,
    });
    expect(client.Properties.CallbackURLs).toBeUndefined();
    expect(client.Properties.WriteAttributes).not.toContain('email');
  });
});

describe('the invitation e-mail', () => {
  it("is written by the pool's CustomMessage trigger, which Cognito may invoke for this pool only and which reads only the pending invitations", () => {
    const [, pool] = one('AWS::Cognito::UserPool');
    const [fnId, fn] = rootOf('AWS::Lambda::Function').find(
      ([, f]) => (f as Resource & { Metadata?: Record<string, unknown> }).Metadata?.Entry === INVITATION_MESSAGE_TRIGGER,
    )!;
    expect(pool.Properties.LambdaConfig).toEqual({ CustomMessage: { 'Fn::GetAtt': [fnId, 'Arn'] } });
    expect(render(fn.Properties.Environment.Variables.CONSOLE_URL)).toMatch(/^https:\/\/\{ConsoleCdn[0-9A-F]{8}\.DomainName\}\/console\/$/);
    const permissions = rootOf('AWS::Lambda::Permission').filter(([, p]) => JSON.stringify(p.Properties.FunctionName).includes(fnId));
    expect(permissions.map(([, p]) => [p.Properties.Principal, p.Properties.SourceArn])).toEqual([
      ['cognito-idp.amazonaws.com', { 'Fn::GetAtt': [s.root.getResourceId('AWS::Cognito::UserPool'), 'Arn'] }],
    ]);
    const roleId = fn.Properties.Role['Fn::GetAtt'][0] as string;
    const policies = rootOf('AWS::IAM::Policy').filter(([, p]) => JSON.stringify(p.Properties.Roles).includes(`"${roleId}"`));
    expect(policies.length).toBeGreaterThan(0);
    const statements = policies.flatMap(([, p]) => p.Properties.PolicyDocument.Statement as Statement[]);
    const aws = statements.filter((st) => !actionsOf(st).every((a) => a.startsWith('logs:') || a.startsWith('xray:')));
    // The pending invitations' items (INVITATION#<email>) of the access table, read by key: nothing else.
    expect(aws.map((st) => ({ ...st, Resource: render(st.Resource) }))).toEqual([
      {
        Effect: 'Allow',
        Action: 'dynamodb:GetItem',
        Resource: `{${accessTableId()}.Arn}`,
        Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': INVITATION_LEADING_KEYS } },
      },
    ]);
    expect(fn.Properties.Environment.Variables.ACCESS_TABLE).toBeDefined();
  });
});

describe('console files', () => {
  const consoleBucketId = () => rootOf('AWS::S3::Bucket').find(([id]) => id.startsWith('ConsoleBucket'))![0];

  it('are in a private, encrypted bucket that refuses plain HTTP and logs its access', () => {
    const [id, bucket] = rootOf('AWS::S3::Bucket').find(([id]) => id === consoleBucketId())!;
    expect(bucket.Properties.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(bucket.Properties.BucketEncryption.ServerSideEncryptionConfiguration[0].ServerSideEncryptionByDefault.SSEAlgorithm).toBe('AES256');
    expect(bucket.Properties.LoggingConfiguration).toEqual({
      DestinationBucketName: { Ref: expect.stringMatching(/^UploadsAccessLogs/) },
      LogFilePrefix: 'console/',
    });
    expect(bucket.Properties.AccessControl).toBeUndefined();
    expect(bucket.DeletionPolicy, id).toBe('RetainExceptOnCreate');
  });

  it("are read by the console's distribution only, through origin access control", () => {
    const [distId, dist] = consoleDistribution();
    const policy = rootOf('AWS::S3::BucketPolicy').find(([, p]) => JSON.stringify(p.Properties.Bucket) === JSON.stringify({ Ref: consoleBucketId() }))![1];
    const statements = policy.Properties.PolicyDocument.Statement as Statement[];
    const allows = statements.filter((st) => st.Effect === 'Allow');
    expect(allows).toHaveLength(1);
    expect(allows[0]).toMatchObject({ Action: 's3:GetObject', Principal: { Service: 'cloudfront.amazonaws.com' } });
    expect(render(allows[0]!.Resource)).toBe(`{${consoleBucketId()}.Arn}/*`);
    expect(render((allows[0]!.Condition as { StringEquals: { 'AWS:SourceArn': unknown } }).StringEquals['AWS:SourceArn'])).toBe(
      `arn:{Ref:AWS::Partition}:cloudfront::{Ref:AWS::AccountId}:distribution/{Ref:${distId}}`,
    );
    expect(statements.find((st) => st.Effect === 'Deny')).toMatchObject({ Condition: { Bool: { 'aws:SecureTransport': 'false' } } });
    const origins = dist.Properties.DistributionConfig.Origins;
    expect(origins).toHaveLength(1);
    expect(origins[0].DomainName).toEqual({ 'Fn::GetAtt': [consoleBucketId(), 'RegionalDomainName'] });
    expect(origins[0].OriginAccessControlId).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^ConsoleCdnOrigin1S3OriginAccessControl/), 'Id'] });
    expect(origins[0].S3OriginConfig).toEqual({ OriginAccessIdentity: '' });
  });

  it('are served over HTTPS only, logged to the access logs bucket, at /console/ (the build base) by a viewer-request function', () => {
    const config = consoleDistribution()[1].Properties.DistributionConfig;
    expect(config.DefaultCacheBehavior.ViewerProtocolPolicy).toBe('https-only');
    expect(config.Logging).toEqual({
      Bucket: { 'Fn::GetAtt': [expect.stringMatching(/^UploadsAccessLogs/), 'RegionalDomainName'] },
      Prefix: 'cloudfront/console/',
    });
    expect(config.CustomErrorResponses).toBeUndefined();
    expect(config.DefaultCacheBehavior.FunctionAssociations).toEqual([
      { EventType: 'viewer-request', FunctionARN: { 'Fn::GetAtt': [expect.stringMatching(/^ConsolePaths/), 'FunctionARN'] } },
    ]);
    const handler = new Function(`${CONSOLE_PATH_FUNCTION}; return handler;`)() as (e: { request: { uri: string } }) => any;
    const at = (uri: string) => handler({ request: { uri } });
    for (const uri of ['/', '/console']) expect(at(uri)).toMatchObject({ statusCode: 302, headers: { location: { value: '/console/' } } });
    expect(at('/console/')).toEqual({ uri: '/console/index.html' });
    expect(at('/console/assets/index-1.js')).toEqual({ uri: '/console/assets/index-1.js' });
  });

  it('carry strict security headers: a CSP without inline script or style that no page may frame, HSTS, DENY, nosniff, no referrer', () => {
    const [policyId, policy] = rootOf('AWS::CloudFront::ResponseHeadersPolicy').find(([id]) => id.startsWith('ConsoleHeaders'))!;
    expect(consoleDistribution()[1].Properties.DistributionConfig.DefaultCacheBehavior.ResponseHeadersPolicyId).toEqual({ Ref: policyId });
    const headers = policy.Properties.ResponseHeadersPolicyConfig.SecurityHeadersConfig;
    const csp = render(headers.ContentSecurityPolicy.ContentSecurityPolicy);
    expect(headers.ContentSecurityPolicy.Override).toBe(true);
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|unsafe-hashes|strict-dynamic|\*/);
    const directives = Object.fromEntries(csp.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1).join(' ')]));
    expect(directives).toEqual({
      'default-src': "'self'",
      'script-src': "'self'",
      'style-src': "'self'",
      'img-src': "'self' data:",
      // The API, Cognito, and the settlement documents' bucket at its regional endpoint (a large document's presigned link).
      'connect-src': `'self' {${s.root.getResourceId('AWS::ApiGatewayV2::Api')}.ApiEndpoint} https://cognito-idp.{Ref:AWS::Region}.amazonaws.com https://{${documentsBucketId()}.RegionalDomainName}`,
      'frame-ancestors': "'none'",
      'base-uri': "'none'",
      'form-action': "'self'",
      'object-src': "'none'",
    });
    expect(headers.StrictTransportSecurity).toEqual({ AccessControlMaxAgeSec: 63072000, IncludeSubdomains: true, Preload: true, Override: true });
    expect(headers.FrameOptions).toEqual({ FrameOption: 'DENY', Override: true });
    expect(headers.ContentTypeOptions).toEqual({ Override: true });
    expect(headers.ReferrerPolicy).toEqual({ ReferrerPolicy: 'no-referrer', Override: true });
  });

  it('are the built console and a config.json naming the API, the user pool and its client, under console/', () => {
    const [, deploy] = one('Custom::CDKBucketDeployment');
    expect(deploy.Properties).toMatchObject({
      DestinationBucketName: { Ref: consoleBucketId() },
      DestinationBucketKeyPrefix: 'console/',
      Prune: true,
      DistributionId: { Ref: consoleDistribution()[0] },
      DistributionPaths: ['/console/index.html', '/console/config.json'],
    });
    const keys = deploy.Properties.SourceObjectKeys as string[];
    expect(keys).toHaveLength(2);
    const dir = join(s.app.outdir, `asset.${keys[1]!.replace(/\.zip$/, '')}`);
    const markers = Object.fromEntries(Object.entries(deploy.Properties.SourceMarkers[1] as Record<string, unknown>).map(([k, v]) => [k, render(v)]));
    const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8').replace(/<<marker:0xbaba:\d+>>/g, (m) => markers[m]!));
    const pool = s.root.getResourceId('AWS::Cognito::UserPool');
    expect(config).toEqual({
      apiBaseUrl: `{${s.root.getResourceId('AWS::ApiGatewayV2::Api')}.ApiEndpoint}/v1`,
      cognito: {
        region: '{Ref:AWS::Region}',
        userPoolId: `{Ref:${pool}}`,
        clientId: `{Ref:${s.root.getResourceId('AWS::Cognito::UserPoolClient')}}`,
        endpoint: 'https://cognito-idp.{Ref:AWS::Region}.amazonaws.com/',
      },
    });
  });

  it('must be built before a synth that bundles: a missing console/dist stops it, with the command to run', () => {
    const missing = join(tmpdir(), 'no-such-console-dist');
    const make = (context: Record<string, unknown>, distDir: string) => {
      const stack = new Stack(new App({ context }), 'ConsoleOnly');
      const mail = new MailConstruct(stack, 'Mail', mailOf(stack));
      return new ConsoleConstruct(stack, 'Console', {
        apiOrigin: 'https://api.example',
        documentsBucket: new Bucket(stack, 'Documents'),
        logsBucket: new Bucket(stack, 'Logs'),
        distDir,
        mail,
        accessTable: new TableV2(stack, 'Access', { partitionKey: { name: 'pk', type: AttributeType.STRING } }),
      });
    };
    expect(() => make({}, missing)).toThrow(CONSOLE_DIST_MISSING);
    expect(() => make({ 'aws:cdk:bundling-stacks': [] }, missing)).not.toThrow();
    const built = mkdtempSync(join(tmpdir(), 'console-dist-'));
    mkdirSync(join(built, 'assets'));
    writeFileSync(join(built, 'index.html'), '<!doctype html><title>console</title>');
    expect(() => make({}, built)).not.toThrow();
  });
});

describe('the API and the console', () => {
  it("answers CORS for the console's origin only, once the distribution exists (a custom resource: the CSP names the API)", () => {
    const [apiId, api] = one('AWS::ApiGatewayV2::Api');
    expect(api.Properties.CorsConfiguration).toBeUndefined();
    const [, cors] = one('Custom::AWS');
    const create = JSON.parse(render(cors.Properties.Create));
    expect(JSON.parse(render(cors.Properties.Update))).toEqual(create);
    expect(create).toMatchObject({ service: 'ApiGatewayV2', action: 'UpdateApi' });
    expect(create.parameters).toEqual({
      ApiId: `{Ref:${apiId}}`,
      CorsConfiguration: {
        AllowOrigins: [`https://{${consoleDistribution()[0]}.DomainName}`],
        AllowMethods: ['GET', 'POST', 'PATCH', 'DELETE', 'OPTIONS'],
        AllowHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'X-Environment'],
        ExposeHeaders: CONSOLE_CORS.exposeHeaders,
        AllowCredentials: false,
        MaxAge: 3600,
      },
    });
    expect(JSON.parse(render(cors.Properties.Delete))).toMatchObject({ action: 'DeleteCorsConfiguration', parameters: { ApiId: `{Ref:${apiId}}` } });
    // Its handler may change that one API's CORS, nothing else.
    const statements = rootOf('AWS::IAM::Policy')
      .filter(([id]) => id.startsWith('ApiCors'))
      .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as Statement[]);
    expect(statements.map((st) => [actionsOf(st), render(st.Resource)])).toEqual(
      expect.arrayContaining([
        [['apigateway:PATCH'], `arn:{Ref:AWS::Partition}:apigateway:{Ref:AWS::Region}::/apis/{Ref:${apiId}}`],
        [['apigateway:DELETE'], `arn:{Ref:AWS::Partition}:apigateway:{Ref:AWS::Region}::/apis/{Ref:${apiId}}/cors`],
      ]),
    );
    expect(statements.flatMap(actionsOf).filter((a) => !a.startsWith('logs:'))).toEqual(['apigateway:PATCH', 'apigateway:DELETE']);
  });

  it('attaches no API Gateway authorizer: console tokens and signed keys are checked in the functions', () => {
    for (const [, , a] of s.everywhere('AWS::ApiGatewayV2::Authorizer')) expect(a).toBeUndefined();
    for (const [id, route] of rootOf('AWS::ApiGatewayV2::Route')) expect(route.Properties.AuthorizationType, id).toBe('NONE');
  });

  it("gives every API function the user pool, its client and the console's origin, and no consumer or job", () => {
    const api = [...ROUTE_LIST.map((r) => s.routeFunction(r.id)), rootOf('AWS::Lambda::Function').find(([id]) => id.startsWith('ApiFallback'))![1]];
    for (const fn of api) {
      const vars = fn.Properties.Environment.Variables;
      expect(render(vars.USER_POOL_ID), fn.Properties.Description).toMatch(/^\{Ref:(referenceto\w*)?ConsoleUserPool[0-9A-F]{8}(Ref)?\}$/);
      expect(render(vars.USER_POOL_CLIENT_ID), fn.Properties.Description).toMatch(/^\{Ref:(referenceto\w*)?ConsoleUserPoolConsoleClient\w*\}$/);
      expect(render(vars.CONSOLE_ORIGIN), fn.Properties.Description).toMatch(
        /^https:\/\/\{(Ref:referenceto\w*ConsoleCdn\w*DomainName|ConsoleCdn[0-9A-F]{8}\.DomainName)\}$/,
      );
    }
    const others = rootOf('AWS::Lambda::Function').filter(([id, f]) => isServiceFunction(f) && !id.startsWith('Api'));
    // The consumers, the jobs and the invitation's CustomMessage trigger.
    expect(others.length).toBe(Object.keys(QUEUES).length + JOBS.length + 1);
    for (const [id, f] of others) expect(f.Properties.Environment.Variables, id).not.toHaveProperty('USER_POOL_ID');
  });

  it('lets only the functions of usesIdentity routes reach console users, on that pool, with the actions each declares', () => {
    const admins = ROUTE_LIST.filter((r) => r.usesIdentity?.length);
    expect(admins.find((r) => r.id === 'listTeamMembers')?.usesIdentity).toEqual(['AdminGetUser']);
    expect(admins.find((r) => r.id === 'removeTeamMember')?.usesIdentity).toEqual(['AdminDeleteUser']);
    const holders = s
      .everywhere('AWS::IAM::Policy')
      .filter(([, , p]) => (p.Properties.PolicyDocument.Statement as Statement[]).some((st) => actionsOf(st).some((a) => a.startsWith('cognito-idp:'))))
      .map(([, id]) => id.replace(/FunctionRoleDefaultPolicy[0-9A-F]{8}$/, ''));
    expect(holders.sort()).toEqual(admins.map((r) => r.id).sort());
    for (const r of admins) {
      const grants = s.routeStatements(r.id).filter((st) => actionsOf(st).some((a) => a.startsWith('cognito-idp:')));
      expect(grants, r.id).toHaveLength(1);
      expect(actionsOf(grants[0]!).sort(), r.id).toEqual(r.usesIdentity!.map((a) => `cognito-idp:${a}`).sort());
      expect(render(grants[0]!.Resource)).toMatch(/^\{Ref:referenceto\w*ConsoleUserPool[0-9A-F]{8}Arn\}$/);
    }
  });

  it('outputs the user pool, its client and the console URL', () => {
    const outputs = s.root.toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(outputs.UserPoolId!.Value).toEqual({ Ref: s.root.getResourceId('AWS::Cognito::UserPool') });
    expect(outputs.UserPoolClientId!.Value).toEqual({ Ref: s.root.getResourceId('AWS::Cognito::UserPoolClient') });
    expect(render(outputs.ConsoleUrl!.Value)).toBe(`https://{${consoleDistribution()[0]}.DomainName}/console/`);
  });
});
