/**
 * Allocatable as the EKS AMI computes it (awslabs/amazon-eks-ami `get_cpu_millicores_to_reserve`
 * and `get_memory_mebibytes_to_reserve`): kube-reserved cpu 6 % of the first core, 1 % of the
 * second, 0.5 % of the next two, 0.25 % of the rest; memory 11 MiB per pod + 255 MiB; 100 Mi
 * hard eviction threshold; the memory the kernel sees is about 6 % below the nominal size;
 * ephemeral-storage is the root volume less 1Gi kube-reserved and kubelet's 10 % nodefs threshold.
 */
export function eksAllocatable(
  vcpus: number,
  memoryMiB: number,
  maxPods: number,
  rootVolumeGiB = 20,
): Record<string, string> {
  const cores = [60, 10, 5, 5];
  let reservedMilli = 0;
  for (let core = 0; core < vcpus; core++) reservedMilli += core < cores.length ? cores[core] : 2.5;
  const cpu = Math.floor(vcpus * 1000 - reservedMilli);
  const memory = Math.floor(memoryMiB * 0.94 - (11 * maxPods + 255) - 100);
  return {
    cpu: `${cpu}m`,
    memory: `${memory}Mi`,
    pods: String(maxPods),
    'ephemeral-storage': `${rootVolumeGiB - 1 - Math.ceil(rootVolumeGiB / 10)}Gi`,
  };
}
