import type { MetadataBearer, MiddlewareStack } from '@smithy/types';
import type { FakeAwsService } from './fake-service';
import type { Caller } from './iam-policy/authorization';
import { responseMetadata } from './service-error';

/** The part of an SDK v3 client `attachFake` needs. */
export interface SdkClientLike {
  // biome-ignore lint/suspicious/noExplicitAny: every client's stack is typed with its own input/output unions.
  readonly middlewareStack: MiddlewareStack<any, MetadataBearer>;
}

const MIDDLEWARE_NAME = 'podliftFakeAwsService';

/**
 * Puts `fake` behind a real SDK v3 client: a middleware at the top of the client's stack
 * (step `initialize`, priority `high`) answers every command from the fake, so no request is
 * serialized, signed or sent. Callers keep using `client.send(new XCommand(...))` and the
 * SDK's paginators unchanged. The SDK's retry middleware sits further down the stack, so
 * injected throttling reaches the caller on the first attempt.
 *
 * With a `caller`, every command is authorized against the caller's identity policies first
 * (FakeAwsService.invoke), as the same client would be with that role's credentials.
 *
 * Returns a function that detaches the fake again.
 */
export function attachFake(client: SdkClientLike, fake: FakeAwsService, caller?: Caller): () => void {
  client.middlewareStack.add(
    (_next, context) => async (args) => {
      const clientName = context.clientName;
      if (clientName !== undefined && clientName !== fake.clientName) {
        throw new Error(
          `${fake.constructor.name} answers ${fake.clientName}, but it is attached to a ${clientName}`,
        );
      }
      const operation = (context.commandName ?? '').replace(/Command$/, '');
      const result = fake.invoke(operation, args.input, caller);
      return { output: { $metadata: responseMetadata(200), ...result }, response: {} };
    },
    { step: 'initialize', priority: 'high', name: MIDDLEWARE_NAME, tags: ['PODLIFT_FAKE'] },
  );
  return () => {
    client.middlewareStack.remove(MIDDLEWARE_NAME);
  };
}

/** `client` with `fake` attached (as `caller`, if given), so a world can build and wire a client in one expression. */
export function withFake<C extends SdkClientLike>(client: C, fake: FakeAwsService, caller?: Caller): C {
  attachFake(client, fake, caller);
  return client;
}
