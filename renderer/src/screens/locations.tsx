import { type FormEvent, useId, useRef, useState } from 'react';
import { LOCATION_LIMITS } from '../../../contract/limits.ts';
import { type PrivateLocation, PrivateLocationStatus } from '../../../proto/gen/private_location/v1/private_location_pb.js';
import type { ApiError } from '../api.ts';
import type { ScreenProps } from '../app.tsx';
import { ActionsTable, ConfirmDialog, ErrorNote, Loading, PageHeader, SecretOnce } from '../components.tsx';
import { entriesOf, Field, FormProblems, KeyValueEditor, type KeyValueRow, matchViolations, rowsOf, useFocusOnRefusal } from '../forms.tsx';
import { useCreateLocation, useDeleteLocation, useLocations, useRotateToken, useUpdateLocation } from '../data/locations.ts';
import { asApiError, loadedOf, useConfirmedAction } from '../hooks.ts';
import { Icon } from '../icons.tsx';
import { When } from '../time.tsx';
import { FormActions, isoOf } from './page-form-parts.tsx';
import './locations.css';

const { nameLength } = LOCATION_LIMITS;

// The places monitors are checked from: the embedded runner of this machine (`local`), and the
// workspace's private locations, each served by a runner (`statusdesk runner`) holding its token.
// A token is shown once, when it is issued (created or rotated), with the command that starts a
// runner with it.

/** A token just issued, and the location it is for. */
interface Issued {
  location: PrivateLocation;
  token: string;
  rotated: boolean;
}

/** The runner's version and host, as far as it told them. */
function runnerOf(location: PrivateLocation): string | undefined {
  const parts = [location.runnerVersion && `v${location.runnerVersion}`, location.runnerHostname].filter(Boolean);
  return parts.length > 0 ? parts.join(' on ') : undefined;
}

function StatusWord({ location }: { location: PrivateLocation }) {
  const active = location.status === PrivateLocationStatus.ACTIVE;
  return <span className={`status ${active ? 'status-on' : 'status-off'}`}>{active ? 'Active' : location.lastSeenAt ? 'Silent' : 'Never connected'}</span>;
}

export function LocationsScreen({ workspace, session }: ScreenProps) {
  const locations = loadedOf(useLocations(workspace.id));
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<string>();
  const [issued, setIssued] = useState<Issued>();
  const deleteLocation = useDeleteLocation(workspace.id);
  const rotateToken = useRotateToken(workspace.id);
  const remove = useConfirmedAction(
    (location: PrivateLocation) => deleteLocation.mutateAsync({ id: location.id }),
    async () => undefined,
  );
  const rotate = useConfirmedAction(
    async (location: PrivateLocation) => {
      const answer = await rotateToken.mutateAsync({ id: location.id });
      setIssued({ location: answer.privateLocation!, token: answer.token, rotated: true });
    },
    async () => undefined,
  );

  const editingLocation = locations.state === 'ready' ? locations.value.find((l) => l.id === editing) : undefined;
  const remote = locations.state === 'ready' ? locations.value.filter((l) => !l.embedded) : [];
  const runnerCommand = (token: string) => `statusdesk runner --api-url ${session.apiUrl} --token ${token}`;
  return (
    <div className="locations-screen">
      <PageHeader
        title="Locations"
        actions={
          creating ? null : (
            <button
              type="button"
              className="button button-primary"
              onClick={() => {
                setEditing(undefined);
                setIssued(undefined);
                setCreating(true);
              }}
            >
              <Icon name="plus" />
              New location
            </button>
          )
        }
      >
        Where the monitors of {workspace.name} are checked from: this machine, and private locations on other networks (an office, a lab, a staging network),
        each served by a runner you start there.
      </PageHeader>

      {creating ? (
        <LocationForm
          workspaceId={workspace.id}
          onCancel={() => setCreating(false)}
          onSaved={(location, token) => {
            setCreating(false);
            if (token) setIssued({ location, token, rotated: false });
          }}
        />
      ) : null}
      {editingLocation ? (
        <LocationForm
          key={editingLocation.id}
          workspaceId={workspace.id}
          location={editingLocation}
          onCancel={() => setEditing(undefined)}
          onSaved={() => setEditing(undefined)}
        />
      ) : null}
      {issued ? (
        <SecretOnce
          heading={issued.rotated ? <>New token of “{issued.location.name}”</> : <>Location “{issued.location.name}” created</>}
          label="Runner token"
          secret={issued.token}
          onDone={() => setIssued(undefined)}
        >
          Copy its token now: it will not be shown again. {issued.rotated ? 'The old token no longer works: restart the runner with this one. ' : ''}
          On a machine of that network, start the runner with <code className="runner-command">{runnerCommand(issued.token)}</code>
        </SecretOnce>
      ) : null}

      <section aria-labelledby="locations-heading" className="section">
        <h2 id="locations-heading">Locations of {workspace.name}</h2>
        {locations.state === 'loading' ? <Loading what="locations" /> : null}
        {locations.state === 'error' ? <ErrorNote>{locations.error.message}</ErrorNote> : null}
        {locations.state === 'ready' ? (
          <ActionsTable columns={['Name', 'Status', 'Last seen', 'Runner', 'Metadata']}>
            {locations.value.map((location) => (
              <tr key={location.id}>
                <th scope="row">
                  {location.name}
                  {location.embedded ? <span className="muted small"> (this machine)</span> : null}
                </th>
                <td>
                  <StatusWord location={location} />
                </td>
                <td>
                  <When iso={isoOf(location.lastSeenAt)} />
                </td>
                <td>{runnerOf(location) ?? <span className="muted">{location.embedded ? 'Built in' : 'Not yet'}</span>}</td>
                <td>
                  {Object.entries(location.metadata).map(([name, value]) => (
                    <span key={name} className="badge location-label">
                      {name}: {value}
                    </span>
                  ))}
                </td>
                <td className="cell-actions">
                  {location.embedded ? null : (
                    <div className="row-actions">
                      <button
                        type="button"
                        className="button button-small"
                        onClick={() => {
                          setCreating(false);
                          setEditing(location.id);
                        }}
                      >
                        <Icon name="edit" />
                        Edit<span className="visually-hidden"> {location.name}</span>
                      </button>
                      <button type="button" className="button button-small" title="Rotate token" onClick={() => rotate.ask(location)}>
                        <Icon name="refresh" />
                        Rotate<span className="visually-hidden"> token of {location.name}</span>
                      </button>
                      <button type="button" className="button button-small button-danger-quiet" onClick={() => remove.ask(location)}>
                        <Icon name="trash" />
                        Delete<span className="visually-hidden"> {location.name}</span>
                      </button>
                    </div>
                  )}
                </td>
              </tr>
            ))}
          </ActionsTable>
        ) : null}
        {locations.state === 'ready' && remote.length === 0 ? (
          <div className="empty">
            <p>
              <strong>No private locations yet.</strong> Create one to check hosts only another network can reach: you get a token and the command that starts
              its runner there.
            </p>
          </div>
        ) : null}
      </section>

      <ConfirmDialog {...rotate.dialog} title={`Rotate the token of “${rotate.target?.name ?? ''}”?`} confirmLabel="Rotate token">
        <p>The current token stops working at once and its runner stops. You get a new token to start it again.</p>
      </ConfirmDialog>
      <ConfirmDialog {...remove.dialog} title={`Delete the location “${remove.target?.name ?? ''}”?`} confirmLabel="Delete location">
        <p>Its runner stops and monitors are no longer checked from it. Results it already reported stay. This cannot be undone.</p>
      </ConfirmDialog>
    </div>
  );
}

