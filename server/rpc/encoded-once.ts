import { create, type DescMessage, fromBinary, type MessageShape, toBinary } from '@bufbuild/protobuf';
import { EmptySchema } from '@bufbuild/protobuf/wkt';
import type { HandlerContext } from '@connectrpc/connect';

/**
 * A message of the same type that the binary formats (Connect's proto, gRPC, gRPC-Web) write
 * without encoding it again: no field is set, and its unknown fields are the message's fields,
 * encoded once, which the writer copies as they are. The bytes on the wire are the message's
 * own. JSON writes no unknown fields: a JSON call must be answered with the message itself.
 */
export function encodedOnce<D extends DescMessage>(schema: D, message: MessageShape<D>): MessageShape<D> {
  const encoded = create(schema);
  // An empty message reads every field as unknown, in order, each with its tag and bytes.
  encoded.$unknown = fromBinary(EmptySchema, toBinary(schema, message)).$unknown;
  return encoded;
}

/**
 * Whether a call is answered in a binary format. Connect has refused any content type it does not
 * serve before the handler runs; one missing counts as JSON, which any answer may take.
 */
export function isBinaryCall(context: HandlerContext): boolean {
  return !/json/i.test(context.requestHeader.get('content-type') ?? 'json');
}
