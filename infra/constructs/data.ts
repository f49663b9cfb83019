import { AttributeType, Billing, TableEncryptionV2, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { TABLES, type TableDef, type TableName } from '../../shared/db/tables';
import { markLocal } from './local-names';
import { RETAINED } from './retained';

/** The DynamoDB tables, from the same definitions the local runtime uses. */
export class DataConstruct extends Construct {
  readonly tables: Record<TableName, TableV2>;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    const make = (def: TableDef) => {
      const table = new TableV2(this, `${def.name[0]!.toUpperCase()}${def.name.slice(1)}Table`, {
        partitionKey: { name: def.partitionKey, type: AttributeType.STRING },
        sortKey: { name: def.sortKey, type: AttributeType.STRING },
        globalSecondaryIndexes: def.indexes.map((i) => ({
          indexName: i.name,
          partitionKey: { name: i.partitionKey, type: AttributeType.STRING },
          sortKey: { name: i.sortKey, type: AttributeType.STRING },
        })),
        timeToLiveAttribute: def.ttlAttribute,
        billing: Billing.onDemand(),
        encryption: TableEncryptionV2.awsManagedKey(),
        pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
        deletionProtection: true,
        removalPolicy: RETAINED,
      });
      markLocal(table, `table:${def.name}`);
      return table;
    };
    this.tables = { access: make(TABLES.access), data: make(TABLES.data) };
  }
}
