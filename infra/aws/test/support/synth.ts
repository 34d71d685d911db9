/**
 * Synthesizes the Sluice stack for assertions, offline: the images' build contexts are only
 * staged (no Docker), nothing is looked up.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { SluiceStack, type SluiceStackProps } from '../../lib/sluice-stack.ts';

export interface Synthesized {
  stack: SluiceStack;
  template: Template;
  /** The cloud assembly directory (assets staged here); removed by `cleanup`. */
  outdir: string;
  cleanup(): void;
}

export interface SynthOptions extends SluiceStackProps {
  context?: Record<string, unknown>;
}

export function synthSluice(options: SynthOptions = {}): Synthesized {
  const { context = {}, ...props } = options;
  const outdir = mkdtempSync(join(tmpdir(), 'sluice-cdk-'));
  const app = new App({
    outdir,
    // CloudFormation's schema validation takes seconds per synth; offline.test.ts runs it once.
    builtinCloudFormationValidation: false,
    context,
  });
  const stack = new SluiceStack(app, 'Sluice', props);
  const template = Template.fromStack(stack);
  return { stack, template, outdir, cleanup: () => rmSync(outdir, { recursive: true, force: true }) };
}

type Resource = { Type: string; Properties: Record<string, unknown>; [key: string]: unknown };

export function resourcesOf(template: Template, type: string): Array<[string, Resource]> {
  return Object.entries(template.findResources(type)) as Array<[string, Resource]>;
}

/** The one resource of `type`; fails unless there is exactly one. */
export function onlyResource(template: Template, type: string): [string, Resource] {
  const found = resourcesOf(template, type);
  if (found.length !== 1) throw new Error(`expected one ${type}, found ${found.length}`);
  return found[0]!;
}
