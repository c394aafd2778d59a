import { type FormEvent, useId, useRef, useState } from 'react';
import type { StatusPage } from '../../../proto/gen/status_page/v1/status_page_pb.js';
import type { ApiError } from '../api.ts';
import type { ScreenProps } from '../app.tsx';
import { ActionsTable, ConfirmDialog, ErrorNote, Loading, PageHeader } from '../components.tsx';
import { Field, FormProblems, matchViolations, useFocusOnRefusal } from '../forms.tsx';
import { useCreateStatusPage, useDeleteStatusPage, useStatusPages } from '../data/pages.ts';
import { asApiError, loadedOf, useConfirmedAction } from '../hooks.ts';
import { Icon } from '../icons.tsx';
import { Link, navigate } from '../router.tsx';
import { When } from '../time.tsx';
import { isoOf } from './page-form-parts.tsx';
import './pages.css';

/** A slug suggested from a title: lower-case letters and digits joined by hyphens. */
function slugFrom(title: string): string {
  return title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63)
    .replace(/-+$/, '');
}

export function PagesScreen({ workspace }: ScreenProps) {
  const pages = loadedOf(useStatusPages(workspace.id));
  const [creating, setCreating] = useState(false);
  const deletePage = useDeleteStatusPage(workspace.id);
  const remove = useConfirmedAction(
    (page: StatusPage) => deletePage.mutateAsync({ id: page.id }),
    async () => undefined,
  );

  const empty = pages.state === 'ready' && pages.value.length === 0;
  return (
    <div className="pages-screen">
      <PageHeader
        title="Status pages"
        actions={
          pages.state !== 'ready' || empty || creating ? null : (
            <button type="button" className="button button-primary" onClick={() => setCreating(true)}>
              <Icon name="plus" />
              New status page
            </button>
          )
        }
      >
        Public pages that tell the people using {workspace.name}'s services whether they work: components, incidents and maintenance.
      </PageHeader>

      {creating || empty ? (
        <CreatePageForm
          workspaceId={workspace.id}
          first={empty}
          onCancel={empty ? undefined : () => setCreating(false)}
          onCreated={(page) => navigate(`/pages/${encodeURIComponent(page.id)}`)}
        />
      ) : null}

      <section aria-labelledby="pages-heading" className="section">
        <h2 id="pages-heading">Pages of {workspace.name}</h2>
        {pages.state === 'loading' ? <Loading what="status pages" /> : null}
        {pages.state === 'error' ? <ErrorNote>{pages.error.message}</ErrorNote> : null}
        {empty ? (
          <div className="empty">
            <p>
              <strong>No status pages yet.</strong> A status page shows visitors, without an account, whether your services work: each component's state and
              uptime, the incidents you report and the maintenance you plan. Create one above, then add its components.
            </p>
          </div>
        ) : null}
        {pages.state === 'ready' && pages.value.length > 0 ? (
          <ActionsTable columns={['Title', 'Slug', 'Public page', 'Components', 'Changed']}>
            {pages.value.map(({ page, components }) => (
              <tr key={page.id}>
                <th scope="row" className="cell-title">
                  <Link to={`/pages/${encodeURIComponent(page.id)}`}>{page.title}</Link>
                </th>
                <td>
                  <code>{page.slug}</code>
                </td>
                <td>
                  <a href={page.url} target="_blank" rel="noopener noreferrer" className="external-link">
                    <span className="visually-hidden">Public page of {page.title}: </span>
                    {page.url}
                    <Icon name="external" />
                    <span className="visually-hidden"> (opens in a new tab)</span>
                  </a>
                </td>
                <td>{components}</td>
                <td>
                  <When iso={isoOf(page.updatedAt)} />
                </td>
                <td className="cell-actions">
                  <button
                    type="button"
                    className="button button-small button-danger-quiet"
                    aria-label={`Delete ${page.title}`}
                    onClick={() => remove.ask(page)}
                  >
                    <Icon name="trash" />
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </ActionsTable>
        ) : null}
      </section>

      <ConfirmDialog {...remove.dialog} title={`Delete the status page “${remove.target?.title ?? ''}”?`} confirmLabel="Delete page">
        <p>
          Its address <code>{remove.target?.url}</code> stops answering, and its components, subscribers, status reports and maintenance windows are deleted
          with it. This cannot be undone.
        </p>
      </ConfirmDialog>
    </div>
  );
}

function CreatePageForm({
  workspaceId,
  first,
  onCancel,
  onCreated,
}: {
  workspaceId: string;
  first: boolean;
  onCancel: (() => void) | undefined;
  onCreated(page: StatusPage): void;
}) {
  const createPage = useCreateStatusPage(workspaceId);
  const [title, setTitle] = useState('');
  const [slug, setSlug] = useState<string>();
  const [description, setDescription] = useState('');
  const [error, setError] = useState<ApiError>();
  const [busy, setBusy] = useState(false);
  const headingId = useId();
  const form = useRef<HTMLFormElement>(null);
  useFocusOnRefusal(form, error);
  // The slug follows the title until it is typed into.
  const shownSlug = slug ?? slugFrom(title);
  const errors = matchViolations(error, ['title', 'slug', 'description']);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const { statusPage } = await createPage.mutateAsync({ title: title.trim(), slug: shownSlug, description: description.trim() });
      onCreated(statusPage!);
    } catch (caught) {
      setError(asApiError(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby={headingId} className="card section">
      <h2 id={headingId}>{first ? 'Create your first status page' : 'New status page'}</h2>
      <form ref={form} className="stack-form" onSubmit={submit} noValidate>
        <FormProblems error={error} errors={errors} />
        <div className="form-grid">
          <Field label="Title" error={errors.of('title')}>
            {(control) => (
              <input {...control} type="text" value={title} maxLength={200} placeholder="Acme status" onChange={(event) => setTitle(event.target.value)} />
            )}
          </Field>
          <Field
            label="Slug"
            hint={
              <>
                The page's address, <code>/status/{shownSlug || 'slug'}</code>: lower-case letters, digits and hyphens.
              </>
            }
            error={errors.of('slug')}
          >
            {(control) => (
              <input
                {...control}
                type="text"
                value={shownSlug}
                maxLength={63}
                spellCheck={false}
                autoCapitalize="off"
                autoComplete="off"
                onChange={(event) => setSlug(event.target.value)}
              />
            )}
          </Field>
        </div>
        <Field label="Description (optional)" hint="Shown under the title." error={errors.of('description')}>
          {(control) => <textarea {...control} value={description} rows={2} onChange={(event) => setDescription(event.target.value)} />}
        </Field>
        <div className="form-actions">
          <button type="submit" className="button button-primary" disabled={busy}>
            Create page
          </button>
          {onCancel ? (
            <button type="button" className="button button-ghost" onClick={onCancel}>
              Cancel
            </button>
          ) : null}
        </div>
      </form>
    </section>
  );
}
