/**
 * The VPC: public subnets only for the NAT gateway(s), private subnets with egress for the
 * Lambda function and the workers, isolated subnets for Redis. S3 traffic takes a gateway
 * endpoint, so the data path never crosses the NAT (no NAT data charge, no internet hop).
 * No lookups: the AZs are the region's first two, resolved by CloudFormation.
 */
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { Construct } from 'constructs';

export interface NetworkProps {
  natGateways: number;
}

export class Network extends Construct {
  readonly vpc: ec2.Vpc;
  readonly appSubnets: ec2.SubnetSelection = { subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS };
  readonly dataSubnets: ec2.SubnetSelection = { subnetType: ec2.SubnetType.PRIVATE_ISOLATED };

  constructor(scope: Construct, id: string, props: NetworkProps) {
    super(scope, id);
    this.vpc = new ec2.Vpc(this, 'Vpc', {
      maxAzs: 2,
      natGateways: props.natGateways,
      subnetConfiguration: [
        { name: 'public', subnetType: ec2.SubnetType.PUBLIC, cidrMask: 24 },
        { name: 'app', subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS, cidrMask: 20 },
        { name: 'data', subnetType: ec2.SubnetType.PRIVATE_ISOLATED, cidrMask: 24 },
      ],
      gatewayEndpoints: {
        S3: { service: ec2.GatewayVpcEndpointAwsService.S3, subnets: [this.appSubnets] },
      },
    });
  }
}
