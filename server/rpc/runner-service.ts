import { create } from '@bufbuild/protobuf';
import { Code, ConnectError, type HandlerContext, type ServiceImpl } from '@connectrpc/connect';
import type { Logger } from 'pino';
import { ConnectResponseSchema, type ConnectRequest, type ReportRequest, type RunnerService } from '../../proto/gen/runner/v1/runner_pb.js';
import { encodeDefinition, fromRunnerCheck } from '../checks/check-runner.ts';
import type { RunnerReport, StreamEnd } from '../domain/locations/runners.ts';
import { AppError } from '../errors.ts';
import type { Services } from '../services.ts';
import { toConnectError } from './errors.ts';

/** How a stream the service ended is told to the runner. */
const ENDINGS: Record<StreamEnd, ConnectError> = {
  revoked: new ConnectError("the service refused this runner's token: its private location was deleted or its token rotated", Code.Unauthenticated),
  replaced: new ConnectError("another runner connected with this location's token: one runner serves a location", Code.Aborted),
  closing: new ConnectError('the service is stopping', Code.Unavailable),
};

/**
 * runner.v1.RunnerService: the calls of remote runners, admitted by their location's token (not
 * by an API key: routes.ts leaves this service out of the credential interceptor). Thin: the
 * rules are the domain's (domain/locations/runners.ts), the wire form of checks the engine's.
 */
export function runnerServiceImpl(services: Services, log: Logger): ServiceImpl<typeof RunnerService> {
  const { runners } = services;
  return {
    async *connect(req: ConnectRequest, context: HandlerContext) {
      let session;
      try {
        session = await runners.connect(context.requestHeader.get('authorization'), {
          version: req.version,
          instanceId: req.instanceId,
          hostname: req.hostname,
        });
      } catch (error) {
        throw error instanceof AppError ? toConnectError(error) : error;
      }
      const { hello } = session;
      log.info({ location: hello.locationName, instanceId: req.instanceId, hostname: req.hostname }, 'a runner connected');
      const events = session.events(context.signal);
      let first = true;
      while (true) {
        const next = await events.next();
        if (next.done) {
          log.info({ location: hello.locationName, why: next.value }, 'a runner disconnected');
          if (next.value === 'cancelled') return;
          throw ENDINGS[next.value];
        }
        const event = next.value;
        yield create(ConnectResponseSchema, {
          hello: first
            ? { serviceVersion: hello.serviceVersion, locationName: hello.locationName, acknowledgedSequence: BigInt(hello.acknowledgedSequence) }
            : undefined,
          monitors: event.monitors.map((m) => ({ id: m.id, revision: BigInt(m.revision), definition: encodeDefinition(m.monitor) })),
          removedMonitorIds: event.removedMonitorIds,
          full: event.full,
          checkNowMonitorIds: event.checkNowMonitorIds,
        });
        first = false;
      }
    },

    async report(req: ReportRequest, context: HandlerContext) {
      const location = await runners.admit(context.requestHeader.get('authorization'));
      const context_ = { runner: location.name, regions: [location.name], workspaceId: location.workspace_id };
      const report: RunnerReport = {
        version: req.version,
        instanceId: req.instanceId,
        checks: [],
        malformed: [],
        droppedResults: Number(req.droppedResults),
        gaps: [],
      };
      for (const message of req.checks) {
        const sequence = Number(message.sequence);
        if (!Number.isSafeInteger(sequence)) continue;
        try {
          report.checks.push({ sequence, check: fromRunnerCheck(message, context_) });
        } catch (error) {
          // Stored nowhere, but acknowledged: a malformed result sent again would block the runner's queue.
          log.warn({ location: location.name, sequence, err: error }, 'a runner reported a malformed check');
          report.malformed.push(sequence);
        }
      }
      report.gaps = req.gaps.map((g) => ({ from: Number(g.startedAtMs), to: Number(g.endedAtMs) }));
      const result = await runners.report(location, report);
      return { acknowledgedSequence: BigInt(result.acknowledgedSequence), stored: result.stored, skipped: result.skipped };
    },
  };
}
