import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../infra/app';
import { ROUTE_LIST } from '../../shared/routes';
import { TABLES } from '../../shared/tables';

let template: Template;
let synthError: unknown;

beforeAll(() => {
  // Skip esbuild bundling: the assertions are about the template, not the bundles.
  const { app, stack } = buildApp(new App({ context: { 'aws:cdk:bundling-stacks': [] } }));
  try {
    app.synth(); // runs the cdk-nag AwsSolutions validation plugin
  } catch (e) {
    synthError = e;
  }
  template = Template.fromStack(stack);
});

describe('CDK stack', () => {
  it('synthesizes with no unacknowledged cdk-nag finding', () => {
    expect(synthError).toBeUndefined();
  });

  it('has an API Gateway route for every entry of the route table, plus $default', () => {
    const routes = template.findResources('AWS::ApiGatewayV2::Route');
    const keys = Object.values(routes).map((r) => (r as { Properties: { RouteKey: string } }).Properties.RouteKey);
    for (const r of ROUTE_LIST) expect(keys).toContain(`${r.method} ${r.path}`);
    expect(keys).toContain('$default');
  });

  it('runs every function on Node.js 22, arm64', () => {
    const fns = Object.values(template.findResources('AWS::Lambda::Function'));
    expect(fns.length).toBeGreaterThan(ROUTE_LIST.length);
    for (const f of fns) {
      const p = (f as { Properties: { Runtime: string; Architectures: string[] } }).Properties;
      expect(p.Runtime).toBe('nodejs22.x');
      expect(p.Architectures).toEqual(['arm64']);
    }
  });

  it('defines the shared tables with point-in-time recovery, encryption and TTL', () => {
    template.resourceCountIs('AWS::DynamoDB::GlobalTable', Object.keys(TABLES).length);
    for (const def of Object.values(TABLES)) {
      template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
        KeySchema: [
          { AttributeName: def.partitionKey, KeyType: 'HASH' },
          { AttributeName: def.sortKey, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: def.indexes.map((i) => Match.objectLike({ IndexName: i.name })),
        SSESpecification: { SSEEnabled: true },
        TimeToLiveSpecification: { AttributeName: def.ttlAttribute, Enabled: true },
        Replicas: [Match.objectLike({ PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } })],
      });
    }
  });

  it('gives read-only routes read access to the data table, never write', () => {
    // The fallback (404/405) and health functions have no table access at all.
    const policies = Object.values(template.findResources('AWS::IAM::Policy'));
    const fallbackPolicy = policies.find((p) => JSON.stringify(p).includes('FallbackRole'));
    expect(JSON.stringify(fallbackPolicy ?? {})).not.toContain('dynamodb:');
  });

  it('logs API access and keeps function logs with a retention', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', { AccessLogSettings: Match.objectLike({ DestinationArn: Match.anyValue() }) });
    const groups = Object.values(template.findResources('AWS::Logs::LogGroup'));
    for (const g of groups) expect((g as { Properties: { RetentionInDays?: number } }).Properties.RetentionInDays).toBeGreaterThan(0);
  });
});
