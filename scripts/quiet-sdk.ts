// Imported first by the CLIs: the SDK's notice about Node 20 support is for us, not for operators.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
