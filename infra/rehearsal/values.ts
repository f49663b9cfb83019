import type { StackTemplate } from './assembly';

/**
 * A template value as the text it becomes at deploy time, for the quotas counted in characters (IAM policies,
 * Lambda environments). A reference is replaced by a value at the length AWS gives it: the bound account and region,
 * a generated name at its documented maximum (CloudFormation names a resource `<stack>-<logical id>-<suffix>`,
 * truncated to the service's limit), an ARN built around it. So the sizes are what the deployed documents weigh,
 * or a little more: never less.
 */
export function deployedText(value: unknown, stack: StackTemplate): string {
  if (typeof value === 'string') return value.replace(/\$\{([^}]+)\}/g, (_, name: string) => deployedText({ Ref: name }, stack));
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map((v) => JSON.stringify(deployedText(v, stack))).join(',')}]`;
  if (!value || typeof value !== 'object') return '';
  const o = value as Record<string, unknown>;
  if ('Ref' in o) return ref(String(o.Ref), stack);
  if ('Fn::GetAtt' in o) {
    const [id, attr] = (Array.isArray(o['Fn::GetAtt']) ? o['Fn::GetAtt'] : String(o['Fn::GetAtt']).split('.')) as [string, string];
    return attribute(id, attr, stack);
  }
  if ('Fn::Join' in o) {
    const [sep, parts] = o['Fn::Join'] as [string, unknown[]];
    return (Array.isArray(parts) ? parts : [parts]).map((p) => deployedText(p, stack)).join(sep);
  }
  if ('Fn::Sub' in o) {
    const sub = o['Fn::Sub'];
    const [text, vars] = (Array.isArray(sub) ? sub : [sub, {}]) as [string, Record<string, unknown>];
    return text.replace(/\$\{([^}]+)\}/g, (_, name: string) => (name in vars ? deployedText(vars[name], stack) : deployedText({ Ref: name }, stack)));
  }
  if ('Fn::Select' in o) {
    const [i, list] = o['Fn::Select'] as [number, unknown];
    return Array.isArray(list) ? deployedText(list[Number(i)], stack) : deployedText(list, stack);
  }
  if ('Fn::If' in o) {
    const [, a, b] = o['Fn::If'] as [string, unknown, unknown];
    const [x, y] = [deployedText(a, stack), deployedText(b, stack)];
    return x.length >= y.length ? x : y;
  }
  if ('Fn::ImportValue' in o || 'Fn::GetAZs' in o || 'Fn::Base64' in o || 'Fn::FindInMap' in o) return 'x'.repeat(64);
  return JSON.stringify(Object.fromEntries(Object.entries(o).map(([k, v]) => [k, deployedText(v, stack)])));
}

/** The longest a CloudFormation-generated physical name gets: most services cap names at 64 to 256 characters. */
const GENERATED_NAME = 64;

function ref(name: string, stack: StackTemplate): string {
  switch (name) {
    case 'AWS::AccountId':
      return stack.account;
    case 'AWS::Region':
      return stack.region;
    case 'AWS::Partition':
      return 'aws';
    case 'AWS::URLSuffix':
      return 'amazonaws.com';
    case 'AWS::StackName':
      return stack.root.padEnd(128, 'x').slice(0, 128);
    case 'AWS::StackId':
      return `arn:aws:cloudformation:${stack.region}:${stack.account}:stack/${'x'.repeat(128)}/${'0'.repeat(36)}`;
    case 'AWS::NoValue':
      return '';
  }
  const r = stack.template.Resources?.[name];
  if (!r) return 'x'.repeat(GENERATED_NAME); // a parameter: a value passed down from the parent stack
  // What Ref returns for the types whose Ref is not a bare name.
  if (r.Type === 'AWS::SQS::Queue') return `https://sqs.${stack.region}.amazonaws.com/${stack.account}/${'x'.repeat(80)}`;
  if (r.Type === 'AWS::IAM::ManagedPolicy' || r.Type === 'AWS::SNS::Topic') return arn('service', stack, 'x'.repeat(GENERATED_NAME));
  return 'x'.repeat(GENERATED_NAME);
}

function attribute(id: string, attr: string, stack: StackTemplate): string {
  if (/Arn$/.test(attr)) return arn('service', stack, `resource/${'x'.repeat(GENERATED_NAME)}`);
  if (/Url$|URL$/.test(attr)) return `https://${'x'.repeat(GENERATED_NAME)}.${stack.region}.amazonaws.com/`;
  void id;
  return 'x'.repeat(GENERATED_NAME);
}

const arn = (service: string, stack: StackTemplate, resource: string) => `arn:aws:${service}:${stack.region}:${stack.account}:${resource}`;
