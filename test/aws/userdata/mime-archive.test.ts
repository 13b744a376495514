import { describe, expect, it } from 'vitest';
import {
  looksLikeMimeArchive,
  mimeHeader,
  mimePart,
  parseMimeArchive,
  serializeMimeArchive,
} from '../../../shared/aws/userdata/mime-archive';

/** Karpenter's own AL2023 MIME input (testdata/al2023_mime_userdata_input.golden): no close delimiter. */
const KARPENTER_INPUT = `MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="//"

--//
Content-Type: application/node.eks.aws

apiVersion: node.eks.aws/v1alpha1
kind: NodeConfig
spec:
  kubelet:
    config:
      maxPods: 42
--//
Content-Type: text/x-shellscript; charset="us-ascii"

#!/bin/bash
echo "Hello, AL2023!"
--//
`;

function parts(text: string) {
  const result = parseMimeArchive(text);
  if (!result.ok) throw new Error(result.reason);
  return result.parts;
}

describe('parseMimeArchive', () => {
  it("reads Karpenter's test archive, which ends with a delimiter instead of a close delimiter", () => {
    const read = parts(KARPENTER_INPUT);
    expect(read.map((p) => mimeHeader(p, 'content-type'))).toEqual([
      'application/node.eks.aws',
      'text/x-shellscript; charset="us-ascii"',
    ]);
    expect(read[1].content).toBe('#!/bin/bash\necho "Hello, AL2023!"');
    expect(read[0].content).toContain('maxPods: 42');
  });

  it('accepts CRLF, an unquoted boundary, folded headers, a preamble and an epilogue', () => {
    const text = [
      'Content-Type: multipart/mixed;',
      '  boundary=BOUNDARY',
      'MIME-Version: 1.0',
      '',
      'This is a preamble.',
      '--BOUNDARY',
      'Content-Type: text/x-shellscript',
      'Content-Transfer-Encoding: 7bit',
      '',
      'echo one',
      '--BOUNDARY--',
      'an epilogue',
    ].join('\r\n');
    const read = parts(text);
    expect(read).toEqual([
      {
        headers: [
          ['Content-Type', 'text/x-shellscript'],
          ['Content-Transfer-Encoding', '7bit'],
        ],
        content: 'echo one',
      },
    ]);
  });

  it.each([
    ['MIME-Version: 1.0\n\n--//\n\nx\n--//--\n', 'no Content-Type header'],
    ['Content-Type: text/plain\n\nhello\n', 'not multipart'],
    ['Content-Type: multipart/mixed\n\n--//\n\nx\n--//--\n', 'no boundary parameter'],
    ['Content-Type: multipart/mixed; boundary="//"\n\njust text\n', 'no part starts with a --// line'],
    [
      'Content-Type: multipart/mixed; boundary="//"\n\n--//\nContent-Type: text/x-shellscript\n\necho hi\n',
      'not closed',
    ],
    [
      'Content-Type: multipart/mixed; boundary="//"\n\n--//\nnot a header\n\necho\n--//--\n',
      'is not a "Name: value" header',
    ],
    ['Content-Type: multipart/mixed; boundary="//"', 'not followed by a blank line'],
  ])('rejects %j: %s', (text, reason) => {
    const result = parseMimeArchive(text);
    expect(result.ok).toBe(false);
    expect(result.ok ? '' : result.reason).toContain(reason);
  });
});

describe('serializeMimeArchive', () => {
  it("writes Karpenter's layout: MIME-Version, boundary //, LF line ends, a close delimiter", () => {
    const text = serializeMimeArchive([
      mimePart('text/x-shellscript', 'echo a'),
      mimePart('application/node.eks.aws', 'kind: NodeConfig\n'),
    ]);
    expect(text).toBe(
      'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="//"\n\n' +
        '--//\nContent-Type: text/x-shellscript\n\necho a\n' +
        '--//\nContent-Type: application/node.eks.aws\n\nkind: NodeConfig\n\n' +
        '--//--\n',
    );
  });

  it('round-trips parts, headers and trailing newlines included', () => {
    const original = [
      {
        headers: [
          ['Content-Type', 'text/x-shellscript'],
          ['X-Note', 'a'],
        ] as const,
        content: 'echo a\n\n',
      },
      mimePart('text/cloud-config', '#cloud-config\nruncmd: []'),
    ];
    expect(parts(serializeMimeArchive(original))).toEqual(
      original.map((p) => ({ ...p, headers: p.headers.map((h) => [...h]) })),
    );
  });

  it('picks another boundary when a part has a line that starts with --//', () => {
    const text = serializeMimeArchive([mimePart('text/x-shellscript', 'echo start\n--//\necho end')]);
    expect(text).not.toContain('boundary="//"');
    expect(parts(text)[0].content).toBe('echo start\n--//\necho end');
  });
});

describe('looksLikeMimeArchive', () => {
  it('is true for text starting with a MIME-Version or Content-Type header, after whitespace', () => {
    expect(looksLikeMimeArchive('\n  MIME-Version: 1.0\n')).toBe(true);
    expect(looksLikeMimeArchive('Content-Type: multipart/mixed')).toBe(true);
    expect(looksLikeMimeArchive('#!/bin/bash\n')).toBe(false);
    expect(looksLikeMimeArchive('apiVersion: node.eks.aws/v1alpha1')).toBe(false);
  });
});
