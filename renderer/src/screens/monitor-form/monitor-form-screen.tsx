import { api } from '../../api.ts';
import type { ScreenProps } from '../../app.tsx';
import { useResource } from '../../hooks.ts';
import { EditMonitor } from './edit-monitor.tsx';
import { NewMonitor } from './new-monitor.tsx';
import './monitor-form.css';

// Creating and editing TCP, gRPC and HTTP monitors (monitor.v1). The form (monitor-form.tsx)
// holds what the person typed, one file per group of fields; the model (monitor-form-model.ts)
// makes it the wire message on submit; a refusal leaves every value in place with the service's
// message beside the field it names.

/** The route's screen: a new monitor at /monitors/new, an existing one's at /monitors/:id/edit. */
export function MonitorFormScreen({ workspace, params }: ScreenProps) {
  const [plan] = useResource(() => api.plan(workspace.id), workspace.id);
  return params.id === undefined ? <NewMonitor workspace={workspace} plan={plan} /> : <EditMonitor workspace={workspace} id={params.id} plan={plan} />;
}
