import type { ServiceImpl } from '@connectrpc/connect';
import type { SettingsService } from '../../proto/gen/settings/v1/settings_pb.js';
import type { Services } from '../services.ts';
import { callerOf } from './auth.ts';
import { emailSecurity, toEmailSettingsMessage } from './settings-codec.ts';

/** settings.v1.SettingsService: decode, call the email settings service, encode. No rules here. */
export function settingsServiceImpl(services: Services): ServiceImpl<typeof SettingsService> {
  const settings = services.emailSettings;
  return {
    async getEmailSettings(_req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      return toEmailSettingsMessage(await settings.get(actor, workspaceId));
    },

    async updateEmailSettings(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      const view = await settings.set(actor, workspaceId, {
        host: req.host,
        port: req.port,
        security: emailSecurity.domain(req.security) as never,
        username: req.username,
        password: req.password,
        from: req.from,
      });
      return { settings: toEmailSettingsMessage(view) };
    },

    async sendTestEmail(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      return settings.sendTest(actor, workspaceId, req.to);
    },
  };
}
