import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { QUEUES } from '../shared/queues';
import { ApiConstruct } from './constructs/api';
import { DataConstruct } from './constructs/data';
import { JobsConstruct } from './constructs/jobs';
import { MonitoringConstruct } from './constructs/monitoring';
import { UploadsConstruct } from './constructs/uploads';
import { WebhooksConstruct } from './constructs/webhooks';

/** The whole service: one stack, one construct per concern. */
export class ServiceStack extends Stack {
  readonly data: DataConstruct;
  readonly api: ApiConstruct;
  readonly monitoring: MonitoringConstruct;

  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);
    this.data = new DataConstruct(this, 'Data');
    const webhooks = new WebhooksConstruct(this, 'Webhooks', { tables: this.data.tables });
    const events = { queue: webhooks.queues.webhooks!, envVar: QUEUES.webhooks!.envVar, access: 'send' as const };
    new UploadsConstruct(this, 'Uploads');
    // Jobs record events (completion, refresh) and the sweeper re-drives deliveries.
    const jobs = new JobsConstruct(this, 'Jobs', { tables: this.data.tables, queues: [events] });
    this.api = new ApiConstruct(this, 'Api', {
      tables: this.data.tables,
      bindRoute: (route, fn) => {
        if (route.publishesEvents) fn.bind({ queues: [events] });
      },
    });
    this.monitoring = new MonitoringConstruct(this, 'Monitoring', {
      api: this.api.api,
      routeFunctions: this.api.functions,
      fallback: this.api.fallback,
      queues: webhooks.queues,
      dlqs: webhooks.dlqs,
      consumers: webhooks.consumers,
      jobFunctions: jobs.functions,
      tables: this.data.tables,
    });
    new CfnOutput(this, 'AccessTableName', { value: this.data.tables.access.tableName });
    new CfnOutput(this, 'DataTableName', { value: this.data.tables.data.tableName });
  }
}
