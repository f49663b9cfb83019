import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { CloudAssembly } from 'aws-cdk-lib/cx-api';

/** Set by `npm run rehearse` only: the other regions it rehearses and the directory of each one's assembly, as JSON. */
export const REHEARSAL_REGIONS_VAR = 'REHEARSAL_REGIONS';

/**
 * The rehearsal's other regions, synthesized by the app's own process before its bound region, each as that one
 * (the CLI's context and output directory, the CLI's account, `synth`), then moved to its own directory with the
 * assets linked there. The CDK stages an asset once per process and output directory (AssetStaging's cache keys on
 * the source, the bundling options and the output directory), so each function is bundled once for all regions.
 * What the CLI refuses once the app has run is refused here too: an error annotation, a missing context value.
 */
export function synthOtherRegions(vars: NodeJS.ProcessEnv, synth: (env: { account: string; region: string }) => CloudAssembly): void {
  const regions = JSON.parse(vars[REHEARSAL_REGIONS_VAR] || '{}') as Record<string, string>;
  if (!Object.keys(regions).length) return;
  const { CDK_OUTDIR: outdir, CDK_DEFAULT_ACCOUNT: account } = vars;
  if (!outdir || !account) throw new Error(`${REHEARSAL_REGIONS_VAR} needs the CDK CLI's output directory (CDK_OUTDIR) and a bound account`);
  for (const [region, dir] of Object.entries(regions)) {
    const assembly = synth({ account, region });
    const refused = assembly.stacks.flatMap((s) => s.messages.filter((m) => m.level === 'error').map((m) => `${m.id}: ${String(m.entry.data)}`));
    if (assembly.manifest.missing?.length) refused.push(`missing context: ${assembly.manifest.missing.map((m) => m.key).join(', ')}`);
    if (refused.length) throw new Error(`${region}:\n${refused.join('\n')}`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    // The assets stay where the next synth finds them staged; the rest is this region's.
    for (const name of readdirSync(outdir)) {
      if (!name.startsWith('asset.')) renameSync(join(outdir, name), join(dir, name));
      else if (!existsSync(join(dir, name))) symlinkSync(join(outdir, name), join(dir, name));
    }
  }
}
