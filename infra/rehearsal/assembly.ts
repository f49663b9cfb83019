import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** A CloudFormation template as the CDK writes it. */
export interface Template {
  Description?: string;
  Parameters?: Record<string, unknown>;
  Mappings?: Record<string, Record<string, unknown>>;
  Conditions?: Record<string, unknown>;
  Outputs?: Record<string, unknown>;
  Resources: Record<string, CfnResource>;
}

export interface CfnResource {
  Type: string;
  Properties?: Record<string, unknown>;
  Metadata?: Record<string, unknown>;
  DependsOn?: string | string[];
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
  Condition?: string;
}

/** One template of the assembly: a stack the CLI deploys, or a nested stack one of them creates. */
export interface StackTemplate {
  /** The stack's name (a nested one: `<parent>/<logical id>`). */
  name: string;
  /** The deployed stack it belongs to (its own name for a top-level stack). */
  root: string;
  file: string;
  bytes: number;
  template: Template;
  account: string;
  region: string;
  /** 0 for a stack the CLI deploys, 1 for one it nests, and so on. */
  depth: number;
  /** The template and the AWS::CloudFormation::Stack resource that create a nested stack. */
  parent?: { stack: StackTemplate; id: string };
}

/** A file asset of an assets manifest: what `cdk deploy` uploads before CloudFormation reads it. */
export interface FileAsset {
  hash: string;
  /** Absolute path of its source in the assembly. */
  path: string;
  packaging: 'zip' | 'file';
  objectKey: string;
  bucketName: string;
  displayName: string;
}

export interface Assembly {
  dir: string;
  /** Every template, the top-level stacks first, each followed by its nested stacks. */
  stacks: StackTemplate[];
  /** The file assets by their object key in the assets bucket. */
  assets: Map<string, FileAsset>;
  /** Asset object keys the assembly's manifests list whose source is missing. */
  missingSources: FileAsset[];
}

interface Manifest {
  artifacts: Record<string, { type: string; environment?: string; properties?: { templateFile?: string; file?: string } }>;
}

interface AssetsManifest {
  files?: Record<
    string,
    { displayName?: string; source: { path: string; packaging?: 'zip' | 'file' }; destinations: Record<string, { bucketName: string; objectKey: string }> }
  >;
}

const readJson = <T>(file: string): T => JSON.parse(readFileSync(file, 'utf8')) as T;

/** Reads a cloud assembly (`cdk synth -o DIR`): its stacks, their nested stacks, and its file assets. */
export function readAssembly(dir: string): Assembly {
  const manifest = readJson<Manifest>(join(dir, 'manifest.json'));
  const assets = new Map<string, FileAsset>();
  const missingSources: FileAsset[] = [];
  for (const a of Object.values(manifest.artifacts).filter((x) => x.type === 'cdk:asset-manifest')) {
    const files = readJson<AssetsManifest>(join(dir, a.properties!.file!)).files ?? {};
    for (const [hash, f] of Object.entries(files)) {
      for (const d of Object.values(f.destinations)) {
        const asset: FileAsset = {
          hash,
          path: join(dir, f.source.path),
          packaging: f.source.packaging ?? 'file',
          objectKey: d.objectKey,
          bucketName: d.bucketName,
          displayName: f.displayName ?? f.source.path,
        };
        assets.set(d.objectKey, asset);
        if (!existsSync(asset.path)) missingSources.push(asset);
      }
    }
  }
  const stacks: StackTemplate[] = [];
  for (const [name, a] of Object.entries(manifest.artifacts)) {
    if (a.type !== 'aws:cloudformation:stack') continue;
    const env = /^aws:\/\/([^/]+)\/(.+)$/.exec(a.environment ?? '');
    if (!env) throw new Error(`stack ${name} has no environment in the assembly's manifest`);
    const [, account, region] = env as unknown as [string, string, string];
    const add = (stackName: string, file: string, depth: number, parent?: StackTemplate['parent']) => {
      const template = readJson<Template>(file);
      const stack: StackTemplate = {
        name: stackName,
        root: name,
        file,
        bytes: statSync(file).size,
        template,
        account,
        region,
        depth,
        ...(parent ? { parent } : {}),
      };
      stacks.push(stack);
      for (const [id, r] of Object.entries(template.Resources ?? {})) {
        const nested = r.Type === 'AWS::CloudFormation::Stack' ? r.Metadata?.['aws:asset:path'] : undefined;
        if (typeof nested === 'string') add(`${stackName}/${id}`, join(dir, nested), depth + 1, { stack, id });
      }
    };
    add(name, join(dir, a.properties!.templateFile!), 0);
  }
  return { dir, stacks, assets, missingSources };
}

/** Every resource of every template, with its template. */
export function* resourcesOf(assembly: Assembly): Generator<[StackTemplate, string, CfnResource]> {
  for (const s of assembly.stacks) for (const [id, r] of Object.entries(s.template.Resources ?? {})) yield [s, id, r];
}

/**
 * The resource a value refers to (`{"Ref": id}`, `{"Fn::GetAtt": [id, ...]}`), following a nested stack's
 * parameter up to the value its parent passes; undefined for anything else.
 */
export function referencedResource(stack: StackTemplate, value: unknown): { stack: StackTemplate; id: string; resource: CfnResource } | undefined {
  const o = value as { Ref?: unknown; 'Fn::GetAtt'?: unknown } | undefined;
  const id = typeof o?.Ref === 'string' ? o.Ref : Array.isArray(o?.['Fn::GetAtt']) ? String(o['Fn::GetAtt'][0]) : undefined;
  if (!id) return undefined;
  const resource = stack.template.Resources?.[id];
  if (resource) return { stack, id, resource };
  if (stack.parent && stack.template.Parameters?.[id]) {
    const passed = (stack.parent.stack.template.Resources[stack.parent.id]?.Properties?.Parameters as Record<string, unknown> | undefined)?.[id];
    return referencedResource(stack.parent.stack, passed);
  }
  return undefined;
}
