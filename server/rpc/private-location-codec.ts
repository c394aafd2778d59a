import { create } from '@bufbuild/protobuf';
import {
  type PrivateLocation as PrivateLocationMessage,
  PrivateLocationSchema,
  PrivateLocationStatus,
} from '../../proto/gen/private_location/v1/private_location_pb.js';
import type { PrivateLocation } from '../domain/locations/locations.ts';
import { enumPairs } from './enum-pairs.ts';
import { optionalTimestamp, timestamp } from './page-codec.ts';

/** The codec of private_location.v1: a location to its message. No rules here. */

/** A location's status: active, or error when its runner is silent. */
export const locationStatus = enumPairs(['active', 'error'] as const satisfies readonly PrivateLocation['status'][], [
  PrivateLocationStatus.ACTIVE,
  PrivateLocationStatus.ERROR,
]);

export function toLocationMessage(location: PrivateLocation): PrivateLocationMessage {
  return create(PrivateLocationSchema, {
    id: location.id,
    name: location.name,
    status: locationStatus.wire(location.status),
    metadata: location.metadata,
    lastSeenAt: optionalTimestamp(location.lastSeenAt),
    createdAt: timestamp(location.createdAt),
    embedded: location.embedded,
    runnerVersion: location.runnerVersion ?? '',
    runnerHostname: location.runnerHostname ?? '',
    droppedResults: BigInt(location.droppedResults),
  });
}
