import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { FileSystem } from 'aws-cdk-lib';
import { type Assembly, type FileAsset, resourcesOf } from './assembly';
import { type CheckResult, type Finding, finding } from './findings';

/** Lambda's deployment package quotas (Lambda quotas, "Deployment package (.zip file archive) size"). */
export const LAMBDA_PACKAGE = {
  /** Zipped, for direct upload: CloudFormation's functions come from S3, where the same 50 MB applies to the zip. */
  zippedBytes: 50 * 1024 * 1024,
  /** Unzipped, the function and all its layers together. */
  unzippedBytes: 250 * 1024 * 1024,
} as const;

/** ELF e_machine values (the System V ABI's registry) of the two Lambda architectures. */
const ELF_MACHINE: Record<number, string> = { 62: 'x86_64', 183: 'arm64' };

/**
 * What `cdk deploy` uploads: every asset a template names is in the assembly, with the content its hash says; each
 * Lambda package fits Lambda's quotas, has its handler, and carries native binaries of its function's architecture
 * only (sharp's `.node` and libvips, read from their ELF headers).
 */
export function checkAssets(assembly: Assembly): CheckResult {
  const check = 'assets';
  const findings: Finding[] = [];
  const named = new Set<string>();
  for (const s of assembly.stacks) {
    for (const key of JSON.stringify(s.template).match(/[0-9a-f]{64}\.(?:zip|json)/g) ?? []) {
      named.add(key);
      if (!assembly.assets.has(key)) findings.push(finding(check, 'error', s.name, `names the asset ${key}, which no assets manifest of the assembly lists`));
    }
  }
  for (const a of assembly.missingSources)
    findings.push(finding(check, 'error', a.displayName, `its source ${relative(assembly.dir, a.path)} is not in the assembly`));

  let functions = 0;
  let verified = 0;
  let binaries = 0;
  let largest = 0;
  for (const [s, id, r] of resourcesOf(assembly)) {
    if (r.Type !== 'AWS::Lambda::Function') continue;
    const p = r.Properties ?? {};
    const key = (p.Code as { S3Key?: unknown } | undefined)?.S3Key;
    if (typeof key !== 'string') continue; // inline code (ZipFile) or an image
    const asset = assembly.assets.get(key);
    if (!asset || !existsSync(asset.path)) continue; // reported above
    functions++;
    const where = `${s.name} ${id}`;
    const arch = ((p.Architectures as string[] | undefined) ?? ['x86_64'])[0]!;
    const layers = ((p.Layers as unknown[] | undefined) ?? []).map((l) => layerAsset(assembly, s.template.Resources, l)).filter((l): l is FileAsset => !!l);
    const pkg = packageOf(asset);
    const unzipped = pkg.unzipped + layers.reduce((n, l) => n + packageOf(l).unzipped, 0);
    largest = Math.max(largest, unzipped);
    if (unzipped > LAMBDA_PACKAGE.unzippedBytes)
      findings.push(finding(check, 'error', where, `${mb(unzipped)} unzipped with its layers: Lambda takes at most ${mb(LAMBDA_PACKAGE.unzippedBytes)}`));
    const zipped = pkg.zipped();
    if (zipped > LAMBDA_PACKAGE.zippedBytes)
      findings.push(finding(check, 'error', where, `${mb(zipped)} zipped: Lambda takes at most ${mb(LAMBDA_PACKAGE.zippedBytes)}`));
    if (asset.packaging === 'zip' && r.Metadata?.['aws:asset:is-bundled'] === true) {
      // A bundle's hash is the fingerprint of its output: anything that changed it after synthesis shows.
      if (FileSystem.fingerprint(asset.path) === asset.hash) verified++;
      else
        findings.push(
          finding(check, 'error', where, `its bundle ${relative(assembly.dir, asset.path)} no longer has the content its hash ${asset.hash.slice(0, 12)} says`),
        );
    }
    const handler = typeof p.Handler === 'string' ? p.Handler : undefined;
    if (handler && typeof p.Runtime === 'string' && p.Runtime.startsWith('nodejs') && asset.packaging === 'zip') {
      const missing = nodeHandlerMissing(asset.path, handler);
      if (missing) findings.push(finding(check, 'error', where, missing));
    }
    if (asset.packaging === 'zip') {
      for (const file of filesUnder(asset.path).filter((f) => /\.node$|\.so(\.\d+)*$/.test(f))) {
        binaries++;
        const machine = elfMachine(file);
        if (machine !== arch) {
          findings.push(
            finding(check, 'error', where, `${relative(asset.path, file)} is built for ${machine ?? 'no ELF machine'}; the function runs on ${arch}`),
          );
        }
      }
    }
  }
  return {
    check,
    findings,
    figures: { 'assets named': named.size, functions, 'bundles verified': verified, 'native binaries': binaries, 'largest unzipped': mb(largest) },
  };
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : e.isFile() ? [join(dir, e.name)] : []));
}

