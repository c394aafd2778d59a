import type { ServiceImpl } from '@connectrpc/connect';
import type { StatusPageService } from '../../proto/gen/status_page/v1/status_page_pb.js';
import type { Services } from '../services.ts';
import { callerOf } from './auth.ts';
import { clearable, clearableBytes, text, toPageComponentMessage, toStatusPageMessage, toSubscriberMessage } from './page-codec.ts';

/** status_page.v1.StatusPageService: decode, call the page and subscriber services, encode. No rules here. */
export function statusPageServiceImpl(services: Services): ServiceImpl<typeof StatusPageService> {
  const { pages, subscribers } = services;
  return {
    async listStatusPages(_req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      return { statusPages: (await pages.list(actor, workspaceId)).map(toStatusPageMessage) };
    },

    async getStatusPage(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      return { statusPage: toStatusPageMessage(await pages.get(actor, workspaceId, req.page)) };
    },

    async createStatusPage(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      const page = await pages.create(actor, workspaceId, {
        slug: text(req.slug),
        title: text(req.title),
        description: text(req.description),
        accentColor: clearable(req.accentColor),
        websiteUrl: clearable(req.websiteUrl),
        customDomain: clearable(req.customDomain),
        logo: clearableBytes(req.logo),
      });
      return { statusPage: toStatusPageMessage(page) };
    },

    async updateStatusPage(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      const page = await pages.update(actor, workspaceId, req.id, {
        slug: req.slug,
        title: req.title,
        description: req.description,
        accentColor: clearable(req.accentColor),
        websiteUrl: clearable(req.websiteUrl),
        customDomain: clearable(req.customDomain),
        logo: clearableBytes(req.logo),
      });
      return { statusPage: toStatusPageMessage(page) };
    },

    async deleteStatusPage(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      await pages.delete(actor, workspaceId, req.id);
      return {};
    },

    async listPageComponents(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      return { components: (await pages.listComponents(actor, workspaceId, req.pageId)).map(toPageComponentMessage) };
    },

    async addPageComponent(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      const component = await pages.addComponent(actor, workspaceId, req.pageId, {
        name: text(req.name),
        description: text(req.description),
        monitorId: req.monitorId,
        group: req.group,
        position: req.position,
      });
      return { component: toPageComponentMessage(component) };
    },

    async updatePageComponent(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      const component = await pages.updateComponent(actor, workspaceId, req.id, {
        name: req.name,
        description: req.description,
        monitorId: clearable(req.monitorId),
        group: clearable(req.group),
        position: req.position,
      });
      return { component: toPageComponentMessage(component) };
    },

    async removePageComponent(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      await pages.removeComponent(actor, workspaceId, req.id);
      return {};
    },

    async listSubscribers(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      return { subscribers: (await subscribers.list(actor, workspaceId, req.pageId)).map(toSubscriberMessage) };
    },

    async addSubscriber(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      const target = req.target;
      const input = target.case === 'email' ? { email: target.value } : target.case === 'webhookUrl' ? { webhookUrl: target.value } : {};
      const { subscriber, secret } = await subscribers.add(actor, workspaceId, req.pageId, input);
      return { subscriber: toSubscriberMessage(subscriber), webhookSecret: secret ?? undefined };
    },

    async removeSubscriber(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      await subscribers.remove(actor, workspaceId, req.id);
      return {};
    },
  };
}
