/** `podlift install --help`. */
export const INSTALL_HELP = `Usage: podlift install --cluster <name> --region <region> --event-bus <bus> --image <uri> [options]

Installs podlift's in-cluster parts (manifests/: CRDs, namespace, RBAC, the watcher) with your
kubeconfig's credentials, as the CDK stack's installer does on EKS: server-side apply as field
manager 'podlift', then waits until the watcher has rolled out. The kOps stack prints this
command, values filled in, as its InstallManifestsCommand output.

With --kops it also gives the functions their identity, as EKS access entries do there: a
ServiceAccount podlift/podlift-functions bound to podlift's ClusterRoles and Roles, and a token
for it written with the cluster's endpoint, CA and version to the SSM SecureString
/podlift/<cluster>/cluster the functions read. Run it again to renew the token.

Options:
      --cluster <name>            the cluster name the stack was deployed with
      --region <region>           the stack's region
      --event-bus <bus>           the stack's EventBusName output
      --image <uri>               the stack's WatcherImageUri output
      --kops                      also the functions' ServiceAccount, token and SSM parameter
      --service-cidr <cidr>       kOps: the cluster's service CIDR (default 100.64.0.0/13,
                                  kOps' default; kops get cluster --full -o yaml shows it)
      --watcher-role-arn <arn>    kOps: annotate the watcher's ServiceAccount for IRSA
      --key-id <kms key>          kOps: KMS key of the SecureString (default aws/ssm)
      --kubeconfig <file>         kubeconfig to use (default as kubectl: $KUBECONFIG, ~/.kube/config)
      --context <name>            its context (default the current one)
      --timeout <seconds>         how long to wait for the watcher (default 600)
  -h, --help                      Show this help

Exit codes: 0 installed and ready, 2 invalid usage, 1 other failure (named with its reason).
`;
