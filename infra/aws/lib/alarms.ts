/**
 * The two alarms an operator must act on, both published to one SNS topic: a dead letter
 * (a job gave up, I6) and a poisoned shard (writes to it fail until reopened, I7).
 */
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { deadLetters, poisonedShards } from './metrics.ts';

export interface AlarmsProps {
  email?: string | undefined;
}

export class Alarms extends Construct {
  readonly topic: sns.Topic;
  readonly deadLetters: cloudwatch.Alarm;
  readonly poisonedShards: cloudwatch.Alarm;

  constructor(scope: Construct, id: string, props: AlarmsProps = {}) {
    super(scope, id);
    this.topic = new sns.Topic(this, 'Topic', { displayName: 'Sluice alarms' });
    if (props.email) this.topic.addSubscription(new subscriptions.EmailSubscription(props.email));
    this.deadLetters = this.anyAbove(
      'DeadLetters',
      deadLetters(),
      'Sluice: a job was moved to the dead-letter queue',
    );
    this.poisonedShards = this.anyAbove('PoisonedShards', poisonedShards(), 'Sluice: a shard is poisoned');
  }

  private anyAbove(id: string, metric: cloudwatch.IMetric, description: string): cloudwatch.Alarm {
    const alarm = new cloudwatch.Alarm(this, id, {
      alarmDescription: `${description}; see the runbook (README).`,
      metric,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      threshold: 0,
      evaluationPeriods: 1,
      // No data means nothing was published, e.g. before the first sampler run: not an incident.
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(new actions.SnsAction(this.topic));
    alarm.addOkAction(new actions.SnsAction(this.topic));
    return alarm;
  }
}
