/** Awaiting a client-node call that must fail, and reading the Status the fake server sent. */
import { ApiException } from '@kubernetes/client-node';
import type { StatusBody } from '../../../../sim/fakes/kube';

/** The HTTP code and decoded Status body of the ApiException `call` rejects with. */
export async function rejection(call: Promise<unknown>): Promise<{ code: number; status: StatusBody }> {
  try {
    await call;
  } catch (error) {
    if (!(error instanceof ApiException)) throw error;
    const body: unknown = error.body;
    const status = (typeof body === 'string' ? JSON.parse(body) : body) as StatusBody;
    return { code: error.code, status };
  }
  throw new Error('expected the call to be rejected');
}
