import { CfnOutput, Duration, NestedStack, Stack, Validations } from 'aws-cdk-lib';
import { CfnRoute, type CfnStage, HttpApi, HttpIntegration, HttpIntegrationType, PayloadFormatVersion } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { AwsCustomResource, AwsCustomResourcePolicy, PhysicalResourceId } from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import type { TableName } from '../../shared/db/tables';
import type { RouteDef } from '../../shared/http/route-def';
import { FALLBACK_HANDLER, FALLBACK_USE, grantsOf } from '../../shared/platform/grants';
import { ROUTE_LIST } from '../../shared/routes';
import { CONSOLE_CORS } from '../console-policy';
import { deploymentOf } from '../environments';
import { RETAINED } from './retained';
import { deployTimeHandler, functionLogGroup, type IdentityBinding, ServiceFunction } from './service-function';

/** API Gateway throttling (requests per second, and the burst above it): the whole stage, and each write route. */
export const THROTTLE = { stage: { rate: 1000, burst: 500 }, write: { rate: 200, burst: 100 } };

export interface ApiProps {
  tables: Record<TableName, TableV2>;
  /** Extra bindings per route (queues, buckets), added by other constructs. */
  bindRoute?: (route: RouteDef, fn: ServiceFunction) => void;
}

/** The construct id of the nested stack that holds the functions of a feature (a tag of the route table): "Test helpers" -> TestHelpersRoutes. */
export const routeStackId = (tag: string) =>
  `${tag
    .split(/[^A-Za-z0-9]+/)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('')}Routes`;

/**
 * The HTTP API (payload format 2.0, which carries the raw query string the
 * request signature covers), one Lambda per entry of the route table, and a
 * $default route answering 404/405 in the error shape.
 *
 * CloudFormation takes at most 500 resources per stack: each route's function, role, policy, integration
 * and invoke permission live in one nested stack per feature (the route's tag). What must not move stays
 * in the service stack under the logical ids it always had: the API, its stage, the routes (a route key is
 * unique in an API, so a route made in a nested stack would collide with the old one during the move), and
 * the functions' log groups (their history outlives the functions).
 */
export class ApiConstruct extends Construct {
  readonly api: HttpApi;
  /** One function per route id. */
  readonly functions: Record<string, ServiceFunction> = {};
  readonly fallback: ServiceFunction;
  /** Each route function's log group, by route id (in the service stack). */
  readonly logGroups: Record<string, LogGroup> = {};
  /** The nested stack of each feature's route functions, by tag. */
  readonly routeStacks: Record<string, NestedStack> = {};

