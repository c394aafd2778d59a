import { create } from '@bufbuild/protobuf';
import { Code, ConnectError } from '@connectrpc/connect';
import { BadRequest_FieldViolationSchema, BadRequestSchema } from '../../proto/gen/google/rpc/error_details_pb.js';
import { AppError, type ErrorCode } from '../errors.ts';

const codes: Record<ErrorCode, Code> = {
  NOT_FOUND: Code.NotFound,
  VALIDATION: Code.InvalidArgument,
  CONFLICT: Code.AlreadyExists,
  LIMIT_EXCEEDED: Code.ResourceExhausted,
  PRECONDITION_FAILED: Code.FailedPrecondition,
  UNAUTHORIZED: Code.Unauthenticated,
  FORBIDDEN: Code.PermissionDenied,
  INTERNAL: Code.Internal,
};

/** The Connect form of a domain error; field violations travel as a google.rpc.BadRequest detail. */
export function toConnectError(error: AppError, headers?: Record<string, string>): ConnectError {
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
  return new ConnectError(error.message, codes[error.code], headers, details);
}
