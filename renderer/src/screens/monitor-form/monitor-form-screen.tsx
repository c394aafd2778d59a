import type { ScreenProps } from '../../app.tsx';
import { usePlan } from '../../data/monitor-views.ts';
import { loadedOf } from '../../hooks.ts';
import { EditMonitor } from './edit-monitor.tsx';
import { NewMonitor } from './new-monitor.tsx';
import './monitor-form.css';

// Creating and editing monitors of every type (monitor.v1). The form (monitor-form.tsx) holds
// what the person typed, one file per group of fields, each type's own simple fields drawn from
// its declaration in the contract (type-field.tsx); the model (monitor-form-model.ts) makes it the
// wire message on submit; a refusal leaves every value in place with the service's message beside
// the field it names.

/** The route's screen: a new monitor at /monitors/new, an existing one's at /monitors/:id/edit. */
export function MonitorFormScreen({ workspace, params }: ScreenProps) {
  const plan = loadedOf(usePlan(workspace.id));
  return params.id === undefined ? (
    <NewMonitor workspace={workspace} plan={plan} />
  ) : (
    // Another monitor, or another workspace's, is another form, filled from its own answer.
    <EditMonitor key={`${workspace.id} ${params.id}`} workspace={workspace} id={params.id} plan={plan} />
  );
}
