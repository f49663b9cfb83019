import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { buildApp } from '../../infra/app';
import { appContext } from '../../infra/feature-flags';
import { ROUTE_LIST } from '../../shared/routes';

export interface Resource {
  Type: string;
  Properties: Record<string, any>;
  DependsOn?: string | string[];
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
}

export interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: unknown;
  Principal?: unknown;
}

/**
 * The service synthesized as `npm run synth` does (cdk.json's feature flags, cdk-nag), without esbuild bundling, unbound or
 * bound to `env` as the CDK CLI binds it from its credentials: the
 * assertions are about the templates, not the bundles. The service stack holds the stateful resources,
 * the API, its routes and the functions' log groups; each feature's route functions are in a nested stack
 * (`routes[tag]`), the request log's consumer and subscription filters in the RequestLogs one, the alarms and
 * dashboard in the Operations one.
 */
export function synthService(context: Record<string, unknown> = {}, env?: { account: string; region: string }) {
  const { app, stack } = buildApp(new App({ context: appContext({ 'aws:cdk:bundling-stacks': [], ...context }) }), env);
  let synthError: unknown;
  try {
    app.synth(); // runs the cdk-nag AwsSolutions validation plugin
  } catch (e) {
    synthError = e;
  }
  const root = Template.fromStack(stack);
  const routes = Object.fromEntries(Object.entries(stack.api.routeStacks).map(([tag, s]) => [tag, Template.fromStack(s)]));
  const operations = Template.fromStack(Stack.of(stack.monitoring));
  const requestLogs = Template.fromStack(Stack.of(stack.requestLogs));
  /** Every template by a readable name: the service stack, `<tag> routes`, request logs, Operations. */
  const templates: Record<string, Template> = {
    service: root,
    ...Object.fromEntries(Object.entries(routes).map(([tag, t]) => [`${tag} routes`, t])),
    'request logs': requestLogs,
    operations,
  };
  /** The resources of one type in every template, as [template name, logical id, resource]. */
  const everywhere = (type: string): [string, string, Resource][] =>
    Object.entries(templates).flatMap(([name, t]) =>
      Object.entries(t.findResources(type)).map(([id, r]): [string, string, Resource] => [name, id, r as Resource]),
    );
  /** The template of a route's function, role, integration and permission. */
  const routeTemplate = (routeId: string) => {
    const route = ROUTE_LIST.find((r) => r.id === routeId);
    if (!route) throw new Error(`no route ${routeId}`);
    const t = routes[route.tag];
    if (!t) throw new Error(`no nested stack for the ${route.tag} routes`);
    return t;
  };
  /** The statements of the role policy of a route's function. */
  const routeStatements = (routeId: string): Statement[] => {
    const entry = Object.entries(routeTemplate(routeId).findResources('AWS::IAM::Policy')).find(([id]) =>
      new RegExp(`^${routeId}FunctionRoleDefaultPolicy[0-9A-F]{8}$`).test(id),
    );
    return entry ? ((entry[1] as Resource).Properties.PolicyDocument.Statement as Statement[]) : [];
  };
  /** A route's function. */
  const routeFunction = (routeId: string): Resource => {
    const entry = Object.entries(routeTemplate(routeId).findResources('AWS::Lambda::Function')).find(([id]) =>
      new RegExp(`^${routeId}Function[0-9A-F]{8}$`).test(id),
    );
    if (!entry) throw new Error(`no function of route ${routeId}`);
    return entry[1] as Resource;
  };
  return { app, stack, synthError, root, routes, operations, requestLogs, templates, everywhere, routeTemplate, routeStatements, routeFunction };
}

export const actionsOf = (s: { Action: string | string[] }) => [s.Action].flat();

/** The service's own functions (ServiceFunction): not CDK's deploy-time handlers (bucket notifications, deployments, custom resources). */
export const isServiceFunction = (r: Resource) => !!r.Properties.Environment?.Variables?.POWERTOOLS_SERVICE_NAME;

/**
 * A CloudFormation value as text, its references as placeholders: `{Ref:Id}`, `{Id.Attr}` (Fn::GetAtt),
 * Fn::Join joined. Enough to read the JSON that CDK's custom resources and policies carry.
 */
export function render(v: unknown): string {
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) return v.map(render).join(',');
  if (v && typeof v === 'object') {
    const o = v as Record<string, any>;
    if ('Fn::Join' in o) return (o['Fn::Join'][1] as unknown[]).map(render).join(o['Fn::Join'][0]);
    if ('Ref' in o) return `{Ref:${o.Ref}}`;
    if ('Fn::GetAtt' in o) return `{${(o['Fn::GetAtt'] as string[]).join('.')}}`;
    if ('Fn::Sub' in o) return String(o['Fn::Sub']);
  }
  return JSON.stringify(v);
}
