/** Keys of the job-run records (access table, docs/architecture.md, "Data model and access patterns"). */
export const jobKeys = {
  /** One record per scheduled job: its first sighting, last start, last success and last failure. */
  run: (jobId: string) => ({ pk: `JOB#${jobId}`, sk: 'RUN' }),
};

/** The run records as dynamodb:LeadingKeys patterns: one job's own, or every job's (the watchdog's first sightings). */
export const jobLeadingKeys = {
  own: (jobId: string) => [`JOB#${jobId}`],
  all: ['JOB#*'],
};
