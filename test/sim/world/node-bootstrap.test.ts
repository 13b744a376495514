import { describe, expect, it } from 'vitest';
import { readNodeBootstrap, UnbootableUserDataError } from '../../../sim/world/node-bootstrap';

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const mime = (nodeConfig: string) =>
  b64(
    [
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="BOUNDARY"',
      '',
      '--BOUNDARY',
      'Content-Type: application/node.eks.aws',
      '',
      nodeConfig,
      '--BOUNDARY--',
      '',
    ].join('\n'),
  );

describe('readNodeBootstrap: user data no kubelet boots from', () => {
  it('reads the labels a NodeConfig passes to kubelet', () => {
    const boot = readNodeBootstrap(
      'i-1',
      mime(
        'apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  cluster: { name: demo }\n  kubelet:\n    flags: ["--node-labels=team=a"]',
      ),
    );
    expect(boot).toMatchObject({ clusterName: 'demo', labels: { team: 'a' } });
  });

  it('is an UnbootableUserDataError for none, a shell script, or a NodeConfig that is not YAML', () => {
    for (const [data, why] of [
      [undefined, /it has none/],
      [b64('#!/bin/bash\necho hi\n'), /neither a MIME archive nor Bottlerocket TOML/],
      [mime('spec: { cluster: { name: demo'), /a NodeConfig part is not YAML/],
    ] as const) {
      let error: unknown;
      try {
        readNodeBootstrap('i-1', data);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(UnbootableUserDataError);
      expect((error as Error).message).toMatch(why);
    }
  });
});
