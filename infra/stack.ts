import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import { ApiConstruct } from './constructs/api';
import { DataConstruct } from './constructs/data';
import { JobsConstruct } from './constructs/jobs';
import { UploadsConstruct } from './constructs/uploads';
import { WebhooksConstruct } from './constructs/webhooks';

/** The whole service: one stack, one construct per concern. */
export class ServiceStack extends Stack {
  readonly data: DataConstruct;
  readonly api: ApiConstruct;

  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);
    this.data = new DataConstruct(this, 'Data');
    const webhooks = new WebhooksConstruct(this, 'Webhooks', { tables: this.data.tables });
    const uploads = new UploadsConstruct(this, 'Uploads');
    new JobsConstruct(this, 'Jobs', { tables: this.data.tables });
    this.api = new ApiConstruct(this, 'Api', { tables: this.data.tables });
    void webhooks;
    void uploads;
    new CfnOutput(this, 'AccessTableName', { value: this.data.tables.access.tableName });
    new CfnOutput(this, 'DataTableName', { value: this.data.tables.data.tableName });
  }
}
