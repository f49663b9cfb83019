import './quiet-sdk';
import { runCli } from './admin/cli';

process.exitCode = await runCli(process.argv.slice(2));