/** A package's unzipped size, and its zipped size computed only when it matters (deflating is the slow part). */
function packageOf(asset: FileAsset): { unzipped: number; zipped: () => number } {
  if (asset.packaging === 'zip') {
    const files = filesUnder(asset.path);
    const unzipped = files.reduce((n, f) => n + statSync(f).size, 0);
    return {
      unzipped,
      // A zip's size: each file deflated, plus its local and central headers (30 + 46 bytes and its name twice).
      zipped: () =>
        unzipped <= LAMBDA_PACKAGE.zippedBytes
          ? unzipped
          : files.reduce((n, f) => n + deflateRawSync(readFileSync(f)).length + 76 + 2 * Buffer.byteLength(relative(asset.path, f)), 22),
    };
  }
  const bytes = statSync(asset.path).size;
  return { unzipped: asset.path.endsWith('.zip') ? zipUncompressedSize(asset.path) : bytes, zipped: () => bytes };
}

/** The uncompressed size of a zip file's entries, from its central directory (APPNOTE.TXT 4.3.12, 4.3.16). */
export function zipUncompressedSize(file: string): number {
  const buf = readFileSync(file);
  const eocd = buf.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0) return buf.length;
  const entries = buf.readUInt16LE(eocd + 10);
  let at = buf.readUInt32LE(eocd + 16);
  let total = 0;
  for (let i = 0; i < entries && buf.readUInt32LE(at) === 0x02014b50; i++) {
    total += buf.readUInt32LE(at + 24);
    at += 46 + buf.readUInt16LE(at + 28) + buf.readUInt16LE(at + 30) + buf.readUInt16LE(at + 32);
  }
  return total;
}

function layerAsset(
  assembly: Assembly,
  resources: Record<string, { Type: string; Properties?: Record<string, unknown> }>,
  layer: unknown,
): FileAsset | undefined {
  const id = (layer as { Ref?: string }).Ref;
  const key = id ? (resources[id]?.Properties?.Content as { S3Key?: string } | undefined)?.S3Key : undefined;
  return key ? assembly.assets.get(key) : undefined;
}

/** What is wrong with a Node.js handler setting (`dir/file.export`) for a package: nothing, or why Lambda cannot load it. */
export function nodeHandlerMissing(dir: string, handler: string): string | undefined {
  const dot = handler.lastIndexOf('.');
  const [module, name] = [handler.slice(0, dot), handler.slice(dot + 1)];
  const file = ['.js', '.mjs', '.cjs'].map((ext) => join(dir, module + ext)).find(existsSync);
  if (!file) return `its handler ${handler} names ${module}.js (or .mjs, .cjs), which the package does not have`;
  if (!readFileSync(file, 'utf8').includes(name)) return `its handler ${handler}: ${relative(dir, file)} never mentions ${name}`;
  return undefined;
}

/** The architecture an ELF file is built for (its e_machine), or undefined when it is not an ELF file. */
export function elfMachine(file: string): string | undefined {
  const fd = openSync(file, 'r');
  try {
    const h = Buffer.alloc(20);
    if (readSync(fd, h, 0, 20, 0) < 20 || h.readUInt32BE(0) !== 0x7f454c46) return undefined;
    const machine = h[5] === 2 ? h.readUInt16BE(18) : h.readUInt16LE(18); // EI_DATA: 1 little-endian, 2 big-endian
    return ELF_MACHINE[machine] ?? `machine 0x${machine.toString(16)}`;
  } finally {
    closeSync(fd);
  }
}
