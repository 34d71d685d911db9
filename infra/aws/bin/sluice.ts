/**
 * The CDK app: `npx cdk synth` / `npx cdk deploy` from infra/aws. Settings come from context
 * (lib/settings.ts); `-c account=… -c region=…` pins the environment, otherwise the stack is
 * environment-agnostic and deploys wherever the CLI's credentials point.
 */
import { App } from 'aws-cdk-lib';
import { readSettings } from '../lib/settings.ts';
import { SluiceStack } from '../lib/sluice-stack.ts';

const app = new App();
const account = app.node.tryGetContext('account') as string | undefined;
const region = app.node.tryGetContext('region') as string | undefined;
const stackName = (app.node.tryGetContext('stackName') as string | undefined) ?? 'Sluice';

new SluiceStack(app, stackName, {
  description: 'Sluice: durable ingestion into object-storage tables',
  env: account && region ? { account, region } : undefined,
  settings: readSettings(app.node),
});

app.synth();