  constructor(scope: Construct, id: string, props: ApiProps) {
    super(scope, id);
    const fallback = new ServiceFunction(this, 'Fallback', { entry: FALLBACK_HANDLER, description: '404/405 for unmatched requests' });
    // A key on an unmatched request is authenticated and counted, so the 404 carries its rate-limit headers.
    fallback.useTables(FALLBACK_USE, props.tables);
    this.fallback = fallback;
    this.api = new HttpApi(this, 'HttpApi', {
      description: 'Partner travel booking service API (v1)',
      defaultIntegration: new HttpLambdaIntegration('FallbackIntegration', fallback),
    });

    const accessLogs = new LogGroup(this, 'AccessLogs', { retention: deploymentOf(this).logRetention, removalPolicy: RETAINED });
    const stage = this.api.defaultStage!.node.defaultChild as CfnStage;
    stage.accessLogSettings = {
      destinationArn: accessLogs.logGroupArn,
      format: JSON.stringify({
        requestId: '$context.requestId',
        ip: '$context.identity.sourceIp',
        requestTime: '$context.requestTime',
        httpMethod: '$context.httpMethod',
        routeKey: '$context.routeKey',
        status: '$context.status',
        responseLength: '$context.responseLength',
        integrationLatency: '$context.integrationLatency',
      }),
    };
    // What protects the API in AWS (HTTP APIs take no WAF): stage and route throttling cap the load that
    // reaches the functions, before any key is read; per key, the DynamoDB counters apply the contract's
    // limit, and failed authentications are throttled per key id and per address (shared/platform).
    stage.defaultRouteSettings = { throttlingBurstLimit: THROTTLE.stage.burst, throttlingRateLimit: THROTTLE.stage.rate };
    // Writes do the most work (transactions, signatures, e-mail): each write route has its own, lower ceiling.
    stage.routeSettings = Object.fromEntries(
      // A JSON map in CloudFormation: its keys keep the CloudFormation casing.
      ROUTE_LIST.filter((r) => r.write).map((r) => [
        `${r.method} ${r.path}`,
        { ThrottlingBurstLimit: THROTTLE.write.burst, ThrottlingRateLimit: THROTTLE.write.rate },
      ]),
    );

    for (const route of ROUTE_LIST) {
      const feature = this.routeStack(route.tag);
      // One construct per route in its feature's stack: the names of one route's resources cannot meet another route's.
      const scope = new Construct(feature, route.id);
      const logGroup = functionLogGroup(this, `${route.id}Logs`);
      this.logGroups[route.id] = logGroup;
      const fn = new ServiceFunction(scope, 'Function', {
        entry: route.handler,
        description: `${route.method} ${route.path}`,
        ...(route.timeoutSeconds ? { timeout: Duration.seconds(route.timeoutSeconds) } : {}),
        ...(route.rendersPdf ? { pdfFonts: true, memorySize: 1024 } : {}),
        ...(route.referencePage ? { referencePage: true } : {}),
        ...(route.guidePages ? { guidePages: true } : {}),
        logGroup,
      });
      // What the route's code does to the tables, and the request pipeline's part (shared/platform/grants.ts): nothing more.
      fn.useTables(grantsOf(route).dynamo, props.tables);
      props.bindRoute?.(route, fn);
      // What HttpLambdaIntegration makes, in the feature's stack: the integration and the invoke permission scoped to the route's path.
      const integration = new HttpIntegration(scope, 'Integration', {
        httpApi: this.api,
        integrationType: HttpIntegrationType.AWS_PROXY,
        integrationUri: fn.functionArn,
        payloadFormatVersion: PayloadFormatVersion.VERSION_2_0,
      });
      fn.addPermission('ApiInvoke', {
        principal: new ServicePrincipal('apigateway.amazonaws.com'),
        sourceArn: feature.formatArn({ service: 'execute-api', resource: this.api.apiId, resourceName: `*/*${route.path}` }),
      });
      // The route where HttpApi.addRoutes made it (same construct path, same logical id): a deployed stack updates it in place.
      const cfnRoute = new CfnRoute(new Construct(this.api, `${route.method}${route.path}`), 'Resource', {
        apiId: this.api.apiId,
        routeKey: `${route.method} ${route.path}`,
        authorizationType: 'NONE',
        target: `integrations/${integration.integrationId}`,
      });
      // The stage's route settings name routes by key, and API Gateway refuses a key it does not have yet: a new route first.
      stage.addDependency(cfnRoute);
      this.functions[route.id] = fn;
    }

    Validations.of(this.api).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        'Authentication is done in every handler: API keys are checked against hashes in DynamoDB and live writes carry an HMAC over the raw body, which an API Gateway authorizer cannot see.',
    });
    new CfnOutput(Stack.of(this), 'ApiUrl', { value: `${this.api.apiEndpoint}/v1` });
  }

  /**
   * The console: every API function gets the user pool, its app client and the console's origin (console
   * sessions' tokens are verified in the functions: the same routes take signed API keys, which an API Gateway
   * JWT authorizer would refuse); the routes that administer console users (`usesIdentity`) may do so on that
   * pool; and the API answers CORS for the console's origin only.
   */
  useConsole(identity: IdentityBinding) {
    for (const route of ROUTE_LIST) this.functions[route.id]!.useIdentity(identity, route.usesIdentity);
    this.fallback.useIdentity(identity);
    this.allowOrigin(identity.consoleOrigin);
  }

  /**
   * CORS (the HTTP API's corsConfiguration) for one browser origin, set once the API and that origin exist:
   * the console's CloudFront distribution sends a CSP naming the API, so the API cannot name the distribution
   * in its own template (a circular dependency). A custom resource sets it with UpdateApi after both exist.
   */
  private allowOrigin(origin: string) {
    const stack = Stack.of(this);
    const apiArn = stack.formatArn({ service: 'apigateway', account: '', resource: '/apis', resourceName: this.api.apiId });
    const update = {
      service: 'ApiGatewayV2',
      action: 'UpdateApi',
      parameters: {
        ApiId: this.api.apiId,
        CorsConfiguration: {
          AllowOrigins: [origin],
          AllowMethods: CONSOLE_CORS.methods,
          AllowHeaders: CONSOLE_CORS.headers,
          ExposeHeaders: CONSOLE_CORS.exposeHeaders,
          AllowCredentials: false,
          MaxAge: CONSOLE_CORS.maxAgeSeconds,
        },
      },
      physicalResourceId: PhysicalResourceId.of(`${this.api.apiId}-cors`),
    };
    new AwsCustomResource(this, 'Cors', {
      onCreate: update,
      onUpdate: update,
      onDelete: { service: 'ApiGatewayV2', action: 'DeleteCorsConfiguration', parameters: { ApiId: this.api.apiId } },
      policy: AwsCustomResourcePolicy.fromStatements([
        new PolicyStatement({ actions: ['apigateway:PATCH'], resources: [apiArn] }),
        new PolicyStatement({ actions: ['apigateway:DELETE'], resources: [`${apiArn}/cors`] }),
      ]),
      installLatestAwsSdk: false,
      ...deployTimeHandler(this, 'Cors'),
    });
  }

  private routeStack(tag: string): NestedStack {
    this.routeStacks[tag] ??= new NestedStack(this, routeStackId(tag), {
      description: `Partner travel service, ${tag} routes: their functions, roles, integrations and invoke permissions`,
    });
    return this.routeStacks[tag];
  }
}