function LocationForm({
  workspaceId,
  location,
  onCancel,
  onSaved,
}: {
  workspaceId: string;
  location?: PrivateLocation;
  onCancel(): void;
  /** Told the saved location, and its token when it was just created, once the locations are asked for again. */
  onSaved(location: PrivateLocation, token?: string): void;
}) {
  const createLocation = useCreateLocation(workspaceId);
  const updateLocation = useUpdateLocation(workspaceId);
  const [name, setName] = useState(location?.name ?? '');
  const [labels, setLabels] = useState<KeyValueRow[]>(() => rowsOf(location?.metadata ?? {}));
  const [error, setError] = useState<ApiError>();
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  useFocusOnRefusal(form, error);
  const headingId = useId();
  const errors = matchViolations(error, ['name', 'metadata']);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const metadata = entriesOf(labels, '');
      if (location) {
        const answer = await updateLocation.mutateAsync({ id: location.id, name: name.trim(), metadata, replaceMetadata: true });
        onSaved(answer.privateLocation!);
      } else {
        const answer = await createLocation.mutateAsync({ name: name.trim(), metadata });
        onSaved(answer.privateLocation!, answer.token);
      }
    } catch (caught) {
      setError(asApiError(caught));
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby={headingId} className="card section location-form">
      <h2 id={headingId}>{location ? `Edit ${location.name}` : 'New location'}</h2>
      <form ref={form} className="stack-form" onSubmit={submit} noValidate>
        <FormProblems error={error} errors={errors} />
        <Field
          label="Name"
          hint={`Lower-case letters, digits and hyphens, ${nameLength.min} to ${nameLength.max}, starting with a letter; not a region id.${location ? ' Results already stored keep the old name.' : ''}`}
          error={errors.of('name')}
        >
          {(control) => (
            <input
              {...control}
              type="text"
              value={name}
              maxLength={nameLength.max}
              autoComplete="off"
              spellCheck={false}
              placeholder="office"
              onChange={(e) => setName(e.target.value)}
            />
          )}
        </Field>
        <KeyValueEditor
          legend="Metadata (optional)"
          item="Label"
          field="metadata"
          rows={labels}
          onChange={setLabels}
          errors={errors}
          hint={`Up to ${LOCATION_LIMITS.labels} labels of your choice, e.g. network: office.`}
          namePlaceholder="network"
          valuePlaceholder="office"
        />
        <FormActions busy={busy} submitLabel={location ? 'Save location' : 'Create location'} onCancel={onCancel} />
      </form>
    </section>
  );
}
