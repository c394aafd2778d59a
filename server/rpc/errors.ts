import { create } from '@bufbuild/protobuf';
import { Code, ConnectError, type HandlerContext } from '@connectrpc/connect';
import { BadRequest_FieldViolationSchema, BadRequestSchema } from '../../proto/gen/google/rpc/error_details_pb.js';
import { RPC_CODE_OF } from '../../contract/errors.ts';
import type { AppError, ErrorCode } from '../errors.ts';
import { retryAfter } from '../http/errors.ts';

/** Connect's codes are google.rpc.Code's numbers, as contract/errors.ts writes them. */
const codes = RPC_CODE_OF as Record<ErrorCode, Code>;

/**
 * The Connect form of a domain error: field violations travel as a google.rpc.BadRequest detail,
 * the seconds to wait (the rate limit) as `retry-after` metadata.
 */
export function toConnectError(error: AppError): ConnectError {
  const details =
    error.violations.length === 0
      ? []
      : [
          {
            desc: BadRequestSchema,
            value: create(BadRequestSchema, {
              fieldViolations: error.violations.map((v) => create(BadRequest_FieldViolationSchema, { field: v.field, description: v.rule })),
            }),
          },
        ];
  return new ConnectError(error.message, codes[error.code], retryAfter(error), details);
}

/**
 * Connect's refusals of a request body it could not take, as the client's fault and in words that
 * do not invite a retry. connect-node reads and decodes the body before any interceptor runs, and
 * reports a malformed binary message as `internal` ("parse binary: …"), which would blame the
 * service, and a body over `readMaxBytes` as `resource_exhausted`, which clients retry; both are
 * rewritten as `invalid_argument` on their way out. The call's context is aborted with the error
 * before it is answered, on Connect, gRPC and gRPC-Web alike, so the abort is where it is caught:
 * the returned request gate hooks it before the body is read.
 */
export function refineRequestErrors(maxBodyBytes: number): (context: HandlerContext) => void {
  return (context) => {
    // A deadline of 0 has passed before the body is read; past this point connect-node would answer
    // a body it cannot parse as internal, since its refusal then no longer reaches the abort below.
    const remaining = context.timeoutMs();
    if (remaining !== undefined && remaining <= 0)
      throw new ConnectError('the deadline passed before the request was read (a timeout of 0)', Code.DeadlineExceeded);
    const signal = context.signal;
    signal.addEventListener(
      'abort',
      () => {
        const error: unknown = signal.reason;
        if (!(error instanceof ConnectError)) return;
        if (error.code === Code.Internal && error.rawMessage.startsWith('parse binary:')) {
          rewrite(
            error,
            Code.InvalidArgument,
            `the request is not a valid ${context.method.input.typeName} message (${error.rawMessage.slice('parse binary: '.length)})`,
          );
        } else if (error.code === Code.Internal && error.rawMessage === 'decompression failed') {
          rewrite(error, Code.InvalidArgument, 'the request body does not decompress with the content-encoding it names');
        } else if (error.code === Code.ResourceExhausted && error.rawMessage.includes('readMaxBytes')) {
          rewrite(error, Code.InvalidArgument, `request body is over the limit of ${maxBodyBytes} bytes`);
        }
      },
      { once: true },
    );
  };
}

/** Changes the code and message of an error that is on its way out (ConnectError's fields are readonly only in its types). */
function rewrite(error: ConnectError, code: Code, message: string): void {
  const fields = error as { code: Code; rawMessage: string; message: string };
  fields.code = code;
  fields.rawMessage = message;
  fields.message = new ConnectError(message, code).message;
}
