import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

/**
 * A Java client generated from the OpenAPI document, as a bank generates it
 * (openapi-generator-plus, the JAX-RS client generator, its defaults), then
 * compiled with javac against Debian's jars: the test that the document stays
 * usable from Java (test/unit/openapi-java.test.ts).
 *
 *   node --import tsx scripts/java-client.ts openapi.json out-dir
 *
 * The generator's pom asks for newer APIs than Debian 12 packages; CI reaches
 * only npm and Debian, so the few spellings that differ are rewritten to the
 * packaged versions' (REWRITES), and ApiProviders.java, whose text does not
 * depend on the document, is left out (NOT_COMPILED).
 */

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '..');
const JARS_DIR = '/usr/share/java';

/** The jars the generated sources compile against, and the Debian package of each. */
export const JAVA_CLIENT_JARS: { jar: string; pkg: string; what: string }[] = [
  { jar: 'jaxrs-api.jar', pkg: 'libjaxrs-api-java', what: 'javax.ws.rs (JAX-RS 2.1)' },
  { jar: 'jaxb-api.jar', pkg: 'libjaxb-api-java', what: 'javax.xml.bind (enums)' },
  { jar: 'jackson-annotations.jar', pkg: 'libjackson2-annotations-java', what: 'com.fasterxml.jackson.annotation' },
  // What the client's JAX-RS JSON provider reads responses with: the journey (runJavaJourney) reads error bodies with it.
  { jar: 'jackson-databind.jar', pkg: 'libjackson2-databind-java', what: 'com.fasterxml.jackson.databind (ObjectMapper)' },
  { jar: 'jackson-core.jar', pkg: 'libjackson2-core-java', what: 'com.fasterxml.jackson.core (the parser databind reads with)' },
  { jar: 'geronimo-validation-1.1-spec.jar', pkg: 'libgeronimo-validation-1.1-spec-java', what: 'javax.validation (Bean Validation 1.1)' },
  { jar: 'hibernate-validator.jar', pkg: 'libhibernate-validator-java', what: '@Email, standard only from Bean Validation 2.0' },
  { jar: 'geronimo-annotation-1.3-spec.jar', pkg: 'libgeronimo-annotation-1.3-spec-java', what: 'javax.annotation.Generated (gone from JDK 11)' },
  { jar: 'swagger-annotations.jar', pkg: 'libswagger-core-java', what: 'io.swagger.v3.oas.annotations (2.1)' },
];

export const javaClientJarsMissing = (): string[] => JAVA_CLIENT_JARS.filter((j) => !existsSync(join(JARS_DIR, j.jar))).map((j) => j.pkg);

/** What the generator writes for newer APIs, in the spelling of the versions Debian packages. */
const REWRITES: [RegExp, string][] = [
  // Schema.requiredMode is swagger-annotations 2.2; 2.1 says required.
  [/requiredMode = io\.swagger\.v3\.oas\.annotations\.media\.Schema\.RequiredMode\.REQUIRED\b/g, 'required = true'],
  [/requiredMode = io\.swagger\.v3\.oas\.annotations\.media\.Schema\.RequiredMode\.NOT_REQUIRED\b/g, 'required = false'],
  // javax.validation.constraints.Email is Bean Validation 2.0; before it, Hibernate Validator's.
  [/@javax\.validation\.constraints\.Email\b/g, '@org.hibernate.validator.constraints.Email'],
];

/** Its Jackson provider needs jackson-datatype-jdk8 and -jsr310, which Debian does not package; no generated class uses it. */
const NOT_COMPILED = 'ApiProviders.java';

const javaFiles = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? javaFiles(path) : name.endsWith('.java') ? [path] : [];
  });

export interface JavaCompile {
  /** Generated .java files, and how many were compiled. */
  generated: number;
  compiled: number;
  /** javac's error lines (`File.java:12: error: ...`); empty when the client compiles. */
  errors: string[];
}

