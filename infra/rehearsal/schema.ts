import { createRequire } from 'node:module';
import { loadAwsServiceSpecSync } from '@aws-cdk/aws-service-spec';
import type { PropertyType, Resource, SpecDatabase, TypeDefinition } from '@aws-cdk/service-spec-types';
import { Ajv, type ValidateFunction } from 'ajv';
import { type Assembly, resourcesOf } from './assembly';
import { type CheckResult, type Finding, finding } from './findings';

/**
 * Every resource's Properties against what AWS publishes of its type, two ways:
 *
 * - **The CloudFormation registry schemas** of the target region, with `@aws/cloudformation-validate`, AWS's
 *   offline validator, in the copy aws-cdk-lib bundles (the npm registry offers only an older beta): the
 *   provider schema of each type (types, required, enums, patterns, lengths, ranges) and whether the type
 *   exists in the region at all.
 * - **`@aws-cdk/aws-service-spec`**, the CDK's database of the same types (types, required properties, enums,
 *   no unknown property), turned into JSON Schema and checked with Ajv. Its database has no patterns or lengths
 *   and knows three US regions only, so it is the second opinion, not the first.
 *
 * An intrinsic function (`{"Ref": ...}`, `{"Fn::...": ...}`) stands for any value: CloudFormation computes it.
 */
export function checkSchemas(assembly: Assembly): CheckResult[] {
  return [registrySchemas(assembly), serviceSpec(assembly)];
}

interface Diagnostic {
  ruleId: string;
  severity: 'FATAL' | 'ERROR' | 'WARN' | 'INFO' | 'DEBUG';
  message: string;
  entity?: { logicalId?: string; resourceType?: string };
  propertyPath?: string;
}
interface CfnValidate {
  SchemaValidator: new () => { schemaCount(): number; validate(t: unknown, region?: string): Diagnostic[]; free(): void };
  TemplateContent: new (content: string, name?: string) => unknown;
  version(): string;
}

/** The validator aws-cdk-lib itself runs at synth, from its own dependencies. */
export function cloudFormationValidate(): CfnValidate {
  const fromCdk = createRequire(createRequire(import.meta.url).resolve('aws-cdk-lib/package.json'));
  return fromCdk('@aws/cloudformation-validate') as CfnValidate;
}

function registrySchemas(assembly: Assembly): CheckResult {
  const check = 'registry schemas';
  const cfn = cloudFormationValidate();
  const validator = new cfn.SchemaValidator();
  const findings: Finding[] = [];
  let resources = 0;
  try {
    for (const s of assembly.stacks) {
      resources += Object.keys(s.template.Resources ?? {}).length;
      for (const d of validator.validate(new cfn.TemplateContent(JSON.stringify(s.template), s.name), s.region)) {
        // INFO is "this property is create-only": true of every first deploy, nothing to act on.
        if (d.severity === 'INFO' || d.severity === 'DEBUG') continue;
        const where = `${s.name} ${d.entity?.logicalId ?? ''}`.trim();
        const level = d.severity === 'WARN' ? 'warning' : 'error';
        findings.push(finding(check, level, where, `${d.ruleId} ${d.entity?.resourceType ?? ''} ${d.propertyPath ?? ''}: ${d.message}`.replace(/ +/g, ' ')));
      }
    }
    return { check, findings, figures: { resources, schemas: validator.schemaCount(), validator: `@aws/cloudformation-validate ${cfn.version()}` } };
  } finally {
    validator.free();
  }
}

const INTRINSIC = { type: 'object', minProperties: 1, maxProperties: 1, propertyNames: { pattern: '^(Ref|Fn::[A-Za-z0-9]+|Condition)$' } };

/** JSON Schemas of the service spec's types, built once per type the templates use. */
class SpecSchemas {
  private readonly db: SpecDatabase = loadAwsServiceSpecSync();
  private readonly ajv = new Ajv({ allErrors: true, strict: false });
  private readonly compiled = new Map<string, ValidateFunction | null>();
  private readonly definitions: Record<string, object> = {};

  validator(type: string): ValidateFunction | null {
    if (!this.compiled.has(type)) {
      const [resource] = this.db.lookup('resource', 'cloudFormationType', 'equals', type) as unknown as Resource[];
      const schema = resource ? { ...this.object(resource.properties), definitions: this.definitions } : null;
      this.compiled.set(type, schema ? this.ajv.compile(schema) : null);
    }
    return this.compiled.get(type)!;
  }

