// Imported first by the CLIs and the local stack, before any AWS SDK or Powertools module loads.
// The SDK's notice about Node 20 support is for us, not for operators.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
// No X-Ray daemon outside Lambda: the X-Ray SDK stays in manual mode, so it installs no process-wide async hook.
process.env.AWS_XRAY_MANUAL_MODE ??= 'true';
process.env.AWS_XRAY_CONTEXT_MISSING ??= 'IGNORE_ERROR';
// The admin CLI acting on a deployed stack writes no EMF: its stdout is the command's answer.
if (process.env.ADMIN_TARGET === 'aws') process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
// Set again by infra/local/lambda.ts once Lambda's invoke store exists: Powertools modules loaded before
// then (with the variable inherited from a parent process) would look for a store that is not there yet.
delete process.env.AWS_LAMBDA_MAX_CONCURRENCY;
