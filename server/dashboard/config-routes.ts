import { ConnectError } from '@connectrpc/connect';
import type { Context } from 'hono';
import type { ConfigPlan } from '../../contract/dashboard-api.ts';
import { CONFIG_FILE_LIMITS } from '../../contract/limits.ts';
import type { StatusdeskClient } from '../../client/index.ts';
import type { Change, Plan } from '../cli/config-as-code/plan.ts';
import { AppError } from '../errors.ts';
import type { AppEnv, HonoApp } from '../http/hono-app.ts';
import { inProcessClient } from '../rpc/in-process-client.ts';
import type { DashboardAppOptions } from './dashboard-app.ts';
import { jsonRoute } from './json-route.ts';
import { workspaceIdOf } from './route-params.ts';

/**
 * The workspace's file in the dashboard: the file `statusdesk export` writes, the plan
 * `statusdesk apply -f FILE --dry-run` prints for an uploaded one, and applying it. The same
 * code as the two commands (cli/config-as-code/) runs here against the RPC services in-process
 * (rpc/in-process-client.ts), acting as the signed-in person: every change passes the rules,
 * scope checks and audit entries of the RPC call it is, and names that person.
 *
 * Two differences from the command: the file's `${NAME}` references read no environment (the
 * service's own variables are not the person's to send anywhere), and nothing is pruned (what the
 * file leaves out is kept and counted).
 */

/** The file format and the plan (YAML and its checks), loaded by the first of these calls only. */
const fileCode = () => Promise.all([import('../cli/config-as-code/file-format.ts'), import('../cli/config-as-code/plan.ts')]);

/** No environment: `${NAME}` in a credential is reported as not set, as with an empty environment. */
const NO_ENVIRONMENT: NodeJS.ProcessEnv = {};

/** A field's value in a plan's line, as `statusdesk apply` prints it: `none`, the text, or JSON. */
const valueText = (value: unknown) =>
  value === null || value === undefined ? 'none' : typeof value === 'string' && value !== '' ? value : JSON.stringify(value);

type ShownChange = ConfigPlan['changes'][number];

const shown = (change: Change): ShownChange => ({
  action: change.action,
  kind: change.kind,
  name: change.name,
  ...(change.page === undefined ? {} : { page: change.page }),
  ...(change.type === undefined ? {} : { type: change.type }),
  ...(change.fields === undefined
    ? {}
    : { fields: change.fields.map((f) => ({ field: f.field, from: valueText(f.from), to: valueText(f.to), secret: f.secret === true })) }),
});

function summaryOf(changes: ShownChange[]): ConfigPlan['summary'] {
  const count = (action: ShownChange['action']) => changes.filter((c) => c.action === action).length;
  return { create: count('create'), update: count('update'), delete: count('delete'), unchanged: count('unchanged') };
}

/** The body's file, refused when missing or over the upload limit. */
async function fileOf(c: Context<AppEnv>): Promise<string> {
  const body = (await c.req.json().catch(() => undefined)) as { file?: unknown } | undefined;
  if (typeof body?.file !== 'string')
    throw new AppError('VALIDATION', 'file: must be the text of the file', [{ field: 'file', rule: 'must be the text of the file' }]);
  const bytes = Buffer.byteLength(body.file, 'utf8');
  if (bytes > CONFIG_FILE_LIMITS.uploadBytes) {
    const rule = `must be at most ${CONFIG_FILE_LIMITS.uploadBytes / 1024} KiB in the dashboard (statusdesk apply -f takes bigger files)`;
    throw new AppError('VALIDATION', `file: is ${bytes} bytes; ${rule}`, [{ field: 'file', rule }]);
  }
  return body.file;
}

/**
 * The plan of a file against the workspace as it is now, or the file's problems, each at its
 * place (`monitors[1].frequency`, `line 3, column 7`), as one refusal: nothing is changed.
 */
async function planOf(c: Context<AppEnv>, api: StatusdeskClient): Promise<Plan> {
  const file = await fileOf(c);
  const [{ Problems, readDesired }, { makePlan, readWorkspace }] = await fileCode();
  try {
    const desired = readDesired(file, NO_ENVIRONMENT);
    return makePlan(desired, await readWorkspace(api, desired), false);
  } catch (error) {
    if (!(error instanceof Problems)) throw error;
    const count = error.problems.length === 1 ? '1 problem' : `${error.problems.length} problems`;
    throw new AppError(
      error.exitCode === 2 ? 'VALIDATION' : 'CONFLICT',
      `the file has ${count}, nothing was changed`,
      error.problems.map((p) => ({ field: p.path, rule: p.message })),
    );
  }
}

const planAnswer = (plan: Plan, changes: ShownChange[]): ConfigPlan => ({ changes, summary: summaryOf(changes), kept: plan.kept });

export function registerConfigRoutes(app: HonoApp, options: DashboardAppOptions): void {
  const { services, log } = options;
  const apiOf = (c: Context<AppEnv>) => inProcessClient(services, log, { actor: c.get('actor'), workspaceId: workspaceIdOf(c) });

  jsonRoute(app, 'configExport', async (c) => {
    const [{ renderFile }, { readWorkspace, workspaceFile }] = await fileCode();
    const { monitors, pages, maintenance } = workspaceFile(await readWorkspace(apiOf(c)));
    return {
      file: renderFile(monitors, pages, maintenance),
      filename: `statusdesk-workspace-${workspaceIdOf(c)}.yaml`,
      monitors: monitors.length,
      pages: pages.length,
    };
  });

  jsonRoute(app, 'configPlan', async (c) => {
    const plan = await planOf(c, apiOf(c));
    return planAnswer(plan, [...plan.steps.map((s) => shown(s.change)), ...plan.unchanged.map(shown)]);
  });

  // The plan is made again from the workspace as it is when Apply is pressed, and its steps run in
  // order until one is refused; the answer says which were made.
  jsonRoute(app, 'configApply', async (c) => {
    const api = apiOf(c);
    const plan = await planOf(c, api);
    const notes: string[] = [];
    const changes: ShownChange[] = [];
    let error: string | null = null;
    for (const step of plan.steps) {
      if (error !== null) {
        changes.push({ ...shown(step.change), outcome: 'not applied' });
        continue;
      }
      try {
        await step.run(api, plan.ids, (text) => notes.push(text));
        changes.push({ ...shown(step.change), outcome: 'applied' });
      } catch (refusal) {
        error = ConnectError.from(refusal).rawMessage;
        changes.push({ ...shown(step.change), outcome: 'refused' });
      }
    }
    const applied = changes.filter((change) => change.outcome === 'applied').length;
    return { ...planAnswer(plan, [...changes, ...plan.unchanged.map(shown)]), applied, error, notes };
  });
}
