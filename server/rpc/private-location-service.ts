import type { ServiceImpl } from '@connectrpc/connect';
import type { PrivateLocationService } from '../../proto/gen/private_location/v1/private_location_pb.js';
import type { Services } from '../services.ts';
import { callerOf } from './auth.ts';
import { count, text } from './page-codec.ts';
import { toLocationMessage } from './private-location-codec.ts';

/** private_location.v1.PrivateLocationService: decode, call the location service, encode. No rules here. */
export function privateLocationServiceImpl(services: Services): ServiceImpl<typeof PrivateLocationService> {
  const locations = services.locations;
  return {
    async listPrivateLocations(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      const result = await locations.list(actor, workspaceId, { page: count(req.page), perPage: count(req.perPage) });
      return { privateLocations: result.locations.map(toLocationMessage), totalSize: result.pagination.totalSize };
    },

    async getPrivateLocation(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      return { privateLocation: toLocationMessage(await locations.get(actor, workspaceId, req.id)) };
    },

    async createPrivateLocation(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      const { location, token } = await locations.create(actor, workspaceId, { name: text(req.name), metadata: { ...req.metadata } });
      return { privateLocation: toLocationMessage(location), token };
    },

    async updatePrivateLocation(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      const location = await locations.update(actor, workspaceId, req.id, {
        name: req.name,
        metadata: req.replaceMetadata ? { ...req.metadata } : undefined,
      });
      return { privateLocation: toLocationMessage(location) };
    },

    async deletePrivateLocation(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      await locations.delete(actor, workspaceId, req.id);
      return {};
    },

    async rotatePrivateLocationToken(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      const { location, token } = await locations.rotateToken(actor, workspaceId, req.id);
      return { privateLocation: toLocationMessage(location), token };
    },
  };
}