  private object(properties: Resource['properties']): object {
    const required = Object.entries(properties)
      .filter(([, p]) => p.required)
      .map(([n]) => n);
    return {
      type: 'object',
      properties: Object.fromEntries(Object.entries(properties).map(([n, p]) => [n, this.property([p.type, ...(p.previousTypes ?? [])])])),
      ...(required.length ? { required } : {}),
      additionalProperties: false,
    };
  }

  /** A property's current type, or one of its previous ones (CloudFormation still takes them), or an intrinsic. */
  private property(types: PropertyType[]): object {
    return { anyOf: [...types.map((t) => this.type(t)), INTRINSIC] };
  }

  private type(t: PropertyType): object {
    switch (t.type) {
      case 'string':
        return t.allowedValues?.length ? { enum: t.allowedValues } : { type: 'string' };
      case 'date-time':
        return { type: 'string' };
      // CloudFormation takes numbers and booleans written as strings too ("30", "true").
      case 'integer':
        return t.allowedValues?.length
          ? { enum: [...t.allowedValues, ...t.allowedValues.map(String)] }
          : { anyOf: [{ type: 'integer' }, { type: 'string', pattern: '^-?[0-9]+$' }] };
      case 'number':
        return { anyOf: [{ type: 'number' }, { type: 'string', pattern: '^-?[0-9.eE+-]+$' }] };
      case 'boolean':
        return { anyOf: [{ type: 'boolean' }, { enum: ['true', 'false'] }] };
      case 'json':
        return {};
      case 'null':
        return { type: 'null' };
      case 'tag':
        return this.object({ Key: { type: { type: 'string' }, required: true }, Value: { type: { type: 'string' }, required: true } });
      case 'array':
        return { anyOf: [{ type: 'array', items: this.property([t.element]) }, INTRINSIC] };
      case 'map':
        return { type: 'object', additionalProperties: this.property([t.element]) };
      case 'union':
        return { anyOf: t.types.map((u) => this.type(u)) };
      case 'ref': {
        const id = t.reference.$ref;
        if (!this.definitions[id]) {
          this.definitions[id] = {}; // a recursive type refers to itself while it is being built
          const def = this.db.get('typeDefinition', id) as TypeDefinition;
          this.definitions[id] = this.object(def.properties);
        }
        return { $ref: `#/definitions/${id}` };
      }
    }
  }
}

function serviceSpec(assembly: Assembly): CheckResult {
  const check = 'service spec';
  const specs = new SpecSchemas();
  const findings: Finding[] = [];
  let checked = 0;
  const types = new Set<string>();
  for (const [s, id, r] of resourcesOf(assembly)) {
    // Custom resources take whatever their provider takes.
    if (r.Type.startsWith('Custom::') || r.Type === 'AWS::CloudFormation::CustomResource' || r.Type === 'AWS::CDK::Metadata') continue;
    const validate = specs.validator(r.Type);
    if (!validate) {
      findings.push(finding(check, 'error', `${s.name} ${id}`, `${r.Type} is not a resource type of the service spec`));
      continue;
    }
    checked++;
    types.add(r.Type);
    if (validate(r.Properties ?? {})) continue;
    // anyOf reports every branch: the deepest path is where the value is wrong, its messages the types it may have.
    const errors = (validate.errors ?? []).filter((e) => e.keyword !== 'anyOf');
    const deepest = Math.max(...errors.map((e) => e.instancePath.split('/').length));
    const byPath = new Map<string, Set<string>>();
    for (const e of errors.filter((x) => x.instancePath.split('/').length === deepest)) {
      const detail =
        e.keyword === 'additionalProperty' || e.keyword === 'additionalProperties'
          ? `no property ${(e.params as { additionalProperty: string }).additionalProperty}`
          : e.message!;
      byPath.set(e.instancePath, (byPath.get(e.instancePath) ?? new Set()).add(detail));
    }
    for (const [path, messages] of byPath) {
      findings.push(finding(check, 'error', `${s.name} ${id}`, `${r.Type} Properties${path.replace(/\//g, '.')}: ${[...messages].join(', or ')}`));
    }
  }
  return { check, findings, figures: { resources: checked, types: types.size } };
}
