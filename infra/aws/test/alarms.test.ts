import { afterAll, describe, expect, it } from 'vitest';
import { onlyResource, resourcesOf, synthSluice } from './support/synth.ts';

const synth = synthSluice();
afterAll(() => synth.cleanup());
const { template } = synth;

const [topicId] = onlyResource(template, 'AWS::SNS::Topic');

describe('alarms', () => {
  it('has one SNS topic for them', () => {
    template.resourceCountIs('AWS::SNS::Topic', 1);
  });

  it.each([
    ['DeadLetters', 'a job reached the dead-letter queue (I6)'],
    ['PoisonedShards', 'a shard is poisoned (I7)'],
  ])('alarms on Sluice/%s > 0 — %s — and notifies the topic', (metricName) => {
    const alarms = resourcesOf(template, 'AWS::CloudWatch::Alarm').filter(
      ([, a]) => a.Properties.MetricName === metricName,
    );
    expect(alarms).toHaveLength(1);
    expect(alarms[0]![1].Properties).toMatchObject({
      Namespace: 'Sluice',
      MetricName: metricName,
      ComparisonOperator: 'GreaterThanThreshold',
      Threshold: 0,
      EvaluationPeriods: 1,
      TreatMissingData: 'notBreaching',
      AlarmActions: [{ Ref: topicId }],
      OKActions: [{ Ref: topicId }],
    });
  });

  it('subscribes an e-mail address when one is given', () => {
    template.resourceCountIs('AWS::SNS::Subscription', 0);
    const alt = synthSluice({ settings: { alarmEmail: 'oncall@example.com' } });
    try {
      alt.template.hasResourceProperties('AWS::SNS::Subscription', {
        Protocol: 'email',
        Endpoint: 'oncall@example.com',
      });
    } finally {
      alt.cleanup();
    }
  });
});
