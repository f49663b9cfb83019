import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';

type Item = Record<string, unknown>;
type Values = Record<string, unknown>;
type Names = Record<string, string>;

/**
 * A tiny in-memory table for unit tests of the settlement store's
 * transactions: it applies Put, Update (SET a = :v, ADD a :n, REMOVE a,
 * if_not_exists) and ConditionCheck items all-or-nothing, evaluating the
 * condition forms the stores use (=, AND, OR, attribute_exists /
 * attribute_not_exists). Enough to replay races and crashes between steps
 * deterministically; the integration tests run the same code on DynamoDB Local.
 */
export class FakeTable {
  readonly items = new Map<string, Item>();
  private readonly id = (k: Item) => `${k.pk as string}|${k.sk as string}`;

  get(key: Item): Item | undefined {
    const i = this.items.get(this.id(key));
    return i ? structuredClone(i) : undefined;
  }

  put(item: Item) {
    this.items.set(this.id(item), structuredClone(item));
  }

  query(pk: string, skPrefix = '', filter?: (i: Item) => boolean): Item[] {
    return [...this.items.values()]
      .filter((i) => i.pk === pk && String(i.sk).startsWith(skPrefix) && (!filter || filter(i)))
      .sort((a, b) => String(a.sk).localeCompare(String(b.sk)))
      .map((i) => structuredClone(i));
  }

  private operand(t: string, item: Item | undefined, names: Names, values: Values): unknown {
    t = t.trim();
    if (t.startsWith(':')) return values[t];
    return item?.[names[t] ?? t];
  }

  condition(expr: string | undefined, item: Item | undefined, names: Names = {}, values: Values = {}): boolean {
    if (!expr) return true;
    const or = expr.split(/\s+OR\s+/);
    if (or.length > 1) return or.some((e) => this.condition(e, item, names, values));
    return expr.split(/\s+AND\s+/).every((c) => {
      c = c.trim();
      const fn = /^attribute_(not_)?exists\((\S+)\)$/.exec(c);
      if (fn)
        return fn[1] ? item === undefined || item[names[fn[2]!] ?? fn[2]!] === undefined : item !== undefined && item[names[fn[2]!] ?? fn[2]!] !== undefined;
      const [a, b] = c.split('=');
      return this.operand(a!, item, names, values) === this.operand(b!, item, names, values);
    });
  }

  private update(before: Item | undefined, key: Item, expr: string, names: Names = {}, values: Values = {}): Item {
    const item: Item = { ...(before ?? {}), ...key };
    const sections = expr.split(/\b(SET|ADD|REMOVE)\b/).filter((s) => s.trim());
    for (let i = 0; i < sections.length; i += 2) {
      const kind = sections[i]!.trim();
      const body = sections[i + 1]!;
      for (const part of body.split(/,(?![^(]*\))/)) {
        const p = part.trim();
        if (!p) continue;
        if (kind === 'REMOVE') delete item[names[p] ?? p];
        else if (kind === 'ADD') {
          const [n, v] = p.split(/\s+/) as [string, string];
          item[names[n] ?? n] = ((item[names[n] ?? n] as number) ?? 0) + (values[v] as number);
        } else {
          const [n, rhs] = p.split(/\s*=\s*(.*)/s) as [string, string];
          const ine = /^if_not_exists\((\S+),\s*(\S+)\)$/.exec(rhs.trim());
          const name = names[n] ?? n;
          item[name] = ine ? (item[names[ine[1]!] ?? ine[1]!] ?? values[ine[2]!]) : this.operand(rhs, item, names, values);
        }
      }
    }
    return item;
  }

  /** TransactWriteItems: all or nothing; throws TransactionCanceledException with a reason per item. */
  transact(items: Item[]) {
    const reasons: string[] = [];
    const writes: (() => void)[] = [];
    for (const raw of items) {
      const [op, x] = Object.entries(raw)[0] as [string, Item];
      const key = (op === 'Put' ? { pk: (x.Item as Item).pk, sk: (x.Item as Item).sk } : x.Key) as Item;
      const current = this.items.get(this.id(key));
      const ok = this.condition(x.ConditionExpression as string, current, x.ExpressionAttributeNames as Names, x.ExpressionAttributeValues as Values);
      reasons.push(ok ? 'None' : 'ConditionalCheckFailed');
      if (!ok) continue;
      if (op === 'Put') writes.push(() => this.put(x.Item as Item));
      else if (op === 'Update')
        writes.push(() =>
          this.put(this.update(current, key, x.UpdateExpression as string, x.ExpressionAttributeNames as Names, x.ExpressionAttributeValues as Values)),
        );
    }
    if (reasons.some((r) => r !== 'None')) {
      throw new TransactionCanceledException({ message: 'cancelled', $metadata: {}, CancellationReasons: reasons.map((Code) => ({ Code })) });
    }
    for (const w of writes) w();
  }
}