/** Generates the client of `documentPath` into `dir`/src and compiles it into `dir`/classes with one javac run. */
export async function compileJavaClient(documentPath: string, dir: string): Promise<JavaCompile> {
  const src = join(dir, 'src');
  await run(
    process.execPath,
    [join(ROOT, 'node_modules/openapi-generator-plus/bin/ogplus.js'), '-g', '@openapi-generator-plus/java-jaxrs-client-generator', '-o', src, documentPath],
    { cwd: ROOT, maxBuffer: 64 << 20 },
  );
  const files = javaFiles(src);
  if (!files.some((f) => f.endsWith(`/${NOT_COMPILED}`))) throw new Error(`the generator wrote no ${NOT_COMPILED}: revisit NOT_COMPILED`);
  const compiled = files.filter((f) => !f.endsWith(`/${NOT_COMPILED}`));
  for (const f of compiled) {
    const text = readFileSync(f, 'utf8');
    const rewritten = REWRITES.reduce((t, [from, to]) => t.replace(from, to), text);
    if (rewritten !== text) writeFileSync(f, rewritten);
  }
  writeFileSync(join(dir, 'sources.txt'), compiled.join('\n'));
  const classpath = JAVA_CLIENT_JARS.map((j) => join(JARS_DIR, j.jar)).join(':');
  const args = [
    '-J-Xmx1g',
    '-J-XX:TieredStopAtLevel=1',
    '-nowarn',
    '-Xmaxerrs',
    '100000',
    '-proc:none',
    '-d',
    join(dir, 'classes'),
    '-cp',
    classpath,
    '@sources.txt',
  ];
  const out = await run('javac', args, { cwd: dir, maxBuffer: 64 << 20 }).then(
    (r) => r.stderr,
    (e: { stderr?: string; code?: unknown }) => {
      if (typeof e.code !== 'number') throw e;
      return e.stderr ?? '';
    },
  );
  return { generated: files.length, compiled: compiled.length, errors: out.split('\n').filter((l) => / error: /.test(l)) };
}

/**
 * Reads answers of the service with the compiled client's model classes as its JAX-RS provider does
 * (Jackson's ObjectMapper, its defaults: an unknown property or a value of the wrong shape throws), each
 * `{ file, model }` a body on disk and the generated class it is read as (the class of its typed exception).
 * Journey.java prints `model <TAB> Jackson's toString of what it read` per body, or the exception's class and message.
 */
export async function runJavaJourney(dir: string, reads: { file: string; model: string }[]): Promise<string[]> {
  const classpath = [join(dir, 'classes'), ...JAVA_CLIENT_JARS.map((j) => join(JARS_DIR, j.jar))].join(':');
  const source = `import com.fasterxml.jackson.databind.ObjectMapper;
public class Journey {
  public static void main(String[] args) throws Exception {
    ObjectMapper mapper = new ObjectMapper();
    for (int i = 0; i + 1 < args.length; i += 2) {
      try {
        Object read = mapper.readValue(new java.io.File(args[i]), Class.forName(args[i + 1]));
        System.out.println(args[i + 1] + "\\t" + mapper.writeValueAsString(read));
      } catch (Exception e) {
        System.out.println(args[i + 1] + "\\t" + e.getClass().getName() + ": " + e.getMessage().split("\\n")[0]);
      }
    }
  }
}
`;
  writeFileSync(join(dir, 'Journey.java'), source);
  await run('javac', ['-nowarn', '-proc:none', '-d', join(dir, 'journey'), '-cp', classpath, join(dir, 'Journey.java')], { cwd: dir });
  const args = reads.flatMap((r) => [r.file, r.model]);
  const { stdout } = await run('java', ['-cp', `${join(dir, 'journey')}:${classpath}`, 'Journey', ...args], { cwd: dir, maxBuffer: 16 << 20 });
  return stdout.trim().split('\n');
}

if (process.argv[1] && /java-client\.ts$/.test(process.argv[1])) {
  const [doc, dir] = process.argv.slice(2);
  if (!doc || !dir) {
    process.stderr.write('usage: node --import tsx scripts/java-client.ts openapi.json out-dir\n');
    process.exitCode = 2;
  } else {
    const r = await compileJavaClient(resolve(doc), resolve(dir));
    process.stdout.write(`${r.errors.join('\n')}\n${r.compiled} of ${r.generated} files compiled, ${r.errors.length} errors\n`);
    process.exitCode = r.errors.length ? 1 : 0;
  }
}
