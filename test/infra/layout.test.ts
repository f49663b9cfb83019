import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { routeStackId } from '../../infra/constructs/api';
import { ROUTE_LIST } from '../../shared/routes';
import { type Resource, synthService } from './synth';

/**
 * The logical ids of the service stack's stateful resources, its API, routes and log groups, and of the
 * Operations stack's key and topic, as `npm run synth` wrote them before the route functions moved to
 * nested stacks (commit da78160). A deployed stack keeps a resource only if its logical id stays.
 */
const BEFORE = JSON.parse(readFileSync(join(import.meta.dirname, 'logical-ids.before-nested.json'), 'utf8')) as {
  service: Record<string, string[]>;
  operations: Record<string, string[]>;
  routeKeys: Record<string, string>;
};

/** Every stack must stay well under CloudFormation's 500 resources, with room for the features to come. */
const MAX_RESOURCES = 450;

let s: ReturnType<typeof synthService>;
beforeAll(() => {
  s = synthService();
});

const count = (name: string) => Object.keys(s.templates[name]!.toJSON().Resources).length;

describe('stack layout', () => {
  it(`keeps every stack, the service stack and each nested stack, under ${MAX_RESOURCES} resources`, () => {
    const counts = Object.fromEntries(Object.keys(s.templates).map((name) => [name, count(name)]));
    expect(Object.keys(counts)).toEqual(expect.arrayContaining(['service', 'operations', ...new Set(ROUTE_LIST.map((r) => `${r.tag} routes`))]));
    for (const [name, n] of Object.entries(counts)) expect(n, name).toBeLessThan(MAX_RESOURCES);
  });

  it('keeps the logical ids of the tables, buckets, queues, API, stage, routes and log groups in the service stack', () => {
    for (const [type, ids] of Object.entries(BEFORE.service)) {
      const now = s.root.findResources(type);
      for (const id of ids) expect(now[id]?.Type, `${type} ${id}`).toBe(type);
    }
    for (const [type, ids] of Object.entries(BEFORE.operations)) {
      const now = s.operations.findResources(type);
      for (const id of ids) expect(now[id]?.Type, `${type} ${id}`).toBe(type);
    }
    // The tables by name: the assertion that matters most.
    expect(Object.keys(s.root.findResources('AWS::DynamoDB::GlobalTable')).sort()).toEqual(['DataAccessTableCB8FE94B', 'DataDataTable1136A930']);
  });

  it('keeps each route under its logical id with its route key (a route key is unique in an API: a new route would collide with it)', () => {
    const routes = s.root.findResources('AWS::ApiGatewayV2::Route');
    for (const [id, key] of Object.entries(BEFORE.routeKeys)) expect((routes[id] as Resource | undefined)?.Properties.RouteKey, id).toBe(key);
    for (const nested of Object.values(s.routes)) expect(nested.findResources('AWS::ApiGatewayV2::Route')).toEqual({});
  });

  it('retains the tables and buckets, deletion-protects the tables', () => {
    for (const [id, t] of Object.entries(s.root.findResources('AWS::DynamoDB::GlobalTable'))) {
      expect((t as Resource).DeletionPolicy, id).toBe('RetainExceptOnCreate');
      expect((t as Resource).Properties.Replicas[0].DeletionProtectionEnabled, id).toBe(true);
    }
    for (const [id, b] of Object.entries(s.root.findResources('AWS::S3::Bucket'))) expect((b as Resource).DeletionPolicy, id).toBe('RetainExceptOnCreate');
  });

  it('puts the stateful resources in the service stack only', () => {
    for (const type of ['AWS::DynamoDB::GlobalTable', 'AWS::S3::Bucket', 'AWS::SQS::Queue', 'AWS::Cognito::UserPool', 'AWS::KMS::Key']) {
      for (const [name, id] of s.everywhere(type)) {
        // The on-call topic's key was in the Operations nested stack from the start.
        if (type === 'AWS::KMS::Key' && name === 'operations') continue;
        expect(name, `${type} ${id}`).toBe('service');
      }
    }
  });

  it("puts each route's function, role, integration and invoke permission in its feature's nested stack", () => {
    expect(Object.keys(s.routes).sort()).toEqual([...new Set(ROUTE_LIST.map((r) => r.tag))].sort());
    for (const [tag, t] of Object.entries(s.routes)) {
      const routes = ROUTE_LIST.filter((r) => r.tag === tag);
      expect(Object.keys(t.findResources('AWS::Lambda::Function')), tag).toHaveLength(routes.length);
      expect(Object.keys(t.findResources('AWS::ApiGatewayV2::Integration')), tag).toHaveLength(routes.length);
      expect(Object.keys(t.findResources('AWS::Lambda::Permission')), tag).toHaveLength(routes.length);
      for (const r of routes) {
        s.routeFunction(r.id);
        t.hasResourceProperties('AWS::Lambda::Permission', {
          Principal: 'apigateway.amazonaws.com',
          SourceArn: { 'Fn::Join': ['', Match.arrayWith([`/*/*${r.path}`])] },
        });
      }
    }
    // In the service stack, only the $default route's fallback and its permission remain of the API's functions.
    expect(Object.keys(s.root.findResources('AWS::ApiGatewayV2::Integration'))).toHaveLength(1);
    for (const r of ROUTE_LIST) expect(Object.keys(s.root.findResources('AWS::Lambda::Function')).some((id) => id.startsWith(`Api${r.id}`))).toBe(false);
  });

  it("points each route at its integration in its feature's nested stack", () => {
    const nestedStacks = s.root.findResources('AWS::CloudFormation::Stack');
    const routes = Object.values(s.root.findResources('AWS::ApiGatewayV2::Route')) as Resource[];
    for (const r of ROUTE_LIST) {
      const route = routes.find((x) => x.Properties.RouteKey === `${r.method} ${r.path}`);
      const target = JSON.stringify(route?.Properties.Target);
      const stackId = Object.keys(nestedStacks).find((id) => id.startsWith(`Api${routeStackId(r.tag)}NestedStack`));
      expect(stackId, r.tag).toBeDefined();
      expect(target, r.id).toContain(`"Fn::GetAtt":["${stackId}","Outputs.`);
      expect(target, r.id).toContain(`${r.id}Integration`);
    }
  });

  it("writes each route function's logs to its log group of the service stack, whose history stays", () => {
    const groups = Object.keys(s.root.findResources('AWS::Logs::LogGroup'));
    for (const r of ROUTE_LIST) {
      const group = groups.find((id) => new RegExp(`^Api${r.id}Logs[0-9A-F]{8}$`).test(id));
      expect(group, r.id).toBeDefined();
      const logConfig = JSON.stringify(s.routeFunction(r.id).Properties.LoggingConfig);
      expect(logConfig, r.id).toMatch(new RegExp(`"Ref":"referenceto\\w*Api${r.id}Logs\\w*Ref"`));
    }
  });
});
