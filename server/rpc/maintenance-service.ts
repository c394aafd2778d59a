import type { ServiceImpl } from '@connectrpc/connect';
import type { MaintenanceService } from '../../proto/gen/maintenance/v1/maintenance_pb.js';
import type { Services } from '../services.ts';
import { callerOf } from './auth.ts';
import { repeatOf, toMaintenanceMessage } from './maintenance-codec.ts';
import { count, list, maskedPatch, text } from './page-codec.ts';

/** maintenance.v1.MaintenanceService: decode, call the maintenance service, encode. No rules here. */
export function maintenanceServiceImpl(services: Services): ServiceImpl<typeof MaintenanceService> {
  const maintenances = services.maintenances;
  return {
    async listMaintenances(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      const result = await maintenances.list(actor, workspaceId, { pageId: req.pageId, page: count(req.page), perPage: count(req.perPage) });
      return { maintenances: result.maintenances.map(toMaintenanceMessage), pagination: result.pagination };
    },

    async getMaintenance(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      return { maintenance: toMaintenanceMessage(await maintenances.get(actor, workspaceId, req.id)) };
    },

    async createMaintenance(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      const { maintenance, notified } = await maintenances.create(actor, workspaceId, {
        pageId: text(req.pageId),
        title: text(req.title),
        message: text(req.message),
        from: text(req.from),
        to: text(req.to),
        pageComponentIds: list(req.pageComponentIds),
        notify: req.notify,
        repeat: repeatOf(req.repeat),
      });
      return { maintenance: toMaintenanceMessage(maintenance), notified };
    },

    async updateMaintenance(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      const patch = maskedPatch(
        {
          title: { name: 'title', value: req.title, empty: '' },
          message: { name: 'message', value: req.message, empty: '' },
          from: { name: 'from', value: req.from, empty: '' },
          to: { name: 'to', value: req.to, empty: '' },
          page_component_ids: { name: 'pageComponentIds', value: list(req.pageComponentIds), empty: [] },
          repeat: { name: 'repeat', value: repeatOf(req.repeat), empty: null },
        },
        req.updateMask,
      );
      return { maintenance: toMaintenanceMessage(await maintenances.update(actor, workspaceId, req.id, patch)) };
    },

    async listOccurrences(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      return maintenances.occurrences(actor, workspaceId, { pageId: text(req.pageId), from: text(req.from), to: text(req.to) });
    },

    async deleteMaintenance(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      await maintenances.delete(actor, workspaceId, req.id);
      return {};
    },
  };
}
